package ledger

import (
	"context"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// TestWatchCountersTellsTheOptOutList: another process's watch learns of
// every change of the opt-out list (an add, a remove, an import) through
// its counter, which a change that changes nothing leaves as it was; the
// sends counter does not move with it.
func TestWatchCountersTellsTheOptOutList(t *testing.T) {
	each(t, func(t *testing.T, l *Ledger, loc string) {
		ctx, cancel := context.WithCancel(context.Background())
		other := reopen(t, loc)
		ch := other.WatchCounters(ctx)
		defer func() {
			cancel()
			for range ch { // its goroutine has ended when ch closes
			}
		}()
		var was Counters
		select {
		case was = <-ch: // in place
		case <-time.After(10 * time.Second):
			t.Fatal("no first signal")
		}
		next := func(what string) Counters {
			t.Helper()
			for {
				select {
				case c := <-ch:
					if _, opt := c.Changed(was); opt {
						if sends, _ := c.Changed(was); sends {
							t.Errorf("%s moved the sends counter", what)
						}
						was = c
						return c
					}
				case <-time.After(10 * time.Second):
					t.Fatalf("%s: no signal", what)
				}
			}
		}
		if _, err := l.AddOptOuts(ctx, []model.OptOut{{Mobile: "09120000001", Added: t0}}); err != nil {
			t.Fatal(err)
		}
		next("an add")
		if ch, err := l.AddOptOuts(ctx, []model.OptOut{{Mobile: "09120000001", Added: t0}}); err != nil || len(ch.Changed) != 0 {
			t.Fatal(ch, err)
		}
		if c, err := l.ReadCounters(ctx); err != nil || c != was {
			t.Errorf("an add that changed nothing moved the counters: %+v, was %+v (%v)", c, was, err)
		}
		if _, err := l.RemoveOptOuts(ctx, []string{"09120000001"}, ""); err != nil {
			t.Fatal(err)
		}
		next("a remove")
		if _, err := l.ImportOptOuts(ctx, numbers(3), nil); err != nil {
			t.Fatal(err)
		}
		if c := next("an import"); c.OptOuts != 3 {
			t.Errorf("the counter after three changes: %d", c.OptOuts)
		}
	})
}

// TestWatchCountersTellsDeliveriesAndTheInbox: another process's watch
// learns of a delivery state a webhook event moved, of a reply filed in
// the inbox, and of the opt-out a «۱۱» reply made, each through its
// counter. On PostgreSQL those changes moved their counters without a
// NOTIFY: a watch listening learned of none (the console's history
// detail and inbox stayed as they were), until something else woke it.
func TestWatchCountersTellsDeliveriesAndTheInbox(t *testing.T) {
	each(t, func(t *testing.T, l *Ledger, loc string) {
		ctx, cancel := context.WithCancel(context.Background())
		sendAccepting(t, l, "s1", 2, t0, 0, 1)
		other := reopen(t, loc)
		ch := other.WatchCounters(ctx)
		defer func() {
			cancel()
			for range ch { // its goroutine has ended when ch closes
			}
		}()
		var was Counters
		select {
		case was = <-ch: // in place
		case <-time.After(time.Minute):
			t.Fatal("no first signal")
		}
		waitMoved := func(what string, moved func(c Counters) bool) {
			t.Helper()
			for {
				select {
				case c := <-ch:
					if moved(c) {
						was = c
						return
					}
				case <-time.After(time.Minute): // a guard against a hang: the signal comes at once
					t.Fatalf("%s: no signal", what)
				}
			}
		}
		record(t, l, ev("m0", EventDelivered, "", t0.Add(time.Minute)))
		before := was
		waitMoved("a delivery event", func(c Counters) bool { return c.Deliveries != before.Deliveries })
		record(t, l, reply("in-1", "09121112233", "3000", "لغو ۱۱", t0.Add(2*time.Minute)))
		before = was
		waitMoved("a «۱۱» reply", func(c Counters) bool { return c.Inbox != before.Inbox && c.OptOuts != before.OptOuts })
	})
}
