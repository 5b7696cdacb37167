package cli

import (
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/ui/serve"
)

// TestServeNeedsOperators: with nobody in the operators file nobody could
// sign in: serve refuses at once (exit 2) and says how to add one, before
// it listens or makes a host key.
func TestServeNeedsOperators(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	_, errOut := e.mustRun(t, ExitUsage, "serve", "--addr", "127.0.0.1:0")
	if !strings.Contains(errOut, "no operators yet") || !strings.Contains(errOut, "smsdesk operators add NAME") {
		t.Errorf("serve without operators: %s", errOut)
	}
	if strings.Contains(errOut, e.sb.Key()) {
		t.Error("the API key is in the output")
	}
	e.mustRun(t, ExitUsage, "serve", "--max-sessions", "0")
}

// TestServedOptions: each session's display is decided from its own
// client's environment: bidi auto on a terminal that does not reorder,
// NO_COLOR, tmux; never from the server's.
func TestServedOptions(t *testing.T) {
	t.Parallel()
	a := &command{env: Env{Getenv: func(k string) string {
		return map[string]string{"NO_COLOR": "1", "TMUX": "/tmp/tmux", "TERM": "xterm-kitty"}[k] // the server's own: never read
	}}}
	eng := &served{files: "/srv/files"}
	auto := config.ConsoleSettings{Bidi: "auto"}
	kitty := a.servedOptions(eng, auto, serve.Terminal{Environ: []string{"TERM=xterm-kitty", "NO_COLOR=1"}})
	if !kitty.BidiVisual || !kitty.NoColor || kitty.Multiplexer != "" || kitty.FilesDir != "/srv/files" || kitty.Theme != "dark" {
		t.Errorf("kitty with NO_COLOR: %+v", kitty)
	}
	konsole := a.servedOptions(eng, auto, serve.Terminal{Environ: []string{"TERM=xterm-256color", "KONSOLE_VERSION=230804"}})
	if konsole.BidiVisual || konsole.NoColor || konsole.Multiplexer != "" {
		t.Errorf("konsole: bidi %v, no colour %v, multiplexer %q", konsole.BidiVisual, konsole.NoColor, konsole.Multiplexer)
	}
	tmux := a.servedOptions(eng, auto, serve.Terminal{Environ: []string{"TERM=tmux-256color", "TMUX=/tmp/tmux-1000/default,1,0"}})
	if !tmux.BidiVisual || tmux.Multiplexer != "tmux" {
		t.Errorf("tmux: bidi %v, multiplexer %q", tmux.BidiVisual, tmux.Multiplexer)
	}
	if off := a.servedOptions(eng, config.ConsoleSettings{Bidi: "off"}, serve.Terminal{Environ: []string{"TERM=xterm-kitty"}}); off.BidiVisual {
		t.Error("bidi off on the host: visual all the same")
	}
}
