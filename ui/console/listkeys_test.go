package console

import (
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// TestListKeysDoWhatHelpSays: g/G (home/end) in the history list and a
// send's detail, and R on the history list, which opens the send and asks
// as R in its detail does. They did nothing.
func TestListKeysDoWhatHelpSays(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	writeInterruptedSend(t, e.opts.Session.Paths, "3000505")
	tm := e.startOnGroup1(t)
	openPastSend(t, tm)
	tm.Send(press("G"))
	waitModel(t, tm, "last recipient", func(m *root) bool {
		d := m.history.detail
		return d != nil && d.state != nil && d.cursor == len(d.state.Items)-1 && d.cursor > 0
	})
	tm.Send(press("g"))
	waitModel(t, tm, "first recipient", func(m *root) bool { return m.history.detail.cursor == 0 })
	tm.Send(press("esc")) // back to the list
	waitModel(t, tm, "the list", func(m *root) bool { return m.history.detail == nil && len(m.history.entries) == 1 })
	tm.Send(press("R"))
	waitModel(t, tm, "R on the list asks", func(m *root) bool { return modalTitle(m) == "Unknown outcomes" })
	tm.Send(press("esc"))
}
