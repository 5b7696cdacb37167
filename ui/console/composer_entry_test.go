package console

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// TestEveryWayIntoTheComposerTypes: whichever way the composer is entered,
// its message editor has the keys: "Dropped link {name}" is typed, not
// read as commands (o opened the pairs CSV picker on a draft opened again
// and after a send: issue 35 item 6). After a send, c starts a new message:
// the text sent is not offered again.
func TestEveryWayIntoTheComposerTypes(t *testing.T) {
	t.Parallel()
	const text = "Dropped link {name}"
	for _, tc := range []struct {
		name string
		way  func(t *testing.T, e *env, tm *teatest.TestModel)
		want string // the editor's text after typing
	}{
		{"a new message", func(t *testing.T, e *env, tm *teatest.TestModel) {
			tm.Send(press("c"))
		}, text},
		{"a draft kept, opened again", func(t *testing.T, e *env, tm *teatest.TestModel) {
			writeTemplate(t, tm, "Hi ", 8)
			tm.Send(press("esc")) // leave the editor
			tm.Send(press("esc")) // leave the composer
			waitModel(t, tm, "main", func(m *root) bool { return m.screen == screenMain })
			tm.Send(press("c"))
		}, "Hi " + text},
		{"back from help, in the editor", func(t *testing.T, e *env, tm *teatest.TestModel) {
			// Back from a look the keys are where they were (issue 40
			// item 7: TestBackFromALookKeepsTheFocus); ctrl+c leaves the
			// editor for the row keys, ? is help there, c writes again.
			writeTemplate(t, tm, "Hi ", 8)
			tm.Send(press("ctrl+c")) // the row keys
			tm.Send(press("?"))
			waitModel(t, tm, "help", func(m *root) bool { return m.screen == screenHelp })
			tm.Send(press("?"))
			waitModel(t, tm, "back on the row keys", func(m *root) bool { return m.screen == screenComposer && !m.composer.Editing() })
			tm.Send(press("c"))
		}, "Hi " + text},
		{"a draft kept, over another group: No", func(t *testing.T, e *env, tm *teatest.TestModel) {
			writeTemplate(t, tm, "Hi ", 8)
			tm.Send(press("esc"))
			tm.Send(press("esc"))
			waitModel(t, tm, "main", func(m *root) bool { return m.screen == screenMain })
			tm.Send(press("down"))
			tm.Send(press("c"))
			waitModel(t, tm, "asked", func(m *root) bool { return modalTitle(m) == "Replace the draft?" })
			tm.Send(press("n"))
		}, "Hi " + text},
		{"after a send", func(t *testing.T, e *env, tm *teatest.TestModel) {
			sendTemplate(t, e, tm, "Hello {name|friend}")
			tm.Send(press("esc"))
			waitModel(t, tm, "main", func(m *root) bool { return m.screen == screenMain })
			tm.Send(press("c"))
		}, text},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, sandbox.Options{})
			tm := e.startOnGroup1(t)
			tc.way(t, e, tm)
			waitModel(t, tm, "the composer, its editor taking the keys", func(m *root) bool {
				return m.modal == nil && m.screen == screenComposer && m.composer.Editing()
			})
			typeText(tm, text)
			waitModel(t, tm, "the text typed", func(m *root) bool {
				return m.composer.editor.Value() == tc.want
			})
			waitModel(t, tm, "no command ran", func(m *root) bool {
				return m.modal == nil && m.screen == screenComposer && m.composer.Editing()
			})
		})
	}
}

// TestComposeAfterASend: after a send, c opens a new message over the
// group, its editor focused; ctrl+s plans what was typed, not the text
// sent.
func TestComposeAfterASend(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	tm := e.startOnGroup1(t)
	sendTemplate(t, e, tm, "Hello {name|friend}")
	tm.Send(press("esc"))
	waitModel(t, tm, "main", func(m *root) bool { return m.screen == screenMain })
	tm.Send(press("c"))
	waitModel(t, tm, "a new message", func(m *root) bool {
		return m.screen == screenComposer && m.composer.Editing() && m.composer.editor.Value() == ""
	})
	typeText(tm, "Dropped link {name}")
	waitModel(t, tm, "planned", func(m *root) bool {
		return m.composer.plan != nil && len(m.composer.plan.Items) == 8 && strings.HasPrefix(m.composer.plan.Items[0].Message, "Dropped link ")
	})
	requireGolden(t, maskedView(t, tm))
	tm.Send(press("ctrl+s"))
	waitModel(t, tm, "the confirmation of the new text", func(m *root) bool {
		return m.modal != nil && strings.Contains(m.modal.View(), "Dropped link") && !strings.Contains(m.modal.View(), "Hello")
	})
	tm.Send(press("n"))
}

// sendTemplate writes a template over the open group (8 contacts), sends
// it and waits until the send and its delivery watch are over.
func sendTemplate(t *testing.T, e *env, tm *teatest.TestModel, text string) {
	t.Helper()
	writeTemplate(t, tm, text, 8)
	tm.Send(press("ctrl+s"))
	waitFor(t, tm, "Send these messages?")
	tm.Send(press("y"))
	waitModel(t, tm, "sent", func(m *root) bool {
		return m.screen == screenResults && m.results.summary != nil && !m.results.sending && !m.results.polling
	})
	if n := len(e.srv.Sent()); n != 8 {
		t.Fatalf("sent %d, want 8", n)
	}
}

// TestComposerCountsAsTheConfirmation: a contact on the opt-out list is
// marked in the composer's rows and left out of its totals, as the send's
// confirmation leaves it out (the composer said "8 recipients" where the
// confirmation said 7: issue 35 item 7); opting one more out from the
// contact table is counted when the composer opens again.
func TestComposerCountsAsTheConfirmation(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	sess := e.opts.Session
	first := "09121234567" // group 1's first contact
	if _, err := sess.AddOptOuts(t.Context(), []string{first}, "", ""); err != nil {
		t.Fatal(err)
	}
	tm := e.startOnGroup1(t)
	writeTemplate(t, tm, "Hello {name|friend}", 8)
	tm.Send(press("esc"))
	waitFor(t, tm, "Totals: 7 recipients · ", " parts · 1 opted out · 0 with problems", "(opted out: not sent)")
	requireGolden(t, maskedView(t, tm))
	tm.Send(press("ctrl+s"))
	waitModel(t, tm, "the confirmation", func(m *root) bool {
		return m.modal != nil && strings.Contains(m.modal.View(), "7 recipients · ") && strings.Contains(m.modal.View(), "Recipients:  7")
	})
	tm.Send(press("n"))
	waitModel(t, tm, "closed", func(m *root) bool { return m.modal == nil })

	// One more opted out from the contact table: the composer counts it.
	tm.Send(press("esc"))
	waitModel(t, tm, "main", func(m *root) bool { return m.screen == screenMain })
	tm.Send(press("tab"))
	tm.Send(press("down")) // the second contact
	tm.Send(press("o"))
	waitFor(t, tm, "Opt out?")
	tm.Send(press("y"))
	waitModel(t, tm, "put on", func(m *root) bool { return len(m.contacts.optOuts) == 2 })
	tm.Send(press("c"))
	waitFor(t, tm, "Totals: 6 recipients · ", " · 2 opted out")
	tm.Send(press("ctrl+s"))
	waitModel(t, tm, "the confirmation", func(m *root) bool {
		return m.modal != nil && strings.Contains(m.modal.View(), "Recipients:  6")
	})
	tm.Send(press("n"))
}
