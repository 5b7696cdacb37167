package console

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// resultsAfterASend is a bare console on the results screen of a send of
// three over group 1: still watching delivery, or (finished) over.
func resultsAfterASend(t *testing.T, w, h int, finished bool) *root {
	t.Helper()
	m := newBareRoot(t)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	g := model.Group{ID: "1", Name: "Support team"}
	m.Update(groupsLoadedMsg{Groups: []model.Group{g}, Counts: map[model.ID]int{"1": 3}})
	m.contacts.group, m.contacts.loadID = g, 1
	var cs []model.Contact
	for i := range 3 {
		cs = append(cs, model.Contact{ID: model.ID(fmt.Sprint(10 + i)), Name: fmt.Sprint("n", i), Mobile: fmt.Sprintf("0912000000%d", i)})
	}
	m.Update(contactsLoadedMsg{GroupID: "1", LoadID: 1, Contacts: cs})
	results := make([]model.SentItem, 3)
	for i := range results {
		results[i] = model.SentItem{JournalItem: model.JournalItem{Index: i, Recipient: cs[i].Mobile, Message: "hi", Parts: 1}, State: model.StateQueued}
	}
	m.results.begin("20250301-100000-abcdef", "3000505", 3, 3, results, "group 1")
	m.switchTo(screenResults)
	for i := range results {
		r := results[i]
		r.State, r.MessageID = model.StateAccepted, fmt.Sprint("M-", i)
		m.Update(sendEventMsg{JobID: m.results.jobID, Event: app.Event{Kind: app.EventItem, Done: i + 1, Result: r}})
	}
	m.Update(sendEventMsg{JobID: m.results.jobID, Event: app.Event{Kind: app.EventSent, Done: 3, Summary: &app.Summary{JobID: m.results.jobID}}})
	if finished {
		m.Update(sendDoneMsg{JobID: m.results.jobID})
	}
	if m.screen != screenResults || m.results.sending || m.results.polling != !finished {
		t.Fatalf("not on the results (finished %v): screen %v, sending %v, polling %v", finished, m.screen, m.results.sending, m.results.polling)
	}
	return m
}

// TestComposeAndHistoryFromTheResults: c and h, listed under "Everywhere"
// in help, did nothing on a send's results (issue 40 item 6). Now, while
// delivery is watched and once it is over, h shows the history and c the
// composer, its editor taking the keys; esc comes back to the results.
func TestComposeAndHistoryFromTheResults(t *testing.T) {
	t.Parallel()
	for _, finished := range []bool{false, true} {
		t.Run(fmt.Sprint("finished=", finished), func(t *testing.T) {
			t.Parallel()
			m := resultsAfterASend(t, 100, 30, finished)
			m.send("h")
			if m.screen != screenHistory {
				t.Fatalf("h on the results: screen %v, want the history\n%s", m.screen, m.text())
			}
			m.send("esc")
			if m.screen != screenResults {
				t.Fatalf("esc on the history, entered from the results: screen %v", m.screen)
			}
			m.send("c")
			if m.screen != screenComposer || !m.composer.Editing() {
				t.Fatalf("c on the results: screen %v, editing %v\n%s", m.screen, m.composer.Editing(), m.text())
			}
			m.send("esc", "esc") // the editor, then the composer
			if m.screen != screenResults {
				t.Fatalf("esc on the composer, entered from the results: screen %v", m.screen)
			}
			m.send("esc")
			if m.screen != screenMain {
				t.Fatalf("esc on the results: screen %v", m.screen)
			}
		})
	}
}

// TestTypingOnTheResults: "hello" typed on the results screen (as into a
// text field) opened "Export results" on its e, and "llo" went into the
// file name ("…-results.csvllo"). Now h shows the history and nothing
// else happens; and e then "llo" leaves the name filled in as it was,
// saying why, while e then enter still exports under it. Goldens at
// 80×24 (23 rows under tmux's status line) and 100×30.
func TestTypingOnTheResults(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 23}, {100, 30}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			m := resultsAfterASend(t, size[0], size[1], true)
			m.send("h", "e", "l", "l", "o")
			if m.screen != screenHistory || m.modal != nil {
				t.Fatalf("after hello: screen %v, modal %v", m.screen, m.modal != nil)
			}
			m.send("esc")
			m.send("e", "l", "l", "o")
			f, ok := m.modal.(*form)
			if !ok {
				t.Fatalf("e on the results opened no form:\n%s", m.text())
			}
			name := "send-20250301-100000-abcdef-results.csv"
			if got := f.fields[0].input.Value(); !strings.HasSuffix(got, name) {
				t.Fatalf("the file name after e then llo: %q, want it to end %q", got, name)
			}
			requireGolden(t, m.text())
			m.send("backspace", "backspace", "backspace", "t", "x", "t")
			if got := f.fields[0].input.Value(); !strings.HasSuffix(got, "-results.txt") {
				t.Fatalf("edited after backspace: %q", got)
			}
		})
	}
}

