package console

import (
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// TestRepeatNeedsItsCount: a repeat's confirmation is not the y that
// confirms every send: y and enter leave it open on No, saying what to
// type; the count typed (a slip mended with backspace), then enter, sends
// the pairs again (issue 27 item 2).
func TestRepeatNeedsItsCount(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	e.opts.Session.Profile.RepeatWindow = 24 * time.Hour
	e.opts.Now = time.Now // repeats are measured against the journals' real times
	tm := e.startOnGroup1(t)
	writeTemplate(t, tm, "Hi {name|friend}", 8)
	tm.Send(press("ctrl+s"))
	waitFor(t, tm, "Send these messages?")
	tm.Send(press("y"))
	waitModel(t, tm, "sent", func(m *root) bool { return m.results.summary != nil && !m.results.sending })
	tm.Send(press("esc"))
	writeTemplate(t, tm, "Hi {name|friend}", 8) // the draft went: the same text, written again
	tm.Send(press("ctrl+s"))
	waitFor(t, tm, "8 of them repeat an earlier send")
	tm.Send(press("y"))
	tm.Send(press("enter"))
	tm.Send(press("tab")) // no moving to Yes either
	tm.Send(press("enter"))
	waitModel(t, tm, "still asking, on No", func(m *root) bool {
		d, ok := m.modal.(*confirm)
		return ok && d.nudge && !d.yes && strings.Contains(m.text(), "y alone does not send them again: type 8, then enter")
	})
	if n := len(e.srv.Sent()); n != 8 {
		t.Fatalf("y or enter sent the repeat: %d messages", n)
	}
	typeText(tm, "9")
	tm.Send(press("backspace"))
	typeText(tm, "8")
	tm.Send(press("enter"))
	waitModel(t, tm, "sent again", func(m *root) bool {
		return m.screen == screenResults && m.results.summary != nil && !m.results.sending && len(e.srv.Sent()) == 16
	})
	finalView(t, tm)
}
