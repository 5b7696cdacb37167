package console

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// goldenSizes are the sizes the goldens of a screen are taken at: an
// 80×24 terminal under tmux's status line, and 100×30.
var goldenSizes = [][2]int{{80, 23}, {100, 30}}

// openOnlySend opens the history's one send and waits for its detail,
// with the terminal at w×h.
func openOnlySend(t *testing.T, tm *teatest.TestModel, w, h int) string {
	t.Helper()
	tm.Send(tea.WindowSizeMsg{Width: w, Height: h})
	openPastSend(t, tm)
	var frame string
	waitModel(t, tm, "the detail drawn", func(m *root) bool {
		frame = m.text()
		return m.c.width == w && strings.Contains(frame, "MESSAGE ID")
	})
	return frame
}

// TestCancelledSendDetail: a scheduled send cancelled before its time
// listed every recipient "queued" and offered "R resume send", which then
// refused (issue 40 item 11). Its detail says cancelled on every row and
// in its summary, offers no R, and R says why nothing is resumed.
func TestCancelledSendDetail(t *testing.T) {
	t.Parallel()
	for _, size := range goldenSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, sandbox.Options{})
			s := e.opts.Session
			p, err := s.PrepareSend(t.Context(), app.SendRequest{Plan: s.Plan("3000505", []model.PairRow{
				{Line: 2, Recipient: "09121234567", Message: "hi"}, {Line: 3, Recipient: "09121234568", Message: "hi"}}),
				Source: app.FileSource("pairs.csv"), At: fixedNow.Add(time.Hour)})
			if err != nil || p.Refusal != nil {
				t.Fatal(err, p.Refusal)
			}
			sc, err := p.Schedule(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if err := s.CancelScheduled(t.Context(), sc.ID); err != nil {
				t.Fatal(err)
			}
			tm := e.startOnGroup1(t)
			frame := openOnlySend(t, tm, size[0], size[1])
			lines := strings.Split(frame, "\n")
			footer := lines[len(lines)-1]
			if strings.Contains(frame, "queued") || strings.Contains(footer, "R resume") || strings.Count(frame, " cancelled ") < 2 {
				t.Errorf("a cancelled send's detail:\n%s", frame)
			}
			requireGolden(t, jobID.ReplaceAllString(frame, "${1}XXXXXX"))
			tm.Send(press("R"))
			waitModel(t, tm, "R said why not", func(m *root) bool {
				return m.modal == nil && strings.Contains(m.note, "nothing was sent, nothing to resume")
			})
		})
	}
}

// TestSendDetailOutcomeAndDelivery: the detail of a send whose recipients
// were all accepted but one opted out, their messages then delivered, not
// delivered or pending, said "4 accepted, 0 rejected, 0 failed" over a
// STATUS column of "failed" (a delivery) and "opted_out", and "every
// recipient was accepted" (issue 40 item 12). Outcome and delivery are
// apart, in words, and the footer says what became of them.
func TestSendDetailOutcomeAndDelivery(t *testing.T) {
	t.Parallel()
	for _, size := range goldenSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, sandbox.Options{})
			writeDeliveredSend(t, e.opts.Session.Paths)
			tm := e.startOnGroup1(t)
			frame := openOnlySend(t, tm, size[0], size[1])
			for _, want := range []string{"outcome: 4 accepted, 1 opted out", "delivery: 2 delivered, 1 not delivered, 1 pending",
				"OUTCOME", "DELIVERY", "opted out", "not delivered", "nothing to resume: 4 accepted, 1 opted out"} {
				if !strings.Contains(frame, want) {
					t.Errorf("the detail lacks %q", want)
				}
			}
			for _, not := range []string{"opted_out", "STATUS", "every recipient was accepted", " failed "} {
				if strings.Contains(frame, not) {
					t.Errorf("the detail has %q", not)
				}
			}
			requireGolden(t, frame)
		})
	}
}

// writeDeliveredSend journals an ended send of five: four accepted (two
// delivered, one not, one pending), one opted out.
func writeDeliveredSend(t *testing.T, paths config.Paths) {
	t.Helper()
	j, err := config.CreateJournal(t.Context(), paths, pastSendID)
	if err != nil {
		t.Fatal(err)
	}
	at := fixedNow.Add(-30 * time.Minute)
	plan := &model.JournalPlan{ID: pastSendID, Time: at, Profile: "test", Sender: "3000505", Source: "group 1", ChunkSize: 5}
	for i, r := range append(pastRecipients, "09121110004") {
		plan.Items = append(plan.Items, model.JournalItem{Index: i, Recipient: r, Message: "سلام " + r, Parts: 1, OptedOut: i == 4})
	}
	out := &model.JournalOutcome{Time: at, Chunk: 0, BatchID: "B-1"}
	deliv := &model.JournalDelivery{Time: at.Add(time.Minute)}
	for i, d := range []string{"delivered", "failed", "delivered", "pending"} {
		id := fmt.Sprint("MSG-", i)
		out.Results = append(out.Results, model.JournalResult{Index: i, State: model.StateAccepted, MessageID: id})
		deliv.Updates = append(deliv.Updates, model.DeliveryUpdate{Index: i, MessageID: id, State: d})
	}
	for _, r := range []model.JournalRecord{plan, &model.JournalIntent{Time: at, Chunk: 0, Indexes: []int{0, 1, 2, 3}, Key: pastSendID + "-0"},
		out, &model.JournalEnd{Time: at}, deliv} {
		if err := j.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
}