// TestFootersSayWhatKeysDo: help's footer said "?/q close help • q quit"
// and the history's and the viewer's "q quit", where q goes back; the
// repeat question's footer said "y yes" where y alone does not answer
// it; a one-field form's said "tab next field" (issue 40 item 8).
func TestFootersSayWhatKeysDo(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		keys    []string
		want    []string
		notWant []string
	}{
		{"help", []string{"?"}, []string{"esc/?/q close help"}, []string{"q quit", "? help"}},
		{"history", []string{"h"}, []string{"esc back", "? help"}, []string{"q quit"}},
		{"message log", []string{"L"}, []string{"esc back", "? help"}, []string{"q quit"}},
		{"results", nil, []string{"esc back", "q quit", "? help"}, nil},
		{"one-field form", []string{"e"}, []string{"enter submit", "esc cancel form"}, []string{"tab next field"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := resultsAfterASend(t, 100, 30, true)
			m.send(tc.keys...)
			f := footerLine(m)
			for _, w := range tc.want {
				if !strings.Contains(f, w) {
					t.Errorf("footer %q lacks %q", f, w)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(f, w) {
					t.Errorf("footer %q has %q", f, w)
				}
			}
			if tc.name == "one-field form" && strings.Contains(m.text(), "tab next field") {
				t.Errorf("the form's own line offers tab:\n%s", m.text())
			}
		})
	}
	t.Run("the repeat question", func(t *testing.T) {
		m := resultsAfterASend(t, 100, 30, true)
		d := newConfirm(m.c, "Send these again?", "8 pairs went 10 minutes ago.", func() tea.Cmd { return nil })
		d.need = "8"
		m.showModal(d)
		f := footerLine(m)
		if strings.Contains(f, "y yes") || !strings.Contains(f, "0-9 type the count") || !strings.Contains(f, "enter yes, once typed") {
			t.Fatalf("the repeat question's footer: %q", f)
		}
		m.send("y")
		if m.modal == nil {
			t.Fatal("y answered a question that needs the count typed")
		}
	})
}

// TestBackFromALookKeepsTheFocus: on the composer's row keys, L then esc
// put the keys back in the message editor, and "?" typed a "?" into the
// template (issue 40 item 7); the same back from help. Now the keys are
// where they were: ? shows the help. Entered with c, the editor has them.
func TestBackFromALookKeepsTheFocus(t *testing.T) {
	t.Parallel()
	for _, look := range [][]string{{"L", "esc"}, {"?", "?"}, {"?", "esc"}, {"L", "q"}} {
		t.Run(strings.Join(look, " "), func(t *testing.T) {
			t.Parallel()
			m := resultsAfterASend(t, 100, 30, true)
			m.send("esc", "c")
			typeInto(m, "Hi {name}")
			m.send("esc") // the row keys
			m.send(look...)
			if m.screen != screenComposer || m.composer.Editing() {
				t.Fatalf("after %v: screen %v, editing %v", look, m.screen, m.composer.Editing())
			}
			m.send("?")
			if m.screen != screenHelp || m.composer.editor.Value() != "Hi {name}" {
				t.Fatalf("? after %v: screen %v, template %q", look, m.screen, m.composer.editor.Value())
			}
			m.send("esc", "c") // c: to write
			if !m.composer.Editing() {
				t.Fatal("c on the composer did not give the editor the keys")
			}
		})
	}
}

// typeInto types s, a character at a time, into what has the keys.
func typeInto(m *root, s string) {
	for _, r := range s {
		m.Update(typed(string(r)))
	}
}
