package ledger

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// TestRunsOwnPollMovesTheRows: a run that polls its own send (the
// console's results pane) journals what it found as a delivery record;
// the deliveries rows, which every face reads (history show, the report,
// the console's history detail), stayed pending beside a journal that
// said delivered. The record now moves them, forward only, at its time.
func TestRunsOwnPollMovesTheRows(t *testing.T) {
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	each(t, func(t *testing.T, l *Ledger, _ string) {
		lease := sendAccepting(t, l, "s1", 3, at(0), 0, 1, 2)
		record(t, l, ev("m2", EventDelivered, "", at(1))) // a webhook told first
		before, err := l.ReadCounters(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if err := lease.Append(context.Background(), &model.JournalDelivery{Time: at(2), Updates: []model.DeliveryUpdate{
			{Index: 0, MessageID: "m0", State: "delivered"}, {Index: 1, MessageID: "m1", State: "sent"},
			{Index: 2, MessageID: "m2", State: "sent"}, // older than what the webhook told: stays
		}}); err != nil {
			t.Fatal(err)
		}
		want := []string{"0 m0 delivered 09:02", "1 m1 sent 09:02", "2 m2 delivered 09:01"}
		if got := states(t, l, "s1"); !reflect.DeepEqual(got, want) {
			t.Errorf("states %v, want %v", got, want)
		}
		if c, err := l.ReadCounters(context.Background()); err != nil || c.Deliveries == before.Deliveries {
			t.Errorf("the deliveries counter did not move: %+v, was %+v (%v)", c, before, err)
		}
	})
}
