package console

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// TestScheduleFromTheConsoleThenCancel: the send's confirmation offers t,
// a time; the time is read in the profile's zone, the plan checked again
// for it and confirmed (default No) before it is scheduled, and nothing is
// sent. The history lists it first with its countdown; x asks before
// cancelling it, and the cancel is journaled.
func TestScheduleFromTheConsoleThenCancel(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	tm := e.startOnGroup1(t)
	tm.Send(press("c"))
	waitModel(t, tm, "composer with the editor focused", func(m *root) bool { return m.screen == screenComposer && m.composer.Editing() })
	typeText(tm, "Hi {name}, see you at eight")
	waitModel(t, tm, "8 planned rows", func(m *root) bool {
		return m.composer.plan != nil && len(m.composer.plan.Items) == 8 && m.composer.plan.OK()
	})
	tm.Send(press("esc"))
	tm.Send(press("ctrl+s"))
	waitFor(t, tm, "Send these messages?", "t at a time…")
	tm.Send(press("t"))
	waitFor(t, tm, "Send at a time", "in Asia/Tehran.")
	typeText(tm, "soon")
	tm.Send(press("enter"))
	waitFor(t, tm, `"soon" is not a time`)
	for range 4 {
		tm.Send(press("backspace"))
	}
	typeText(tm, "+2h")
	tm.Send(press("enter"))
	waitFor(t, tm, "Schedule these messages for 2025-03-01 15:30 Asia/Tehran (in 2h)?", "it runs while smsdesk serve or smsdesk scheduler runs")
	tm.Send(press("enter")) // the default is No
	waitModel(t, tm, "the dialog closed", func(m *root) bool { return m.modal == nil })
	if list, _ := e.opts.Session.History(t.Context(), false); len(list) != 0 {
		t.Fatalf("No scheduled %d sends", len(list))
	}
	tm.Send(press("ctrl+s"))
	waitFor(t, tm, "Send these messages?")
	tm.Send(press("t"))
	waitFor(t, tm, "Send at a time")
	typeText(tm, "+2h")
	tm.Send(press("enter"))
	waitFor(t, tm, "Schedule these messages for")
	tm.Send(press("y"))
	waitModel(t, tm, "scheduled", func(m *root) bool {
		return strings.HasPrefix(m.composer.note, "scheduled for 2025-03-01 15:30 Asia/Tehran (in 2h) as send ")
	})
	list, err := e.opts.Session.History(t.Context(), false)
	if err != nil || len(list) != 1 || !list[0].Waiting() {
		t.Fatalf("history %+v, %v; want one scheduled send", list, err)
	}
	id := list[0].ID
	if n := len(e.srv.Sent()); n != 0 {
		t.Fatalf("scheduling sent %d", n)
	}

	tm.Send(press("esc"))
	tm.Send(press("h"))
	waitFor(t, tm, "scheduled · in 2h · 8 messages", "x cancel scheduled")
	tm.Send(press("x"))
	waitFor(t, tm, "Cancel send "+id+"?", "Nothing of it will be sent.")
	tm.Send(press("n"))
	waitModel(t, tm, "the question closed", func(m *root) bool { return m.modal == nil })
	tm.Send(press("x"))
	waitFor(t, tm, "Cancel send "+id+"?")
	tm.Send(press("y"))
	waitFor(t, tm, "cancelled · 8 messages, none sent")
	st, err := e.opts.Session.ReadSend(t.Context(), id)
	if err != nil || st.State.Cancel == nil || st.State.Cancel.Cause != model.CancelCancelled {
		t.Fatalf("journal: %+v, %v", st.State, err)
	}
	if n := len(e.srv.Sent()); n != 0 {
		t.Errorf("the service took %d", n)
	}
}

// TestServedViewerCannotCancel: on a served console a viewer sees a
// scheduled send in the history, is not offered x, and x pressed is refused
// naming the role it needs; the send stays scheduled.
func TestServedViewerCannotCancel(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	s := e.opts.Session
	p, err := s.PrepareSend(t.Context(), app.SendRequest{Plan: s.Plan("3000505", []model.PairRow{{Line: 2, Recipient: "09121234567", Message: "hi"}}),
		Source: app.FileSource("pairs.csv"), At: fixedNow.Add(time.Hour)})
	if err != nil || p.Refusal != nil {
		t.Fatal(err, p.Refusal)
	}
	sc, err := p.Schedule(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	s.Operator = &model.Operator{Name: "vida", Fingerprint: "SHA256:vidafp", Role: model.RoleViewer}
	tm := e.startOnGroup1(t)
	tm.Send(press("h"))
	waitFor(t, tm, "scheduled · in 1h · 1 message")
	waitModel(t, tm, "no x in a viewer's footer", func(m *root) bool {
		return !strings.Contains(ansi.Strip(m.footer()), "cancel scheduled")
	})
	tm.Send(press("x"))
	waitModel(t, tm, "x refused", func(m *root) bool {
		return strings.Contains(m.lastErr, "sending needs the sender role (vida is a viewer)")
	})
	if st, err := s.ReadSend(t.Context(), sc.ID); err != nil || !st.State.Waiting() {
		t.Errorf("the send after a viewer's x: %v", err)
	}
}

// TestCancelKeepsTheCursorOnTheSend: cancelling a scheduled send moves it
// down the history (scheduled sends come first); the cursor stays on it, not
// on the send that took its row. Its row counts the messages it was to send,
// as it did while it waited (its opted-out recipient was never to go).
func TestCancelKeepsTheCursorOnTheSend(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	s := e.opts.Session
	if _, err := s.AddOptOuts(t.Context(), []string{"09121234567"}, "", "replied 11"); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i, rows := range [][]model.PairRow{
		{{Line: 2, Recipient: "09121234567", Message: "hi"}, {Line: 3, Recipient: "09121234568", Message: "hi"}},
		{{Line: 2, Recipient: "09121234569", Message: "hello"}},
	} {
		p, err := s.PrepareSend(t.Context(), app.SendRequest{Plan: s.Plan("3000505", rows), Source: app.FileSource("pairs.csv"),
			At: fixedNow.Add(time.Duration(i+1) * time.Hour)})
		if err != nil || p.Refusal != nil {
			t.Fatal(err, p.Refusal)
		}
		sc, err := p.Schedule(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, sc.ID)
	}
	tm := e.startOnGroup1(t)
	tm.Send(press("h"))
	waitFor(t, tm, "scheduled · in 1h · 1 message", "scheduled · in 2h · 1 message")
	tm.Send(press("x"))
	waitFor(t, tm, "Cancel send "+ids[0]+"?")
	tm.Send(press("y"))
	waitFor(t, tm, "cancelled · 1 message, none sent")
	waitModel(t, tm, "the cursor on the cancelled send", func(m *root) bool {
		h := m.history
		return len(h.entries) == 2 && h.entries[0].ID == ids[1] && h.entries[h.cursor].ID == ids[0]
	})
}
