package console

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// newBareRoot is a console whose client points at a closed loopback port: the
// routing tests never let a command run, so nothing is dialled.
func newBareRoot(t *testing.T) *root {
	t.Helper()
	return newBareRootWith(t, app.Profile{Sender: "3000505"})
}

// newBareRootWith is newBareRoot with the given profile.
func newBareRootWith(t *testing.T, prof app.Profile) *root {
	t.Helper()
	// Nothing listens on port 9: a request (the credit before a send) is
	// refused; a fake clock lets the client's retries give up at once.
	var mu sync.Mutex
	clock := time.Unix(0, 0)
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	sleep := func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		clock = clock.Add(d)
		mu.Unlock()
		return ctx.Err()
	}
	cl, err := client.New("http://127.0.0.1:9/api/v1", "sk_test_x", client.WithClock(now, sleep))
	if err != nil {
		t.Fatal(err)
	}
	m := newRoot(t.Context(), Options{Session: testSession(t, cl, prof), Now: fixedClock})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	return m
}

func (m *root) send(keys ...string) {
	for _, k := range keys {
		m.Update(press(k))
		if k == "ctrl+s" && m.screen == screenComposer && m.composer.sendAfterLookup {
			// The program would run the rows' look-up on the opt-out list
			// and deliver its answer (here: none on it), which checks the plan.
			m.Update(optOutsMsg{For: forComposer, Seq: m.composer.optOutSeq, List: model.NewOptOutList(nil)})
		}
		if k == "ctrl+s" && m.screen == screenComposer && strings.HasPrefix(m.composer.note, "checking the plan") {
			// The program would run the facts Cmd and deliver its message;
			// here it runs in line (no client, no state dir: nothing waits).
			m.Update(m.composer.prepare(m.composer.plan, m.composer.planSource(), false)())
		}
	}
}

func (m *root) quitting() bool { return m.c.ctx.Err() != nil }

func TestTypingQInFilterTypesQ(t *testing.T) {
	t.Parallel()
	m := newBareRoot(t)
	m.send("tab", "/", "q")
	if m.quitting() {
		t.Fatal("q in the filter field quit the console")
	}
	if got := m.contacts.filter.Value(); got != "q" {
		t.Fatalf("filter = %q, want q", got)
	}
	m.send("ctrl+c")
	if m.quitting() {
		t.Fatal("ctrl+c in a field quit instead of leaving the field")
	}
	if m.contacts.Editing() || m.contacts.filter.Value() != "q" {
		t.Fatalf("after ctrl+c: editing=%v filter=%q; want the field left, text kept", m.contacts.Editing(), m.contacts.filter.Value())
	}
	m.send("q")
	if !m.quitting() {
		t.Fatal("q outside any field did not quit")
	}
}

func TestTypingInFormAndCtrlCLeavesIt(t *testing.T) {
	t.Parallel()
	m := newBareRoot(t)
	m.send("n") // groups pane has focus at start: new group
	f, ok := m.modal.(*form)
	if !ok {
		t.Fatalf("n in the groups pane opened %T, want the new-group form", m.modal)
	}
	m.send("q", "?", "h", "c", "tab", "x")
	if got := f.values(); got[0] != "q?hc" || got[1] != "x" {
		t.Fatalf("form values %q: global keys were not typed into the fields", got)
	}
	if m.screen != screenMain || m.quitting() {
		t.Fatal("keys typed in a form acted as global keys")
	}
	m.send("ctrl+c")
	if m.modal != nil || m.quitting() {
		t.Fatalf("ctrl+c in a form: modal=%v quitting=%v; want the form closed, console running", m.modal, m.quitting())
	}
}

func TestFocusCycleAndHelp(t *testing.T) {
	t.Parallel()
	m := newBareRoot(t)
	if m.active() != pane(m.groups) {
		t.Fatal("the groups pane should have focus at start")
	}
	m.send("tab")
	if m.active() != pane(m.contacts) {
		t.Fatal("tab did not move focus to the contacts table")
	}
	m.send("shift+tab")
	if m.active() != pane(m.groups) {
		t.Fatal("shift+tab did not move focus back")
	}
	m.send("?")
	if m.screen != screenHelp || !strings.Contains(m.text(), "track group by id") {
		t.Fatal("? did not open the full key map")
	}
	m.send("esc")
	if m.screen != screenMain {
		t.Fatal("esc did not close help")
	}
}

func TestTooSmall(t *testing.T) {
	t.Parallel()
	m := newBareRoot(t)
	m.Update(tea.WindowSizeMsg{Width: 79, Height: 24})
	if v := m.text(); !strings.Contains(v, "at least 80×23; this one is 79×24") {
		t.Fatalf("79×24 view: %q", v)
	}
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	v := m.text()
	lines := strings.Split(v, "\n")
	if len(lines) != 24 {
		t.Fatalf("80×24 view has %d lines", len(lines))
	}
	for i, l := range lines {
		if w := len([]rune(l)); w > 80 {
			t.Fatalf("line %d is %d wide at 80 columns: %q", i, w, l)
		}
	}
}

