package console

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model/eventually"
)

// TestImportShortRowIsOneInvalidRow: in the console's import a row with 1
// of 2 columns is shown in the preview as invalid by its line, and the
// other rows are added (it used to refuse the whole file).
func TestImportShortRowIsOneInvalidRow(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	file := filepath.Join(t.TempDir(), "short.csv")
	if err := os.WriteFile(file, []byte("mobile,name\n09125550001,Ali\n09125550002\n09125550003,Sara\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tm := e.startOnGroup1(t)
	tm.Send(press("tab"))
	tm.Send(press("i"))
	typeText(tm, file)
	tm.Send(press("enter"))
	waitModel(t, tm, "the preview", func(m *root) bool {
		d, ok := m.modal.(*confirm)
		return ok && strings.Contains(d.body, "Add 2 contact(s)") && strings.Contains(d.body, "line 3:")
	})
	tm.Send(press("y"))
	waitModel(t, tm, "import done", func(m *root) bool {
		return strings.HasPrefix(m.contacts.note, "import into") && !m.contacts.loading && len(m.contacts.rows) == 10
	})
	var note string
	waitModel(t, tm, "note", func(m *root) bool { note = m.contacts.note; return true })
	if !strings.Contains(note, "2 added") || !strings.Contains(note, "1 invalid") {
		t.Errorf("import note %q: want 2 added, 1 invalid", note)
	}
	// The reload's cache is written in a Cmd of its own: wait for it, so
	// that nothing writes in the state directory once the test ends.
	eventually.True(t, waitLimit, func() bool {
		c, ok := config.LoadCachedContacts(e.opts.Session.Paths, "test", e.opts.Session.Profile.BaseURL, "1")
		return ok && len(c.Contacts) == 10
	}, func() string { return "group 1 was not cached after the import" })
	finalView(t, tm)
}
