package ledger

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
	"github.com/smsdesk/smsdesk/model"
)

// schedule records a send of n items due at at, for profile "work" on
// sms.example.com (plan's), and lets it go.
func schedule(t testing.TB, l *Ledger, id string, n int, at time.Time, edit func(*model.JournalPlan)) {
	t.Helper()
	p := plan(id, n, at)
	if edit != nil {
		edit(p)
	}
	lease, err := l.CreateSend(context.Background(), id, p, "schedule", 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := lease.Release(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func claimedIDs(list []Claimed) []string {
	out := make([]string, len(list))
	for i, c := range list {
		out[i] = c.Send.ID
	}
	return out
}

// TestClaimDueForSelects: a runner claims its own profile's sends on its
// own service (a send that names no service counts), never an excluded
// one; a waiting send however late (to be marked missed), a held one only
// within Late of its quiet hours' end.
func TestClaimDueForSelects(t *testing.T) {
	ctx := context.Background()
	each(t, func(t *testing.T, l *Ledger, loc string) {
		at := t0.Add(time.Hour)
		schedule(t, l, "mine", 1, at, nil)
		schedule(t, l, "nohost", 1, at, func(p *model.JournalPlan) { p.BaseURL = "" })
		schedule(t, l, "other-profile", 1, at, func(p *model.JournalPlan) { p.Profile = "home" })
		schedule(t, l, "other-host", 1, at, func(p *model.JournalPlan) { p.BaseURL = "https://sms.example.org" })
		schedule(t, l, "excluded", 1, at, nil)
		schedule(t, l, "missed", 1, t0, nil)
		for _, h := range []struct {
			id    string
			until time.Time
		}{{"held-late", t0.Add(10 * time.Minute)}, {"held", at}} {
			schedule(t, l, h.id, 2, t0, nil)
			lease, err := l.Claim(ctx, h.id, "scheduler", 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, rec := range []model.JournalRecord{
				&model.JournalResume{Time: t0, Indexes: []int{0, 1}, Runner: model.RunnerScheduler},
				&model.JournalEnd{Time: t0, Interrupted: true, StopCause: "quiet_hours", HeldUntil: h.until},
			} {
				if err := lease.Append(ctx, rec); err != nil {
					t.Fatal(err)
				}
			}
			_ = lease.Release(ctx)
		}
		q := DueQuery{Now: at, Late: 30 * time.Minute, Profile: "work", Host: model.ServiceHost("https://sms.example.com"), Exclude: []string{"excluded"}}
		left, err := l.LeftDue(ctx, q)
		if err != nil || !slices.Equal(ids(left), []string{"held-late"}) {
			t.Errorf("LeftDue: %v %v", ids(left), err)
		}
		claimed, err := reopen(t, loc).ClaimDueFor(ctx, q, "scheduler", time.Minute)
		if got := claimedIDs(claimed); err != nil || !slices.Equal(got, []string{"missed", "held", "mine", "nohost"}) {
			t.Errorf("claimed %v %v", got, err)
		}
		if again, err := l.ClaimDueFor(ctx, q, "scheduler", time.Minute); err != nil || len(again) != 0 {
			t.Errorf("claimed again: %v %v", claimedIDs(again), err)
		}
	})
}

// TestRunsOfThisProcessLeaveRoomToClaim: the sends this process is running
// (a runner's open runs, due from their start) never fill a claim's room: a
// send that falls due after them is claimed.
func TestRunsOfThisProcessLeaveRoomToClaim(t *testing.T) {
	ctx := context.Background()
	each(t, func(t *testing.T, l *Ledger, loc string) {
		for _, id := range []string{"r1", "r2", "r3"} {
			schedule(t, l, id, 1, t0, nil)
		}
		running, err := l.ClaimDueFor(ctx, DueQuery{Now: t0}, "serve", time.Hour)
		if err != nil || len(running) != 3 {
			t.Fatalf("claimed %v %v", claimedIDs(running), err)
		}
		for _, c := range running {
			if err := c.Lease.Append(ctx, &model.JournalResume{Time: t0, Indexes: []int{0}, Runner: model.RunnerServe}); err != nil {
				t.Fatal(err)
			}
		}
		if s, _ := l.GetSend(ctx, "r1"); s.State != StateOpen || !s.DueAt.Equal(t0) || !s.Leased {
			t.Fatalf("a runner's run: state %s, due %v, leased %v", s.State, s.DueAt, s.Leased)
		}
		schedule(t, l, "next", 1, t0.Add(time.Second), nil)
		claimed, err := l.ClaimDueFor(ctx, DueQuery{Now: t0.Add(time.Second), Limit: 3}, "serve", time.Hour)
		if got := claimedIDs(claimed); err != nil || !slices.Equal(got, []string{"next"}) {
			t.Errorf("with three runs under way: claimed %v %v", got, err)
		}
	})
}

// TestRunOfAGoneRunnerIsTakenOver: a runner's open run whose lease has
// ended, or whose process on this host has gone, is claimed by another
// runner; one whose runner lives is not, and NextWake says when its lease
// ends (a runner on another host).
func TestRunOfAGoneRunnerIsTakenOver(t *testing.T) {
	ctx := context.Background()
	each(t, func(t *testing.T, l *Ledger, loc string) {
		elsewhere := reopen(t, loc)
		elsewhere.host = "another-host"
		for _, id := range []string{"alive", "expired", "dead-process"} {
			schedule(t, l, id, 1, t0, nil)
			ttl := time.Hour
			if id == "expired" {
				ttl = time.Nanosecond
			}
			holder := elsewhere
			if id == "dead-process" {
				holder = l
			}
			lease, err := holder.Claim(ctx, id, "scheduler", ttl)
			if err != nil {
				t.Fatal(err)
			}
			if err := lease.Append(ctx, &model.JournalResume{Time: t0, Indexes: []int{0}, Runner: model.RunnerScheduler}); err != nil {
				t.Fatal(err)
			}
		}
		// A process of this host that has ended held it.
		if _, err := l.db.Exec(l.q("UPDATE sends SET lease_pid = 999999999 WHERE id = ?"), "dead-process"); err != nil {
			t.Fatal(err)
		}
		q := DueQuery{Now: t0.Add(time.Minute), Late: time.Hour}
		_, leaseEnds, err := l.NextWake(ctx, q)
		if err != nil || leaseEnds.Before(time.Now().Add(50*time.Minute)) {
			t.Errorf("NextWake: lease ends %v %v, want the live lease's end in about an hour", leaseEnds, err)
		}
		claimed, err := reopen(t, loc).ClaimDueFor(ctx, q, "serve", time.Minute)
		if got := claimedIDs(claimed); err != nil || !slices.Equal(got, []string{"dead-process", "expired"}) {
			t.Errorf("claimed %v %v", got, err)
		}
	})
}

// BenchmarkIdleLook is a runner's look when nothing is due (its pass and
// its wait: DueFor, LeftDue, NextWake) over a history of past sends, ended
// and so off the due index: its cost does not grow with the history.
func BenchmarkIdleLook(b *testing.B) {
	ctx := context.Background()
	for _, be := range ledgertest.Backends() {
		for _, past := range []int{100, 100_000} {
			b.Run(fmt.Sprintf("%s/past=%d", be.Name, past), func(b *testing.B) {
				l, err := Create(ctx, be.Location(b))
				if err != nil {
					b.Fatal(err)
				}
				defer l.Close()
				tx, err := l.db.BeginTx(ctx, nil)
				if err != nil {
					b.Fatal(err)
				}
				for i := range past {
					if _, err := tx.ExecContext(ctx, l.q(`INSERT INTO sends (id, plan_time, state, due_at, scheduled_for, held_until, touched,
						profile, account, host, sender, operator, source, items, records, updated_seq)
						VALUES (?, ?, ?, NULL, 0, 0, ?, 'work', 'acct1', 'sms.example.com:443', '3000', '', 'pairs.csv', 1, 3, 0)`),
						fmt.Sprintf("past-%06d", i), t0.UnixNano(), string(StateEnded), t0.UnixNano()); err != nil {
						b.Fatal(err)
					}
				}
				if err := tx.Commit(); err != nil {
					b.Fatal(err)
				}
				schedule(b, l, "tomorrow", 1, t0.Add(24*time.Hour), nil)
				q := DueQuery{Now: t0.Add(time.Hour), Late: time.Hour, Profile: "work", Host: "sms.example.com:443"}
				b.ResetTimer()
				for b.Loop() {
					due, err := l.DueFor(ctx, q)
					if err != nil || len(due) != 0 {
						b.Fatal(due, err)
					}
					if _, err := l.LeftDue(ctx, q); err != nil {
						b.Fatal(err)
					}
					if next, _, err := l.NextWake(ctx, q); err != nil || next.IsZero() {
						b.Fatal(next, err)
					}
				}
			})
		}
	}
}
