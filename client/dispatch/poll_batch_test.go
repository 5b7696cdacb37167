package dispatch_test

import (
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/dispatch"
	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/model"
)

// deliveryCounter counts the delivery records appended to the journal it wraps.
type deliveryCounter struct {
	dispatch.Journal
	deliveries int
}

func (c *deliveryCounter) Append(rec model.JournalRecord) error {
	if _, ok := rec.(*model.JournalDelivery); ok {
		c.deliveries++
	}
	return c.Journal.Append(rec)
}

// TestPollWritesDeliveryInBatches: a poll keeps a round's changes in a few
// records, not one durable write each. The console watched the delivery of
// a 300-message send for more than 3 minutes on a busy machine
// (TestSendCancelThenRetry at load 10): 300 transactions, one per change.
// Every change is in the journal when the poll ends.
func TestPollWritesDeliveryInBatches(t *testing.T) {
	const n = 120
	e := newEnv(t, sandbox.Options{DeliveryDelay: -1}, nil) // final at once
	p, j := newJournal(t, "batch")
	cj := &deliveryCounter{Journal: j}
	opts := dispatch.Options{ChunkSize: 40, Journal: cj, PollDelivery: true,
		Poll: dispatch.PollOptions{RatePerMinute: 60000, Share: 1, RoundGap: time.Millisecond}}
	run, err := dispatch.Start(ctxTimeout(t, waitLimit), e.client(t), dispatch.NewJob("batch", sandbox.DefaultSender, items(n, 0)), opts)
	if err != nil {
		t.Fatal(err)
	}
	_, sum := drain(t, run)
	if c := sum.Counts; c.Accepted != n || c.Delivered+c.Undelivered != n {
		t.Fatalf("summary %+v: want %d accepted, each with a final delivery state", c, n)
	}
	if want := 3; cj.deliveries != want { // 50 + 50 + 20
		t.Errorf("%d delivery records for %d changes in one round, want %d", cj.deliveries, n, want)
	}
	j.Close()
	st := replayState(t, p, "batch")
	final := 0
	for i := range n {
		if it, ok := st.Item(i); ok && (it.Delivery == "delivered" || it.Delivery == "failed") {
			final++
		}
	}
	if final != n {
		t.Errorf("the journal keeps %d final delivery states, want %d", final, n)
	}
}
