package cli

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
	"github.com/smsdesk/smsdesk/ui/app/apptest"
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

// TestServeOnAPortInUse: an address something else listens on is refused
// with the way on, as the sandbox's is ("pick another --addr"); it said
// only "bind: address already in use".
func TestServeOnAPortInUse(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	e.mustRun(t, 0, "operators", "add", "sara", "--key", testOperatorKey)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, errOut := e.mustRun(t, ExitUsage, "serve", "--addr", l.Addr().String())
	_, port, _ := net.SplitHostPort(l.Addr().String())
	n, _ := strconv.Atoi(port)
	if !strings.Contains(errOut, "address already in use") ||
		!strings.Contains(errOut, "→ something else listens on "+l.Addr().String()+": pick another --addr (e.g. --addr 127.0.0.1:"+strconv.Itoa(n+1)+")") {
		t.Errorf("serve on a port in use:\n%s", errOut)
	}
}

// TestServeRefusesUntrustedFiles: an operators file in a directory others
// may write, another user's operators file, or a host key in a directory
// others may write: serve does not start (exit 2) and
// names the file and the fix, before it listens.
func TestServeRefusesUntrustedFiles(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		root      bool
		spoil     func(t *testing.T, e *sendEnv) string // the path at fault
		want, fix string
	}{
		{"config directory at 0777", false, func(t *testing.T, e *sendEnv) string {
			dir := filepath.Join(e.dir, "config")
			mustChmod(t, dir, 0o777)
			return dir
		}, "is writable by group or others (mode -rwxrwxrwx)", "chmod go-w "},
		{"another user's operators file", true, func(t *testing.T, e *sendEnv) string {
			file := filepath.Join(e.dir, "config", config.OperatorsFileName)
			if err := os.Chown(file, 65534, 65534); err != nil {
				t.Fatal(err)
			}
			return file
		}, "is owned by uid 65534", "chown "}, // chown LOGIN PATH
		{"host key in a state directory at 0777", false, func(t *testing.T, e *sendEnv) string {
			dir := filepath.Join(e.dir, "state")
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			mustChmod(t, dir, 0o777)
			return dir
		}, "is writable by group or others (mode -rwxrwxrwx)", "chmod go-w "},
		{"config.toml at 0666", false, func(t *testing.T, e *sendEnv) string {
			file := filepath.Join(e.dir, "config", "config.toml")
			mustChmod(t, file, 0o666)
			return file
		}, "is writable by group or others (mode -rw-rw-rw-)", "chmod go-w "},
		{"sends/ at 0777", false, func(t *testing.T, e *sendEnv) string {
			return spoilState(t, e, "sends", 0o777)
		}, "is writable by group or others (mode -rwxrwxrwx)", "chmod go-w "},
		{"an opt-out list in the state at 0666", false, func(t *testing.T, e *sendEnv) string {
			return spoilState(t, e, "accounts/acct1/optouts.json", 0o666)
		}, "is writable by group or others (mode -rw-rw-rw-)", "chmod go-w "},
		{"the ledger's -wal at 0666", false, func(t *testing.T, e *sendEnv) string {
			return spoilState(t, e, "smsdesk.db-wal", 0o666)
		}, "is writable by group or others (mode -rw-rw-rw-)", "chmod go-w "},
		{"a directory above the config at 0777", false, func(t *testing.T, e *sendEnv) string {
			mustChmod(t, e.dir, 0o777)
			return e.dir
		}, "is writable by group or others (mode -rwxrwxrwx)", "chmod go-w "},
		{"another user's journal", true, func(t *testing.T, e *sendEnv) string {
			file := spoilState(t, e, "sends/s1.jsonl", 0o600)
			if err := os.Chown(file, 65534, 65534); err != nil {
				t.Fatal(err)
			}
			return file
		}, "is owned by uid 65534", "chown "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.root && os.Getuid() != 0 {
				t.Skip("chown needs root")
			}
			e := newSendEnv(t, nil)
			e.mustRun(t, 0, "operators", "add", "sara", "--key", testOperatorKey)
			path := tc.spoil(t, e)
			_, errOut := e.mustRun(t, ExitUsage, "serve", "--addr", "127.0.0.1:0")
			_, hint, _ := strings.Cut(errOut, "→ ")
			if !strings.Contains(errOut, path+" "+tc.want) || !strings.HasPrefix(hint, tc.fix) || !strings.Contains(hint, path) || strings.Contains(errOut, "Host key SHA256") {
				t.Errorf("serve with %s:\n%s", tc.name, errOut)
			}
		})
	}
}

