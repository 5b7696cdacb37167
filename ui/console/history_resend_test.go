package console

import (
	"slices"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/model"
)

// writeFailedSend journals a finished send of pastRecipients, every one
// accepted, whose deliveries were then told: delivered, failed, failed,
// rejected. They are in the journal (a run's polls) and in the ledger's
// deliveries rows (webhooks and the runner's polls), as both record them.
func writeFailedSend(t *testing.T, paths config.Paths, sender string) {
	t.Helper()
	ctx := t.Context()
	j, err := config.CreateJournal(ctx, paths, pastSendID)
	if err != nil {
		t.Fatal(err)
	}
	at := fixedNow.Add(-30 * time.Minute)
	states := []model.DeliveryState{model.DeliveryDelivered, model.DeliveryFailed, model.DeliveryFailed, model.DeliveryRejected}
	plan := &model.JournalPlan{ID: pastSendID, Time: at, Profile: "test", Sender: sender, Source: "group 1", ChunkSize: 4}
	out := &model.JournalOutcome{Time: at, Chunk: 0, BatchID: "B-1"}
	polled := &model.JournalDelivery{Time: at.Add(time.Minute)}
	for i, r := range pastRecipients {
		id := "MSG-" + string(rune('0'+i))
		plan.Items = append(plan.Items, model.JournalItem{Index: i, Recipient: r, Message: "سلام " + r, Parts: 1})
		out.Results = append(out.Results, model.JournalResult{Index: i, State: model.StateAccepted, MessageID: id})
		polled.Updates = append(polled.Updates, model.DeliveryUpdate{Index: i, MessageID: id, State: string(states[i])})
	}
	for _, r := range []model.JournalRecord{plan, &model.JournalIntent{Time: at, Chunk: 0, Indexes: []int{0, 1, 2, 3}, Key: pastSendID + "-0"},
		out, polled, &model.JournalEnd{Time: at.Add(time.Minute)}} {
		if err := j.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	l, err := paths.Ledger(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i, st := range states {
		if _, err := l.RecordPoll(ctx, ledger.Poll{SendID: pastSendID, Index: i, State: st, At: at.Add(time.Minute), Asked: true}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestHistoryResendFailed (issue 42 §3): the detail of a send with failed
// deliveries offers F (its foot and its help say so); F asks with the
// send confirmation every console send has, naming the resend, how many
// and their parts; yes sends only the failed ones (not the delivered, not
// the rejected), as a new send.
func TestHistoryResendFailed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	paths := e.opts.Session.Paths
	writeFailedSend(t, paths, sandbox.DefaultSender) // one of the profile's lines: a resend goes from the send's

	tm := e.startOnGroup1(t)
	openPastSend(t, tm)
	waitModel(t, tm, "F offered", func(m *root) bool {
		return strings.Contains(m.text(), "F resends 2 of the 3 not delivered (not the rejected)") && slices.ContainsFunc(m.history.detailHelp(), func(b key.Binding) bool {
			return slices.Equal(b.Keys(), []string{"F"})
		})
	})

	tm.Send(press("F"))
	var frame string
	waitModel(t, tm, "the confirmation", func(m *root) bool {
		frame = m.text()
		return modalTitle(m) == "Resend 2 messages that failed in send "+pastSendID+"?"
	})
	for _, want := range []string{"2 recipients · 2 UCS-2 → 2 parts", "Source:      resend of " + pastSendID,
		"Resend of:   send " + pastSendID + " (2 failed)", "Left out:    1 delivered, 1 rejected (not asked)", "Parts:"} {
		if !strings.Contains(frame, want) {
			t.Errorf("the confirmation lacks %q:\n%s", want, frame)
		}
	}
	tm.Send(press("y"))
	waitModel(t, tm, "the resend finished", func(m *root) bool {
		return m.screen == screenResults && !m.results.running() && m.results.summary != nil && m.results.jobID != pastSendID && len(m.c.work.live) == 0
	})
	if got, want := sentTo(e), []string{pastRecipients[1], pastRecipients[2]}; !slices.Equal(got, want) {
		t.Fatalf("the resend went to %v, want only the failed %v", got, want)
	}
	finalView(t, tm)
}
