package console

import (
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
	"github.com/smsdesk/smsdesk/ui/app/apptest"
)

// TestResumeUnknownGoesAgainAsItWent: R on a send whose second chunk's
// answer was lost, yes to the unknown ones: the final question says they go
// again as they first went (same chunk and Idempotency-Key), and a service
// that honours the key (the sandbox's Idempotency) sends nothing twice
// (issue 27 item 3).
func TestResumeUnknownGoesAgainAsItWent(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{Idempotency: true, DropEvery: 2})
	sess := e.opts.Session
	rows := []model.PairRow{
		{Line: 1, Recipient: "09121110001", Message: "one"}, {Line: 2, Recipient: "09121110002", Message: "two"},
		{Line: 3, Recipient: "09121110003", Message: "three"}, {Line: 4, Recipient: "09121110004", Message: "four"},
	}
	x := apptest.Start(t, t.Context(), sess, sess.Plan(sess.Profile.Sender, rows), app.FileSource("pairs.csv"), app.SendOptions{ChunkSize: 2})
	if out, err := x.Finish(); err != nil || out.Summary.Counts.Unknown != 2 {
		t.Fatalf("the first send: %v, %+v; want 2 unknown", err, out.Summary.Counts)
	}
	tm := e.startOnGroup1(t)
	openPastSend(t, tm)
	tm.Send(press("R"))
	waitModel(t, tm, "unknowns asked", func(m *root) bool { return modalTitle(m) == "Unknown outcomes" })
	tm.Send(press("y"))
	waitModel(t, tm, "the final question says how they go", func(m *root) bool {
		d, ok := m.modal.(*confirm)
		return ok && d.title == "Resume send?" && strings.Contains(d.body, "2 go again as they first went (same chunk and\nIdempotency-Key)")
	})
	tm.Send(press("y"))
	waitModel(t, tm, "resumed", func(m *root) bool {
		return m.screen == screenResults && m.results.summary != nil && !m.results.sending && m.results.summary.Counts.Accepted == 4
	})
	noDuplicates(t, e, 4)
	finalView(t, tm)
}
