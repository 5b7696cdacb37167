package console

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/smsdesk/smsdesk/model"
)

// issueSizes are the terminals issue 40's screens are checked at: 80×24
// (a laptop's tmux pane) and 100×30.
var issueSizes = [][2]int{{80, 24}, {100, 30}}

// sizeName is a subtest's name for a size: "80x24".
func sizeName(size [2]int) string { return fmt.Sprintf("%dx%d", size[0], size[1]) }

// startOnGroup1At is startOnGroup1 on a w×h terminal.
func (e *env) startOnGroup1At(t *testing.T, w, h int) *teatest.TestModel {
	t.Helper()
	tm := startProgramAt(t, e.opts, w, h)
	t.Cleanup(func() { _ = tm.Quit() })
	waitModel(t, tm, "group 1 loaded", func(m *root) bool {
		return len(m.contacts.rows) == 8 && !m.contacts.loading && m.groups.counts["1"] == 8 && m.contacts.optOutsKnown
	})
	return tm
}

// fitsWhole fails unless the frame is h lines of at most w cells and the
// dialog drawn on it (if any) is whole: its top and bottom borders both
// on the screen.
func fitsWhole(t *testing.T, frame string, w, h int) {
	t.Helper()
	lines := strings.Split(frame, "\n")
	if len(lines) != h {
		t.Errorf("the frame has %d lines, want %d:\n%s", len(lines), h, frame)
	}
	for i, l := range lines {
		if cw := cellWidth(l); cw > w {
			t.Errorf("line %d is %d cells wide, over %d: %q", i+1, cw, w, l)
		}
	}
	if strings.Contains(frame, "╔") != strings.Contains(frame, "╚") {
		t.Errorf("a dialog's border is not whole at %d×%d:\n%s", w, h, frame)
	}
	for _, l := range lines {
		if strings.Contains(l, "╔") != strings.Contains(l, "╗") || strings.Contains(l, "╚") != strings.Contains(l, "╝") {
			t.Errorf("a dialog is wider than the screen at %d×%d:\n%s", w, h, frame)
			break
		}
	}
}

// dialogTitle is the open dialog's or form's title ("" when none is open).
func dialogTitle(m *root) string {
	switch d := m.modal.(type) {
	case *confirm:
		return d.title
	case *form:
		return d.title
	}
	return ""
}

// mustQuiet reads quiet hours as quiet_hours holds them.
func mustQuiet(t *testing.T, s string) model.QuietHours {
	t.Helper()
	q, err := model.ParseQuietHours(s)
	if err != nil {
		t.Fatal(err)
	}
	return q
}
