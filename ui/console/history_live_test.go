package console

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// TestHistoryDetailDeliveryLive: the history detail's DELIVERY column and
// its "delivery:" line were read once, as the send was opened: webhook
// events that landed in the ledger while it was open (from serve's
// receiver, or another process) showed only after esc and enter again
// (issue 42 §2, "live, as events land"). Events recorded through the
// ledger while the detail is open now show without a key.
func TestHistoryDetailDeliveryLive(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	paths := e.opts.Session.Paths
	writeAcceptedSend(t, paths, "acct-live", 3)
	tm := e.startOnGroup1(t)
	openPastSend(t, tm)
	waitModel(t, tm, "the detail with its deliveries pending", func(m *root) bool {
		return strings.Contains(m.text(), "delivery: 3 pending")
	})

	l, err := paths.Ledger(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if _, err := l.RecordEvents(t.Context(), []ledger.Event{
		{Account: "acct-live", Profile: "test", MessageID: "MSG-LIVE-0", Kind: ledger.EventDelivered, ReceivedAt: now, Body: []byte(`{}`)},
		{Account: "acct-live", Profile: "test", MessageID: "MSG-LIVE-1", Kind: ledger.EventFailed, ReceivedAt: now, Body: []byte(`{}`)},
	}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, tm, "delivery: 1 delivered, 1 not delivered, 1 pending")
	waitModel(t, tm, "the rows' DELIVERY moved", func(m *root) bool {
		text := m.text()
		return strings.Contains(text, "delivered") && strings.Contains(text, "not delivered") && m.history.detail != nil
	})

	// and again: a later event moves the last row, the open detail follows
	if _, err := l.RecordEvents(t.Context(), []ledger.Event{
		{Account: "acct-live", Profile: "test", MessageID: "MSG-LIVE-2", Kind: ledger.EventDelivered, ReceivedAt: now, Body: []byte(`{}`)},
	}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, tm, "delivery: 2 delivered, 1 not delivered")
}

// writeAcceptedSend journals an ended send of n recipients of account, all
// accepted (MSG-LIVE-0 …), their delivery not yet reported.
func writeAcceptedSend(t *testing.T, paths config.Paths, account string, n int) {
	t.Helper()
	j, err := config.CreateJournal(t.Context(), paths, pastSendID)
	if err != nil {
		t.Fatal(err)
	}
	at := fixedNow.Add(-30 * time.Minute)
	plan := &model.JournalPlan{ID: pastSendID, Time: at, Profile: "test", Account: account, Sender: "3000505", Source: "group 1", ChunkSize: n}
	out := &model.JournalOutcome{Time: at, Chunk: 0, BatchID: "B-1"}
	intent := &model.JournalIntent{Time: at, Chunk: 0, Key: pastSendID + "-0"}
	for i := range n {
		r := fmt.Sprintf("0912111%04d", i)
		plan.Items = append(plan.Items, model.JournalItem{Index: i, Recipient: r, Message: "hi " + r, Parts: 1})
		intent.Indexes = append(intent.Indexes, i)
		out.Results = append(out.Results, model.JournalResult{Index: i, State: model.StateAccepted, MessageID: fmt.Sprint("MSG-LIVE-", i)})
	}
	for _, r := range []model.JournalRecord{plan, intent, out, &model.JournalEnd{Time: at}} {
		if err := j.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestHistoryDetailReadsOneAtATime: events landing faster than the open
// detail is read start no pile of reads: a change while a quiet read is
// under way asks for one more read once it answers, not another now.
func TestHistoryDetailReadsOneAtATime(t *testing.T) {
	t.Parallel()
	sess := testSession(t, nil, app.Profile{Name: "default"})
	p := &historyPane{c: &common{ctx: t.Context(), session: sess, now: fixedClock, reads: &owner{}}}
	p.detail = &historyDetail{id: pastSendID, state: &model.JournalState{}}
	if p.refreshDetail() == nil {
		t.Fatal("the first change read nothing")
	}
	for range 3 {
		if p.refreshDetail() != nil {
			t.Fatal("a change during a read started another read")
		}
	}
	if p.detailLoaded(historyDetailMsg{ID: pastSendID, State: &model.JournalState{}}) == nil || !p.detail.refreshing {
		t.Fatal("the changes during the read were not read once more")
	}
	if p.detailLoaded(historyDetailMsg{ID: pastSendID, State: &model.JournalState{}}) != nil || p.detail.refreshing {
		t.Fatal("a read with nothing changed meanwhile read again")
	}
}
