package console

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
)

func TestImportCSV(t *testing.T) {
	e := newEnv(t, sandbox.Options{})
	dir := t.TempDir()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir) // relative paths keep the golden frame the same on every machine
	file := "new.csv"
	csv := "mobile;name\n۰۹۱۲ ۵۵۵ ۰۰۰۱;نازنین\n+989125550002;Omid\nnot-a-number;Bad Row\n"
	if err := os.WriteFile(file, []byte(csv), 0o600); err != nil {
		t.Fatal(err)
	}
	tm := e.startOnGroup1(t)
	tm.Send(press("tab"))
	tm.Send(press("i"))
	typeText(tm, file)
	tm.Send(press("enter"))
	// The preview comes first: 2 to add, 0 in the group, line 4 invalid.
	waitModel(t, tm, "the preview", func(m *root) bool {
		d, ok := m.modal.(*confirm)
		return ok && strings.Contains(d.body, "Add 2 contact(s)") && strings.Contains(d.body, "0 already in the group") && strings.Contains(d.body, "line 4:")
	})
	tm.Send(press("y"))
	waitModel(t, tm, "import done and reloaded", func(m *root) bool {
		// The status bar's copy too: it comes in its own Cmd, and must not
		// land after the export's below.
		return strings.HasPrefix(m.contacts.note, "import into") && strings.HasPrefix(m.note, "import into") &&
			!m.contacts.loading && len(m.contacts.rows) == 10
	})
	var note, errText, logged string
	waitModel(t, tm, "note", func(m *root) bool {
		note, errText = m.contacts.note, m.contacts.err
		for _, e := range m.log {
			logged += e.text + "\n"
		}
		return true
	})
	// An invalid row is "invalid (not imported)", not "failed"; every such row
	// is in the message log with its line and reason.
	if note != "import into مشتریان تهران: 2 added, 0 already in the group (skipped), 1 invalid (not imported), 0 failed · L: every row in the message log" || errText != "" {
		t.Fatalf("import note %q, error %q: want 2 added, 1 invalid", note, errText)
	}
	if !strings.Contains(logged, "import into مشتریان تهران: line 4:") {
		t.Fatalf("the message log lacks line 4:\n%s", logged)
	}
	cs, err := e.client.ListContacts(context.Background(), "1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !hasContact(cs, "09125550001", "نازنین") || !hasContact(cs, "09125550002", "Omid") {
		t.Fatalf("service lacks the imported contacts: %+v", cs[8:])
	}
	// Export writes what the table holds, into a new 0600 file.
	out := "out.csv"
	tm.Send(press("e"))
	waitModel(t, tm, "export form", func(m *root) bool { _, ok := m.modal.(*form); return ok })
	waitModel(t, tm, "path typed", func(m *root) bool { m.modal.(*form).fields[0].input.SetValue(out); return true })
	tm.Send(press("enter"))
	// The golden shows the status bar's copy of the note too, which comes in
	// a Cmd of its own: wait for both, or a busy machine catches the status
	// line still saying the import's.
	waitModel(t, tm, "exported", func(m *root) bool {
		return strings.HasPrefix(m.contacts.note, "exported 10") && strings.HasPrefix(m.note, "exported 10")
	})
	st, err := os.Stat(out)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("export file: %v %v", st, err)
	}
	b, _ := os.ReadFile(out)
	if !strings.Contains(string(b), "09125550001,نازنین") {
		t.Fatalf("export lacks the imported row:\n%s", b)
	}
	frame := finalView(t, tm)
	if err := os.Chdir(wd); err != nil {
		t.Fatal(err)
	}
	requireGolden(t, frame)
}

func TestKnownGroupsAndHistoryOnDisk(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	paths := config.PathsIn(t.TempDir(), t.TempDir())
	t.Cleanup(func() { paths.CloseLedger() })
	if err := config.TrackGroup(paths, "test", groupNewsletter); err != nil {
		t.Fatal(err)
	}
	e.opts.Session.Paths = paths
	tm := e.start(t)
	waitModel(t, tm, "group from the state file", func(m *root) bool { return m.contacts.group.ID == "4" && len(m.contacts.rows) == 300 })
	tm.Send(press("c"))
	// Typed once the composer has the keys: the screen changes in a Cmd's
	// message, which keys sent at once can overtake.
	waitModel(t, tm, "composer", func(m *root) bool { return m.screen == screenComposer && m.composer.Editing() })
	typeText(tm, "Hi")
	// ctrl+s once the plan is there: sent sooner it finds nothing to send.
	waitModel(t, tm, "300 planned rows", func(m *root) bool { return m.composer.plan != nil && len(m.composer.plan.Items) == 300 })
	tm.Send(press("ctrl+s"))
	waitFor(t, tm, "Send these messages?")
	tm.Send(press("y"))
	waitModel(t, tm, "sent", func(m *root) bool { return m.results.summary != nil && !m.results.sending })
	tm.Send(press("esc"))
	tm.Send(press("h"))
	waitModel(t, tm, "history lists the journaled send", func(m *root) bool {
		return m.screen == screenHistory && len(m.history.entries) == 1 && m.history.entries[0].Counts.Accepted == 300
	})
	infos, err := config.ListJournals(t.Context(), paths)
	if err != nil || len(infos) != 1 || infos[0].State == nil || infos[0].State.Counts().Accepted != 300 {
		t.Fatalf("journal on disk: %+v %v", infos, err)
	}
	_ = finalView(t, tm)
}

// TestImportCSVTwice: the console's import is the one `contacts import` uses: a
// second run of the same file adds nothing, counts the rows already in the
// group as skipped, not failed, and leaves no duplicate on the service.
func TestImportCSVTwice(t *testing.T) {
	e := newEnv(t, sandbox.Options{})
	t.Chdir(t.TempDir())
	file := "twice.csv"
	if err := os.WriteFile(file, []byte("mobile,name\n09125550001,Nazanin\n+989125550002,Omid\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tm := e.startOnGroup1(t)
	tm.Send(press("tab"))
	for _, want := range []string{
		"import into مشتریان تهران: 2 added, 0 already in the group (skipped), 0 invalid (not imported), 0 failed",
		"import into مشتریان تهران: 0 added, 2 already in the group (skipped), 0 invalid (not imported), 0 failed",
	} {
		tm.Send(press("i"))
		typeText(tm, file)
		tm.Send(press("enter"))
		if strings.Contains(want, ": 2 added") {
			waitModel(t, tm, "the preview", func(m *root) bool { _, ok := m.modal.(*confirm); return ok })
			tm.Send(press("y"))
		} // the second run has nothing to add: no question, just the counts
		waitModel(t, tm, want, func(m *root) bool { return m.contacts.note == want && !m.contacts.loading && m.contacts.err == "" })
	}
	cs, err := e.client.ListContacts(context.Background(), "1", nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, c := range cs {
		seen[c.Mobile]++
	}
	if seen["09125550001"] != 1 || seen["09125550002"] != 1 {
		t.Fatalf("after two imports the group holds %v", seen)
	}
	_ = finalView(t, tm)
}
