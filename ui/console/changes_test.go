package console

import (
	"errors"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/ui/app"
)

// TestOthersChangesKeepTheRefusalShown: the history read again for what
// another run wrote leaves the refusal on the status bar, which the
// operator may not have read yet. CI saw it go: a resume refused with
// "nothing left to send" because the CLI's resume settled the send, whose
// writes then refreshed the history and cleared the refusal.
func TestOthersChangesKeepTheRefusalShown(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	tm := e.startOnGroup1(t)
	tm.Send(press("h"))
	waitModel(t, tm, "history listed", func(m *root) bool {
		return m.screen == screenHistory && !m.history.loading && m.history.top
	})
	tm.Send(statusMsg{Err: errors.New("nothing left to send: every recipient was accepted")})
	waitModel(t, tm, "refusal shown", func(m *root) bool { return strings.Contains(m.lastErr, "nothing left to send") })

	writeInterruptedSend(t, e.opts.Session.Paths, e.srv.Senders()[0]) // another run's writes
	tm.Send(changesMsg{changes: app.Changes{Sends: true}})
	var shown string // the status bar's refusal once the refresh is in
	waitModel(t, tm, "the other run's send listed", func(m *root) bool {
		shown = m.lastErr
		return len(m.history.entries) == 1
	})
	if !strings.Contains(shown, "nothing left to send") {
		t.Fatalf("after the refresh for another run's writes the refusal shown is %q, want it kept", shown)
	}
}
