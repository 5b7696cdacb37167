package ledger

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// expire ends send id's lease a second ago by the ledger's clock, as a
// lease its run stopped renewing ends: what a runner takes over.
func expire(t *testing.T, l *Ledger, id string) {
	t.Helper()
	res, err := l.db.Exec(l.q("UPDATE sends SET lease_until = "+l.d.clock()+" - 1000000000 WHERE id = ?"), id)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("expiring the lease on send %s: no such send", id)
	}
}

// Leases are timed by the ledger's clock, not each host's: a handle whose
// host clock is two minutes ahead or behind (two PostgreSQL hosts whose
// clocks differ) neither takes another's live lease (Claim, ClaimDueFor)
// nor writes one that the other takes at once, and says when a lease ends
// on its own clock; a lease truly past its time is still taken over.
// With lease times from each host's time.Now, the handle ahead took the
// live lease, and the one behind wrote leases already over.
func TestLeasesByTheLedgersClock(t *testing.T) {
	ctx := context.Background()
	each(t, func(t *testing.T, l *Ledger, loc string) {
		for n, skew := range []time.Duration{2 * time.Minute, -2 * time.Minute} {
			t.Run(fmt.Sprintf("host clock %v", skew), func(t *testing.T) {
				skewed := reopen(t, loc)
				skewed.now = func() time.Time { return time.Now().Add(skew) }
				mine, theirs := fmt.Sprintf("mine%d", n), fmt.Sprintf("theirs%d", n)

				// A lease the right clock took: live for the skewed host.
				if _, err := l.CreateSend(ctx, mine, plan(mine, 1, t0), "first", time.Minute); err != nil {
					t.Fatal(err)
				}
				if _, err := skewed.Claim(ctx, mine, "second", time.Minute); !errors.Is(err, ErrInUse) {
					t.Fatalf("Claim of a live lease by a host %v off: %v, want ErrInUse", skew, err)
				}
				due := DueQuery{Now: t0.Add(time.Hour)}
				if got, err := skewed.ClaimDueFor(ctx, due, "second", time.Minute); err != nil || len(got) != 0 {
					t.Fatalf("ClaimDueFor by a host %v off: %d claimed, %v; want none", skew, len(got), err)
				}
				s, err := skewed.GetSend(ctx, mine)
				if err != nil || !s.Leased {
					t.Fatalf("GetSend by a host %v off: leased %v, %v", skew, s.Leased, err)
				}
				if left := s.LeaseUntil.Sub(skewed.now()); left <= 0 || left > time.Minute+time.Second {
					t.Errorf("the lease ends %v from the skewed host's now, want within its minute", left)
				}
				// NextWake skips this process's own leases: the lease is
				// another host's.
				if _, err := l.db.Exec(l.q("UPDATE sends SET lease_host = 'elsewhere' WHERE id = ?"), mine); err != nil {
					t.Fatal(err)
				}
				_, ends, err := skewed.NextWake(ctx, due)
				if left := ends.Sub(skewed.now()); err != nil || left <= 0 || left > time.Minute+time.Second {
					t.Errorf("NextWake by the skewed host: the lease ends %v from its now (%v), want within its minute", left, err)
				}

				// A lease the skewed host took and renews: live for the other.
				lease, err := skewed.CreateSend(ctx, theirs, plan(theirs, 1, t0), "skewed", time.Minute)
				if err != nil {
					t.Fatal(err)
				}
				if err := lease.Renew(ctx); err != nil {
					t.Fatal(err)
				}
				_, err = l.Claim(ctx, theirs, "first", time.Minute)
				var inUse *InUseError
				if !errors.As(err, &inUse) {
					t.Fatalf("Claim of the skewed host's live lease: %v, want ErrInUse", err)
				}
				if left := time.Until(inUse.Until); left <= 0 || left > time.Minute+time.Second {
					t.Errorf("InUseError.Until is %v away, want within the lease's minute", left)
				}
				if got, err := l.ClaimDueFor(ctx, due, "first", time.Minute); err != nil || len(got) != 0 {
					t.Fatalf("ClaimDueFor of the skewed host's live lease: %d claimed, %v; want none", len(got), err)
				}

				// Past its time by the ledger's clock: taken over, either way.
				expire(t, l, mine)
				if _, err := skewed.Claim(ctx, mine, "second", time.Minute); err != nil {
					t.Errorf("Claim of a lease past its time by a host %v off: %v", skew, err)
				}
				expire(t, l, theirs)
				got, err := l.ClaimDueFor(ctx, due, "first", time.Minute)
				if err != nil || len(got) != 1 || got[0].Send.ID != theirs {
					t.Errorf("ClaimDueFor of the skewed host's lease past its time: %d claimed, %v", len(got), err)
				}
			})
		}
	})
}
