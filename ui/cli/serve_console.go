package cli

import (
	"context"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/console"
	"github.com/smsdesk/smsdesk/ui/serve"
)

// serveConsole is the console smsdesk serve runs per session (console.New
// on the session's own terminal), and its stop message.
func (f *Factory) serveConsole(eng *served) (serve.ConsoleFactory, func() tea.Msg) {
	var cs config.ConsoleSettings
	if cfg, err := config.Load(eng.opPaths); err == nil {
		cs = cfg.Console
	}
	return func(ctx context.Context, t serve.Terminal) (serve.Console, []tea.ProgramOption) {
		return console.New(ctx, f.servedOptions(eng, cs, t))
	}, console.Stop
}

// servedOptions are one session's console options. Display settings are
// decided from the client's terminal (TERM, NO_COLOR, TMUX… as its ssh sent
// them) and this host's [console] settings; nothing of the server's own
// terminal or environment is read, so one operator's terminal does not
// change another's. The client's background is not asked before the
// program starts: theme auto is dark.
//
// Bidi is decided per session: unless the host's config says off or visual
// for everyone, it is auto from the client's TERM and environment (ssh
// sends TERM, not TMUX: a client in tmux has TERM=tmux-256color or
// screen-256color, which auto reorders for). The status bar's first note
// says which, and that B switches it for the session.
func (f *Factory) servedOptions(eng *served, cs config.ConsoleSettings, t serve.Terminal) console.Options {
	opts := console.Options{
		Session: t.App, Demo: eng.demo, Logger: f.logger(), FilesDir: eng.files,
		Input: t.Input, Output: t.Output, Environ: t.Environ, ColorProfile: t.ColorProfile, Width: t.Width, Height: t.Height,
	}
	if cs.Bidi == "" {
		cs.Bidi = config.BidiAuto
	}
	opts.Display(cs, t.Getenv, nil)
	opts.Note = bidiNote(opts.BidiVisual, t.Getenv("TERM"))
	return opts
}

// bidiNote says how right-to-left text is shown on a served terminal and
// how to change it: short, to be read beside the status bar's profile line
// (the help screen says it in full).
func bidiNote(visual bool, term string) string {
	if visual {
		return fmt.Sprintf("RTL text reordered for TERM=%s · B: as written", model.SanitizeLine(term))
	}
	return "RTL text as written · B: reordered"
}