// spoilState makes rel in the test's state directory (a directory when it
// has no extension) and gives it mode.
func spoilState(t *testing.T, e *sendEnv, rel string, mode os.FileMode) string {
	t.Helper()
	path := filepath.Join(e.dir, "state", filepath.FromSlash(rel))
	dir := path
	if filepath.Ext(rel) != "" {
		dir = filepath.Dir(path)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if dir != path {
		if err := os.WriteFile(path, []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	mustChmod(t, path, mode)
	return path
}

func mustChmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// TestServedOptions: each session's display is decided from its own
// client's environment: bidi auto on a terminal that does not reorder,
// NO_COLOR, tmux; never from the server's.
func TestServedOptions(t *testing.T) {
	t.Parallel()
	a := newFactory(nil, Env{Getenv: func(k string) string {
		return map[string]string{"NO_COLOR": "1", "TMUX": "/tmp/tmux", "TERM": "xterm-kitty"}[k] // the server's own: never read
	}})
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
	// Unset on the host, bidi is decided per session from the client's
	// TERM (ssh sends TERM, not TMUX), and the first note says which and
	// that B switches it.
	unset := config.ConsoleSettings{}
	for _, tc := range []struct {
		term   string
		visual bool
		note   string
	}{
		{"tmux-256color", true, "RTL text reordered for TERM=tmux-256color · B: as written"},
		{"screen-256color", true, "RTL text reordered for TERM=screen-256color · B: as written"},
		{"xterm-256color", false, "RTL text as written · B: reordered"},
	} {
		o := a.servedOptions(eng, unset, serve.Terminal{Environ: []string{"TERM=" + tc.term}})
		if o.BidiVisual != tc.visual || !strings.HasPrefix(o.Note, tc.note) {
			t.Errorf("TERM=%s, bidi unset on the host: visual %v, note %q", tc.term, o.BidiVisual, o.Note)
		}
	}
}

// TestHistoryNamesOperators: a send made on a served console is listed
// with who sent it: history's BY column, history --json's "operator" (name
// and key fingerprint); the CSV keeps its columns.
func TestHistoryNamesOperators(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	paths := config.PathsIn(e.env["SMSDESK_CONFIG_DIR"], e.env["SMSDESK_STATE_DIR"])
	prof := &config.Profile{Name: "default", BaseURL: e.env["SMSDESK_BASE_URL"], Sender: sandbox.DefaultSender, RatePerMinute: 6000}
	eng, err := app.Open(app.EngineOptions{Paths: paths, ProfileName: "default", Profile: prof, BaseURL: prof.BaseURL, Key: e.sb.Key()})
	if err != nil {
		t.Fatal(err)
	}
	s := eng.Session(&model.Operator{Name: "sara", Fingerprint: "SHA256:sarafp", Role: model.RoleSender})
	plan := s.Plan(sandbox.DefaultSender, []model.PairRow{{Line: 2, Recipient: "09121110001", Message: "hi"}})
	x := apptest.Start(t, context.Background(), s, plan, app.FileSource("pairs.csv"), app.SendOptions{})
	if _, err := x.Finish(); err != nil {
		t.Fatal(err)
	}
	_, table, _ := e.runOn(t, context.Background(), 200, "history")
	if lines := strings.Split(strings.TrimSpace(table), "\n"); len(lines) != 2 || !strings.HasSuffix(strings.TrimSpace(lines[0]), "BY") ||
		!strings.HasSuffix(strings.TrimSpace(lines[1]), "sara") {
		t.Errorf("history:\n%s", table)
	}
	if rows, _ := e.mustRun(t, 0, "history"); !strings.HasSuffix(rows, "\tsara\n") {
		t.Errorf("history to a pipe:\n%s", rows)
	}
	out, _ := e.mustRun(t, 0, "history", "--json=id,operator")
	if !strings.Contains(out, `"name": "sara"`) || !strings.Contains(out, `"fingerprint": "SHA256:sarafp"`) {
		t.Errorf("history --json: %s", out)
	}
	csv, _ := e.mustRun(t, 0, "history", "--csv")
	if !strings.HasSuffix(strings.Split(csv, "\n")[0], ",status,by,started_at,delivery") || !strings.Contains(csv, ",complete,sara,,") {
		t.Errorf("history --csv: the BY column as the table's:\n%s", csv)
	}
}
