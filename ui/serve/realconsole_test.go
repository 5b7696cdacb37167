package serve

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model/eventually"
	"github.com/smsdesk/smsdesk/ui/console"
)

// realConsole is the console itself (ui/console), on the session's own
// terminal, as smsdesk serve builds it.
// Its files are the server's, in the files directory of the state
// directory, as smsdesk serve has them.
func realConsole(ctx context.Context, t Terminal) (Console, []tea.ProgramOption) {
	files := filepath.Join(t.App.Paths.StateDir, "files")
	if err := os.MkdirAll(files, 0o700); err != nil {
		panic(err)
	}
	return console.New(ctx, console.Options{Session: t.App, Input: t.Input, Output: t.Output, Environ: t.Environ,
		ColorProfile: t.ColorProfile, Width: t.Width, Height: t.Height, NoMouse: true, FilesDir: files})
}

// compose opens the composer on the first group (8 seeded contacts), types
// a template and asks to send: the confirmation shows.
func (tm *terminal) compose() {
	tm.t.Helper()
	tm.waitFor("09018901234") // the first group's last contact: loaded (a row drawn whole)
	tm.key("c")
	tm.waitFor("Message template")
	tm.key("Hi {name}, spring sale")
	tm.key("\x13") // ctrl+s
	tm.waitFor("Send these messages?")
}

// TestRealConsoleViewer: the console itself, served to a viewer: the status
// bar names them; compose is refused naming the role; no request for it.
func TestRealConsoleViewer(t *testing.T) {
	w := newWorld(t, worldOptions{real: true, cols: 220})
	tm := w.open("vida", nil)
	tm.waitFor("vida (viewer)", "09018901234")
	before := w.sb.Requests()
	tm.key("c")
	tm.waitFor("✗ sending needs the sender role (vida is a viewer)") // the status bar, cut to its width (the message log has it whole)
	if n := w.sb.Requests() - before; n != 0 {
		t.Errorf("%d requests reached the service", n)
	}
	if len(w.journals()) != 0 {
		t.Error("a journal was written")
	}
}

// TestRealConsoleTwoOperators: sara and reza both confirm the same send
// before either starts; sara's goes, reza's is refused naming sara's send
// and sara, said whole on his 100-column terminal (the status bar cut it).
func TestRealConsoleTwoOperators(t *testing.T) {
	w := newWorld(t, worldOptions{real: true, cols: 100, holdAt: 1})
	sara, reza := w.open("sara", nil), w.open("reza", nil)
	sara.compose()
	reza.compose()
	sara.key("y")
	w.waitHeld()
	reza.key("y")
	eventually.True(t, wait, func() bool { return strings.Contains(w.log.String(), "send refused: another send has these pairs") },
		func() string { return "reza's send was not refused:\n" + w.log.String() })
	reza.waitFor("Not sent: another send began with these pairs", "which sara began", "nothing was sent", "by sara")
	w.releaseOnce()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	eventually.True(t, wait, func() bool { return len(w.sb.Sent()) == 8 }, func() string { return "sara's 8 messages did not all go" })
	if err := w.tracker.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	log := w.log.String()
	if !strings.Contains(log, "by sara, which is still running") || !strings.Contains(log, "operator=reza") {
		t.Errorf("log:\n%s", log)
	}
	js := w.journals()
	if len(js) != 1 || js[0].Plan.Operator == nil || js[0].Plan.Operator.Name != "sara" || js[0].Counts().Accepted != 8 {
		t.Errorf("journals: %d", len(js))
	}
	if n := len(w.sb.Sent()); n != 8 {
		t.Errorf("the service took %d messages, want 8", n)
	}
	w.noKeyAnywhere(sara, reza)
}

// TestRealConsoleHangUp: the connection drops while a chunk is in flight:
// it finishes and is journaled; the rest is not sent; nothing is unknown.
func TestRealConsoleHangUp(t *testing.T) {
	w := newWorld(t, worldOptions{real: true, cols: 220, holdAt: 2})
	tm := w.open("sara", nil)
	tm.compose()
	tm.key("y")
	w.waitHeld()
	tm.client.Close()
	eventually.True(t, wait, func() bool { return strings.Contains(w.log.String(), "session ended") },
		func() string { return "the session did not end:\n" + w.log.String() })
	w.releaseOnce()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := w.tracker.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	st := w.journals()[0]
	if c := st.Counts(); c.Unknown != 0 || c.Accepted != 2 || c.NotSent != 6 {
		t.Errorf("after the hang-up: %+v; want 2 accepted, 6 not sent, 0 unknown", c)
	}
	// The run ended, and let its lease go at once (issue 40 §10): sara
	// reconnects and resumes it straight away. The console that started
	// it was gone and never closed its journal: R and the CLI's --resume
	// said "still running … wait for it to end" until its lease lapsed.
	if config.JournalInUse(t.Context(), w.paths, st.Plan.ID) {
		t.Error("the send is still leased after its run ended")
	}
	again := w.open("sara", nil)
	again.waitFor("09018901234")
	again.key("h")
	again.waitFor("interrupted · 2 accepted, 6 not sent") // its row in the list (the OUTCOME column's words since f4d44ad)
	again.key("R")
	again.waitFor("Resume send?", "continuing send "+st.Plan.ID)
}

