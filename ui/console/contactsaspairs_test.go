package console

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// TestContactsExportNotOpenedAsPairs: the composer's file picker refuses a
// contacts export without a header (number, name) as the CLI does, naming
// the file and what it looks like; named columns open it, and the column
// mapping is shown with the rows and in the confirmation, before anything
// is sent (issue 27 item 1).
func TestContactsExportNotOpenedAsPairs(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	path := filepath.Join(t.TempDir(), "export.csv")
	if err := os.WriteFile(path, []byte("09121234567,Ali\n09351234567,Sara\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tm := e.startOnGroup1(t)
	tm.Send(press("c"))
	waitModel(t, tm, "composer", func(m *root) bool { return m.screen == screenComposer })
	tm.Send(press("esc"))
	tm.Send(press("o"))
	waitModel(t, tm, "file form", func(m *root) bool { return m.modal != nil })
	typeText(tm, path)
	tm.Send(press("enter"))
	waitModel(t, tm, "refused", func(m *root) bool {
		f, ok := m.modal.(*form)
		return ok && strings.Contains(f.err, "export.csv line 1: looks like a contacts file: no header row, and column 2 reads like names (Ali, Sara)") &&
			m.composer.source != sourceCSV
	})
	tm.Send(press("tab"))
	typeText(tm, "mobile,message")
	tm.Send(press("enter"))
	const mapping = `no header; columns as you named them: column 1 "mobile" → recipient, column 2 "message" → message`
	waitModel(t, tm, "opened with the mapping", func(m *root) bool {
		return m.modal == nil && m.composer.source == sourceCSV && m.composer.plan != nil &&
			m.composer.note == "2 rows from "+path+" · "+mapping
	})
	tm.Send(press("ctrl+s"))
	waitModel(t, tm, "the confirmation names the columns", func(m *root) bool {
		d, ok := m.modal.(*confirm)
		return ok && strings.Contains(d.body, "Columns:     "+mapping)
	})
	tm.Send(press("n"))
	waitModel(t, tm, "answered no", func(m *root) bool { return m.modal == nil })
	if n := e.srv.RequestsTo("POST", "/sms/send-pair"); n != 0 {
		t.Errorf("%d send requests", n)
	}
	finalView(t, tm)
}
