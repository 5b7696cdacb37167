package console

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// TestImportPreviewFits80Columns: the preview's reasons wrap inside the
// dialog; it was wider than 100 columns.
func TestImportPreviewFits80Columns(t *testing.T) {
	e := newEnv(t, sandbox.Options{})
	path := filepath.Join(t.TempDir(), "c.csv")
	if err := os.WriteFile(path, []byte("mobile,name\n09121110001,Ali\n0912,Short\n+14155550100,Foreign\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tm := e.startOnGroup1(t)
	tm.Send(tea.WindowSizeMsg{Width: 80, Height: 24})
	tm.Send(press("tab")) // the contacts pane
	tm.Send(press("i"))
	waitModel(t, tm, "file form", func(m *root) bool { return m.modal != nil })
	typeText(tm, path)
	tm.Send(press("enter"))
	var frame string
	waitModel(t, tm, "preview", func(m *root) bool { frame = m.text(); return modalTitle(m) == "Import contacts?" })
	for i, l := range strings.Split(frame, "\n") {
		if w := cellWidth(l); w > 80 {
			t.Errorf("line %d is %d cells wide at 80 columns: %q", i, w, l)
		}
	}
	if !strings.Contains(frame, "too short") || !strings.Contains(strings.Join(strings.Fields(frame), " "), "Iranian") {
		t.Errorf("the reasons are not shown:\n%s", frame)
	}
	tm.Send(press("n"))
}
