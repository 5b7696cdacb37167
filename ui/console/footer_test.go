package console

import (
	"fmt"
	"strings"
	"testing"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/smsdesk/smsdesk/ui/app"
)

// footerLine is the last line of the frame: the one-line key help.
func footerLine(m *root) string {
	v := m.text()
	return strings.TrimRight(v[strings.LastIndex(v, "\n")+1:], " ")
}

// While a text field has focus, the footer lists only the bindings that work
// in it (from the KeyMap), never the global keys that would type there; once
// the field is left the pane's own keys are back.
func TestFooterInTextFieldListsOnlyItsKeys(t *testing.T) {
	t.Parallel()
	k := DefaultKeyMap()
	cases := []struct {
		name    string
		profile app.Profile
		keys    []string // from the start screen into the field
		field   func(m *root) bool
		want    []key.Binding
		leave   string
		after   string // the footer's start once the field is left
	}{
		{"composer editor", app.Profile{Sender: "3000505"}, []string{"c"},
			func(m *root) bool { return m.composer.editor.Focused() }, []key.Binding{k.Send, k.LeaveField}, "esc", "ctrl+s send • m message template"},
		{"composer sender field", app.Profile{}, []string{"c", "esc", "s"},
			func(m *root) bool { return m.composer.senderPick.input.Focused() }, []key.Binding{k.UseSender, k.LeaveField, k.Send}, "esc", "ctrl+s send • m message template"},
		{"contacts filter", app.Profile{Sender: "3000505"}, []string{"tab", "/"},
			func(m *root) bool { return m.contacts.filter.Focused() }, []key.Binding{k.Submit, k.Back}, "ctrl+c", "↑/k up • ↓/j down • / filter"},
		{"new group form", app.Profile{Sender: "3000505"}, []string{"n"},
			func(m *root) bool { return m.modal != nil }, []key.Binding{k.Submit, k.NextField, k.PrevField, k.CancelForm}, "esc", "↑/k up • ↓/j down • enter open"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := newBareRootWith(t, tc.profile)
			m.send(tc.keys...)
			if !tc.field(m) {
				t.Fatalf("after %q the field has no focus; screen:\n%s", tc.keys, m.text())
			}
			h := help.New()
			h.SetWidth(m.c.width)
			if got, want := footerLine(m), drawIn(h.ShortHelpView(tc.want), colorprofile.NoTTY); got != want {
				t.Fatalf("footer in the field:\n got %q\nwant %q", got, want)
			}
			m.send(tc.leave)
			if tc.field(m) {
				t.Fatalf("%s did not leave the field", tc.leave)
			}
			if got := footerLine(m); !strings.HasPrefix(got, tc.after) {
				t.Fatalf("footer after leaving the field: %q, want it to start %q", got, tc.after)
			}
		})
	}
}

// The setup screen's fields: no "? help" or "q quit" while typing the key;
// esc leaves the field like ctrl+c, and then q quits.
func TestFooterOnSetupScreen(t *testing.T) {
	t.Parallel()
	m := newRoot(t.Context(), Options{Session: testSession(t, nil, app.Profile{}), Now: fixedClock})
	m.Init()
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	if m.screen != screenSetup || !m.setup.Editing() {
		t.Fatalf("screen %v, editing %v: want the setup screen with a field focused", m.screen, m.setup.Editing())
	}
	k := m.c.keys
	h := help.New()
	h.SetWidth(100)
	if got, want := footerLine(m), drawIn(h.ShortHelpView([]key.Binding{k.Submit, k.NextField, k.LeaveField}), colorprofile.NoTTY); got != want {
		t.Fatalf("setup footer:\n got %q\nwant %q", got, want)
	}
	m.send("q")
	if m.quitting() || !strings.Contains(m.setup.fields[m.setup.focus].Value(), "q") {
		t.Fatal("q in a setup field did not type q")
	}
	m.send("esc")
	if m.setup.Editing() {
		t.Fatal("esc did not leave the setup field")
	}
	if got := footerLine(m); !strings.Contains(got, "q quit") {
		t.Fatalf("footer outside the field lacks q quit: %q", got)
	}
}

// At 80 and 100 columns the footer keeps the pane's first keys, c compose,
// q quit (ctrl+s send in the composer) and always ends with "? help".
func TestFooterAlwaysEndsWithHelp(t *testing.T) {
	t.Parallel()
	for _, w := range []int{80, 100, 120} {
		m := newBareRoot(t)
		m.Update(tea.WindowSizeMsg{Width: w, Height: 24})
		for _, screen := range []struct {
			keys []string
			must []string
		}{
			{nil, []string{"c compose", "q quit"}},
			{[]string{"tab"}, []string{"c compose", "q quit"}},
			{[]string{"c", "esc"}, []string{"ctrl+s send"}},
			{[]string{"esc", "h"}, []string{"esc back"}}, // q goes back here too: no "q quit" (issue 40 item 8)
		} {
			m.send(screen.keys...)
			f := strings.TrimRight(footerLine(m), " ")
			if !strings.HasSuffix(f, "? help") {
				t.Errorf("%d cols after %v: footer %q does not end with ? help", w, screen.keys, f)
			}
			for _, k := range screen.must {
				if !strings.Contains(f, k) {
					t.Errorf("%d cols after %v: footer %q lacks %q", w, screen.keys, f, k)
				}
			}
		}
	}
}

// Goldens of the main screen at 80×23 (an 80×24 terminal under tmux's
// status line) and 100×30: the footer ends with "? help" in both.
func TestMainScreenGoldenSizes(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 23}, {100, 30}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			v := mainScreenRoot(t, size[0], size[1]).text()
			lines := strings.Split(v, "\n")
			if f := strings.TrimRight(lines[len(lines)-1], " "); !strings.HasSuffix(f, "? help") {
				t.Errorf("footer %q", f)
			}
			requireGolden(t, v)
		})
	}
}
