package console

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// TestQuitAsksAboutAnUnsentDraft: esc then q, or ctrl+c then q, with a
// message typed and not sent asks first, and the default (enter) stays with
// the draft; y quits. A draft that was sent does not ask (issue 27 item 9:
// quitting lost the message typed without a word).
func TestQuitAsksAboutAnUnsentDraft(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	tm := e.startOnGroup1(t)
	tm.Send(press("c"))
	waitModel(t, tm, "composer", func(m *root) bool { return m.screen == screenComposer && m.composer.Editing() })
	typeText(tm, "Hello {name|friend}")
	tm.Send(press("esc")) // leave the editor
	tm.Send(press("q"))
	waitModel(t, tm, "asked", func(m *root) bool { return modalTitle(m) == "Quit and lose the draft?" })
	tm.Send(press("enter")) // the default: No
	waitModel(t, tm, "stayed, the draft kept", func(m *root) bool {
		return m.modal == nil && m.composer.editor.Value() == "Hello {name|friend}"
	})
	tm.Send(press("ctrl+c"))
	tm.Send(press("q"))
	waitModel(t, tm, "asked again", func(m *root) bool { return modalTitle(m) == "Quit and lose the draft?" })
	tm.Send(press("y"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(waitLimit))
}

// TestQuitAfterTheDraftWent: once the draft was sent, q quits at once.
func TestQuitAfterTheDraftWent(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	tm := e.startOnGroup1(t)
	writeTemplate(t, tm, "Hello {name|friend}", 8)
	tm.Send(press("ctrl+s"))
	waitFor(t, tm, "Send these messages?")
	tm.Send(press("y"))
	waitModel(t, tm, "sent", func(m *root) bool { return m.results.summary != nil && !m.results.sending && !m.results.polling })
	tm.Send(press("q"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(waitLimit))
}

// TestQuitAfterTheDraftWasScheduled: a draft scheduled with t is the
// scheduled send's: quitting does not ask to keep it (it asked "Quit and
// lose the draft?" of a message already scheduled).
func TestQuitAfterTheDraftWasScheduled(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	tm := e.startOnGroup1(t)
	writeTemplate(t, tm, "Hello {name|friend}", 8)
	tm.Send(press("esc"))
	tm.Send(press("ctrl+s"))
	waitFor(t, tm, "Send these messages?")
	tm.Send(press("t"))
	waitFor(t, tm, "Send at a time")
	typeText(tm, "+2h")
	tm.Send(press("enter"))
	waitFor(t, tm, "Schedule these messages for")
	tm.Send(press("y"))
	waitModel(t, tm, "scheduled", func(m *root) bool {
		return strings.HasPrefix(m.composer.note, "scheduled for ") && !m.composer.Editing()
	})
	tm.Send(press("q")) // quits at once: a question would keep the program running
	tm.WaitFinished(t, teatest.WithFinalTimeout(waitLimit))
}
