package ledger

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

func TestDueAndHeld(t *testing.T) {
	ctx := context.Background()
	each(t, func(t *testing.T, l *Ledger, loc string) {
		at := t0.Add(time.Hour)
		lease, err := l.CreateSend(ctx, "later", plan("later", 2, at), "schedule", 0)
		if err != nil {
			t.Fatal(err)
		}
		_ = lease.Release(ctx)
		if due, err := l.Due(ctx, at.Add(-time.Second), 10); err != nil || len(due) != 0 {
			t.Errorf("Due before its time: %v %v", ids(due), err)
		}
		if next, err := l.NextDue(ctx); err != nil || !next.Equal(at) {
			t.Errorf("NextDue %v %v, want %v", next, err, at)
		}
		due, err := l.Due(ctx, at, 10)
		if err != nil || len(due) != 1 || due[0].State != StateWaiting {
			t.Fatalf("Due at its time: %+v %v", due, err)
		}
		// A runner starts it; quiet hours hold it after one item.
		claimed, err := l.ClaimDue(ctx, at, "scheduler", 0, 10)
		if err != nil || len(claimed) != 1 {
			t.Fatalf("ClaimDue: %v %v", claimed, err)
		}
		run := claimed[0].Lease
		until := at.Add(10 * time.Hour)
		for _, rec := range []model.JournalRecord{
			&model.JournalResume{Time: at, Indexes: []int{0, 1}, Runner: model.RunnerScheduler},
			&model.JournalIntent{Time: at, Chunk: 0, Indexes: []int{0}, Key: "k"},
			&model.JournalOutcome{Time: at, Chunk: 0, Results: []model.JournalResult{{Index: 0, State: model.StateAccepted}}},
			&model.JournalEnd{Time: at, Interrupted: true, StopCause: "quiet_hours", HeldUntil: until},
		} {
			if err := run.Append(ctx, rec); err != nil {
				t.Fatal(err)
			}
		}
		s, _ := l.GetSend(ctx, "later")
		if s.State != StateHeld || !s.DueAt.Equal(until) {
			t.Errorf("held send: state %s due %v", s.State, s.DueAt)
		}
		if due, _ := l.Due(ctx, until, 10); len(due) != 1 || !due[0].Leased {
			t.Errorf("a held send still leased: %+v", due)
		}
		_ = run.Release(ctx)
		if claimed, err := l.ClaimDue(ctx, until, "scheduler", 0, 10); err != nil || len(claimed) != 1 {
			t.Errorf("ClaimDue of the held send: %v %v", claimed, err)
		}
	})
}

func TestCancelledSendIsNotDue(t *testing.T) {
	ctx := context.Background()
	each(t, func(t *testing.T, l *Ledger, loc string) {
		lease, err := l.CreateSend(ctx, "c", plan("c", 1, t0.Add(time.Hour)), "schedule", 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := lease.Append(ctx, &model.JournalCancel{Time: t0, Cause: model.CancelCancelled}); err != nil {
			t.Fatal(err)
		}
		_ = lease.Release(ctx)
		s, _ := l.GetSend(ctx, "c")
		due, _ := l.Due(ctx, t0.Add(2*time.Hour), 10)
		if s.State != StateCancelled || len(due) != 0 {
			t.Errorf("cancelled: state %s, due %v", s.State, ids(due))
		}
	})
}

// Runners on one ledger (each its own connection, as processes are) claim
// every due send exactly once between them.
func TestClaimDueEachSendOnce(t *testing.T) {
	ctx := context.Background()
	each(t, func(t *testing.T, l *Ledger, loc string) {
		const sends, runners = 40, 4
		for i := range sends {
			lease, err := l.CreateSend(ctx, fmt.Sprintf("s%02d", i), plan(fmt.Sprintf("s%02d", i), 1, t0), "schedule", 0)
			if err != nil {
				t.Fatal(err)
			}
			_ = lease.Release(ctx)
		}
		var mu sync.Mutex
		got := map[string]int{}
		var wg sync.WaitGroup
		errs := make(chan error, runners)
		for r := range runners {
			other := reopen(t, loc)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					claimed, err := other.ClaimDue(ctx, t0, fmt.Sprintf("runner%d", r), time.Hour, 3)
					if err != nil {
						errs <- err
						return
					}
					if len(claimed) == 0 {
						return
					}
					for _, c := range claimed {
						mu.Lock()
						got[c.Send.ID]++
						mu.Unlock()
						// Starting it takes it off the due list.
						if err := c.Lease.Append(ctx, &model.JournalResume{Time: t0, Indexes: []int{0}, Runner: "scheduler"}); err != nil {
							errs <- err
							return
						}
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if len(got) != sends {
			t.Errorf("claimed %d sends of %d", len(got), sends)
		}
		for id, n := range got {
			if n != 1 {
				t.Errorf("send %s claimed %d times", id, n)
			}
		}
	})
}

func TestWatchSeesANewScheduledSend(t *testing.T) {
	each(t, func(t *testing.T, l *Ledger, loc string) {
		ctx, cancel := context.WithCancel(context.Background())
		other := reopen(t, loc)
		ch := other.Watch(ctx)
		defer func() {
			cancel()
			for range ch { // its goroutine has ended when ch closes
			}
		}()
		// Schedule sends until the watcher says so (a LISTEN not yet in
		// place when the first one commits would miss it).
		for i := 0; ; i++ {
			lease, err := l.CreateSend(context.Background(), fmt.Sprintf("w%d", i), plan(fmt.Sprintf("w%d", i), 1, t0), "schedule", 0)
			if err != nil {
				t.Fatal(err)
			}
			_ = lease.Release(context.Background())
			select {
			case <-ch:
				return
			case <-time.After(2 * time.Second):
				if i > 20 {
					t.Fatal("Watch never signalled")
				}
			}
		}
	})
}