func TestDeleteConfirmDefaultsToNo(t *testing.T) {
	t.Parallel()
	m := newBareRoot(t)
	yes := false
	m.c.showModal(newConfirm(m.c, "Delete?", "really", func() tea.Cmd { yes = true; return nil }))
	m.send("enter")
	if yes || m.modal != nil {
		t.Fatalf("enter on a fresh dialog: accepted=%v open=%v; want declined and closed", yes, m.modal != nil)
	}
	m.c.showModal(newConfirm(m.c, "Delete?", "really", func() tea.Cmd { yes = true; return nil }))
	m.send("tab", "enter")
	if !yes {
		t.Fatal("tab to Yes, enter did not accept")
	}
}

// TestKeysReadTogether: keys that reach the program in one read (a held j
// over a slow link, "/ab" typed faster than a frame) arrive as one message
// with several runes; each must act as its own press.
func TestKeysReadTogether(t *testing.T) {
	t.Parallel()
	groups := []model.Group{{ID: "1", Name: "a"}, {ID: "2", Name: "b"}, {ID: "3", Name: "c"}, {ID: "4", Name: "d"}}
	tests := []struct {
		name  string
		keys  []tea.Msg
		check func(m *root) string
	}{
		{"jj moves two rows", []tea.Msg{press("jj")}, func(m *root) string {
			if m.groups.cursor != 2 {
				return fmt.Sprintf("cursor %d, want 2", m.groups.cursor)
			}
			return ""
		}},
		{"jjjk moves two rows", []tea.Msg{press("jjjk")}, func(m *root) string {
			if m.groups.cursor != 2 {
				return fmt.Sprintf("cursor %d, want 2", m.groups.cursor)
			}
			return ""
		}},
		{"/ab opens the filter and types ab", []tea.Msg{press("tab"), press("/ab")}, func(m *root) string {
			if !m.contacts.Editing() || m.contacts.filter.Value() != "ab" {
				return fmt.Sprintf("editing %v, filter %q; want the filter open with ab", m.contacts.Editing(), m.contacts.filter.Value())
			}
			return ""
		}},
		{"esc then / read together (alt+/) clears, then opens the filter", []tea.Msg{press("tab"), press("/"), press("x"), press("ctrl+c"), altKey('/')}, func(m *root) string {
			if !m.contacts.Editing() || m.contacts.filter.Value() != "" {
				return fmt.Sprintf("editing %v, filter %q; want esc to clear x, then / to open the filter", m.contacts.Editing(), m.contacts.filter.Value())
			}
			return ""
		}},
		// bubbletea v2 reads ESC j j as alt+j, then j.
		{"esc then jj read together: esc, then two rows down", []tea.Msg{press("j"), altKey('j'), press("j")}, func(m *root) string {
			if m.groups.cursor != 3 {
				return fmt.Sprintf("cursor %d, want 3", m.groups.cursor)
			}
			return ""
		}},
		{"alt+b in a field stays alt+b", []tea.Msg{press("tab"), press("/"), press("ab"), altKey('b'), press("x")}, func(m *root) string {
			if !m.contacts.Editing() || m.contacts.filter.Value() != "xab" {
				return fmt.Sprintf("editing %v, filter %q; want alt+b to move back a word, then x typed before ab", m.contacts.Editing(), m.contacts.filter.Value())
			}
			return ""
		}},
		{"a paste stays whole in a field", []tea.Msg{press("tab"), press("/"), tea.PasteMsg{Content: "jq"}}, func(m *root) string {
			if m.quitting() || m.contacts.filter.Value() != "jq" {
				return fmt.Sprintf("quitting %v, filter %q; want jq typed", m.quitting(), m.contacts.filter.Value())
			}
			return ""
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newBareRoot(t)
			m.Update(groupsLoadedMsg{Groups: groups})
			for _, k := range tt.keys {
				m.Update(k)
			}
			if msg := tt.check(m); msg != "" {
				t.Fatal(msg)
			}
		})
	}
}

// TestFormErrorWraps: a form's error is wrapped, not cut: the end of it says
// what to do (an Excel workbook given to import: save it as CSV).
func TestFormErrorWraps(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "contacts.csv")
	if err := os.WriteFile(path, []byte("PK\x03\x04 a workbook"), 0o600); err != nil {
		t.Fatal(err)
	}
	m := newBareRoot(t)
	m.Update(groupsLoadedMsg{Groups: []model.Group{{ID: "1", Name: "a"}}})
	m.Update(groupSelectedMsg{Group: model.Group{ID: "1", Name: "a"}})
	m.send("tab", "i")
	for _, r := range path {
		m.Update(typed(string(r)))
	}
	f, ok := m.modal.(*form)
	if !ok {
		t.Fatal("no import form")
	}
	m.Update(f.Update(press("enter"))()) // the file is read by the submit's Cmd, its answer delivered here
	var inside []string                  // the dialog's text, line by line, without its frame
	for _, l := range strings.Split(m.text(), "\n") {
		if i, j := strings.Index(l, "║"), strings.LastIndex(l, "║"); i >= 0 && j > i {
			inside = append(inside, strings.TrimSpace(l[i+len("║"):j]))
		}
	}
	view := strings.Join(strings.Fields(strings.Join(inside, " ")), " ")
	for _, want := range []string{"Excel", "use that file"} {
		if !strings.Contains(view, want) {
			t.Errorf("the form does not show %q:\n%s", want, m.text())
		}
	}
}
