package console

import (
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
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

// TestScheduledSendIsNotUnfinished: a scheduled send waiting for its time
// (and one cancelled before it) is not named at start as unfinished with
// "R to continue", which refuses both; the interrupted send still is.
func TestScheduledSendIsNotUnfinished(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	s := e.opts.Session
	writeInterruptedSend(t, s.Paths, "3000505")
	var ids []string
	for _, to := range []string{"09121234567", "09121234568"} {
		p, err := s.PrepareSend(t.Context(), app.SendRequest{Plan: s.Plan("3000505", []model.PairRow{{Line: 2, Recipient: to, Message: "hi"}}),
			Source: app.FileSource("pairs.csv"), At: fixedNow.Add(time.Hour)})
		if err != nil || p.Refusal != nil {
			t.Fatal(err, p.Refusal)
		}
		sc, err := p.Schedule(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, sc.ID)
	}
	if err := s.CancelScheduled(t.Context(), ids[1]); err != nil {
		t.Fatal(err)
	}
	tm := e.start(t)
	var note string
	waitModel(t, tm, "an unfinished send named", func(m *root) bool {
		note = m.note
		return strings.Contains(note, "R to continue")
	})
	if !strings.Contains(note, "send "+pastSendID+" interrupted:") || strings.Contains(note, "more unfinished") {
		t.Errorf("note %q: want the interrupted send alone, not the scheduled %s nor the cancelled %s", note, ids[0], ids[1])
	}
}