// TestRealConsoleShutdown: SIGTERM's path mid-send: the console is told,
// its chunk in flight finishes and is journaled, the server stops.
func TestRealConsoleShutdown(t *testing.T) {
	w := newWorld(t, worldOptions{real: true, cols: 220, holdAt: 2})
	tm := w.open("sara", nil)
	tm.compose()
	tm.key("y")
	w.waitHeld()
	shutDown := w.shutdown()
	tm.waitFor("stopping after the request in flight") // the console has the message: its send stops after this chunk
	w.releaseOnce()
	shutDown()
	tm.waitFor("smsdesk serve is stopping")
	w.noKeyAnywhere(tm)
	if c := w.journals()[0].Counts(); c.Unknown != 0 || c.Accepted != 2 || c.NotSent != 6 {
		t.Errorf("after the shutdown: %+v; want 2 accepted, 6 not sent, 0 unknown", c)
	}
}

// TestRealConsoleColourPerSession: one operator's NO_COLOR does not change
// another's console: each session draws in its own terminal's profile.
func TestRealConsoleColourPerSession(t *testing.T) {
	w := newWorld(t, worldOptions{real: true, cols: 220})
	plain, colour := w.open("sara", map[string]string{"NO_COLOR": "1"}), w.open("reza", nil)
	plain.waitFor("09018901234")
	colour.waitFor("09018901234")
	if strings.Contains(plain.out.String(), "\x1b[38;5;") {
		t.Error("the NO_COLOR session got colours")
	}
	if !strings.Contains(colour.out.String(), "\x1b[38;5;") {
		t.Error("the other session lost its colours")
	}
}

// TestRealConsoleViewerKeepsTheLists: as the README says, a viewer may not
// untrack (u) or track (t) a group, nor export (e) contacts: each is refused
// naming the role; the known groups are as they were, no file is written
// and nothing is audited. A sender's export is written in the files
// directory and audited with operator, group, rows and file.
func TestRealConsoleViewerKeepsTheLists(t *testing.T) {
	w := newWorld(t, worldOptions{real: true, cols: 220})
	before, err := config.LoadGroups(w.paths, "live")
	if err != nil {
		t.Fatal(err)
	}
	vida := w.open("vida", nil)
	vida.waitFor("vida (viewer)", "09018901234")
	vida.key("u")
	vida.waitFor("✗ untracking a group needs the sender role (vida is a viewer)")
	vida.key("t")
	vida.key("\t") // the contacts pane
	vida.key("e")
	vida.waitFor("✗ exporting")
	// The message log has every refusal whole (on the status bar each is
	// drawn over the one before, only the cells that differ).
	vida.key("L")
	vida.waitFor("tracking a group needs the sender role (vida is a viewer); nothing was done",
		"exporting needs the sender role (vida is a viewer); nothing was done")
	files := filepath.Join(w.paths.StateDir, "files")
	if entries, _ := os.ReadDir(files); len(entries) != 0 {
		t.Errorf("a viewer's keys wrote %d file(s)", len(entries))
	}
	if after, _ := config.LoadGroups(w.paths, "live"); len(after) != len(before) {
		t.Errorf("the known groups changed: %d, then %d", len(before), len(after))
	}
	if audit, _ := config.AuditText(t.Context(), w.paths); len(audit) > 0 {
		t.Error("a viewer's refused keys were audited")
	}

	sara := w.open("sara", nil)
	sara.waitFor("sara (sender)", "09018901234")
	sara.key("\t")
	sara.key("e")
	sara.waitFor("Export contacts")
	sara.key("\r")
	sara.waitFor("exported 8 contacts")
	path := filepath.Join(files, "group-1-contacts.csv")
	if data, err := os.ReadFile(path); err != nil || strings.Count(string(data), "\n") != 9 {
		t.Fatalf("the export: %q %v", data, err)
	}
	audit, _ := config.AuditText(t.Context(), w.paths)
	for _, want := range []string{`"action":"export_contacts"`, `"name":"sara"`, `"group_id":1`, `"rows":8`, `"file":"` + path + `"`} {
		if !strings.Contains(string(audit), want) {
			t.Errorf("the audit record has no %s:\n%s", want, audit)
		}
	}
}

// TestRealConsoleFilesByName: a served operator is shown the files
// directory's names, never the server's paths: an export's note, the error
// of an export to a name that exists, and a file that is not there.
func TestRealConsoleFilesByName(t *testing.T) {
	w := newWorld(t, worldOptions{real: true, cols: 220})
	sara := w.open("sara", nil)
	sara.waitFor("sara (sender)", "09018901234")
	sara.key("\t")
	sara.key("e")
	sara.waitFor("Export contacts")
	sara.key("\r")
	sara.waitFor("exported 8 contacts to group-1-contacts.csv")
	sara.key("e")
	sara.waitFor("Export contacts")
	sara.key("\r")
	sara.waitFor("group-1-contacts.csv already exists; choose another file name")
	sara.key("\x1b") // the form closes
	sara.key("i")
	sara.waitFor("Import contacts into")
	sara.key("nothere.csv\r")
	sara.waitFor("opening nothere.csv: open nothere.csv: no such file or") // the form wraps the rest
	if strings.Contains(sara.out.String(), "state/files") {
		t.Errorf("the server's path reached the terminal:\n%s", sara.out.String())
	}
}
