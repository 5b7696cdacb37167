package console

import (
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// TestUnfinishedSendSaidAtStart: a send that did not end (here: one chunk
// unknown, one never sent) is named on the status bar at start, and in the
// message log, with what to do; a finished one is not.
func TestUnfinishedSendSaidAtStart(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	writeInterruptedSend(t, e.opts.Session.Paths, "3000505")
	tm := e.start(t)
	var note string
	waitModel(t, tm, "the unfinished send named", func(m *root) bool {
		note = m.note
		return strings.Contains(note, "send "+pastSendID+" interrupted:")
	})
	for _, want := range []string{"1 not sent", "1 unknown", "h, enter, R to continue"} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q lacks %q", note, want)
		}
	}
	waitModel(t, tm, "in the message log", func(m *root) bool {
		for _, l := range m.log {
			if strings.Contains(l.text, pastSendID) {
				return true
			}
		}
		return false
	})
}
