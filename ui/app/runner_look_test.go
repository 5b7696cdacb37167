package app

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/model/eventually"
	"github.com/smsdesk/smsdesk/model/fakeclock"
)

// heldGuard bounds a wait for a runner to give up or stop while another
// session holds the ledger: generous, for a machine busy with other
// work, and shorter than the record wait (ledger.RecordWait) a write
// would otherwise wait out before failing. It never measures time.
const heldGuard = 90 * time.Second

// heldWords is what a look that gave up names as what it waited for,
// by backend.
var heldWords = map[string][]string{
	"sqlite":   {"holds its write lock"},
	"postgres": {"PostgreSQL session", "holds a lock on sends", "AccessExclusiveLock"},
}

// TestALookGivesUpWhileTheLedgerIsHeld: another session holds the ledger
// (SQLite's write lock, PostgreSQL's LOCK TABLE sends); a runner's pass
// over a due send gives up its look at the look wait, naming what held
// it, with nothing started and the hold still in place. Its verification
// of the ledger, due first, is such a look (red without its bound: on
// SQLite the verification's time waited for the write lock, on
// PostgreSQL its read, each past the 90 s guard). On PostgreSQL, where
// reads are kept out too, a pass whose verification is not due gives up
// at its first look (for sends left past their time) and makes no other:
// a held ledger costs it one look wait, not one a look (scheduler --once
// took 52 s by hand with psql holding LOCK TABLE sends, its first two
// looks each waiting 25 s; red so: the error was the second look's). A
// --once with nothing due gives up the same way (on SQLite reads are not
// kept out: it answers). Without the bound the pass waited for the hold
// to end (on main: more than 90 s, then failed at the record wait).
func TestALookGivesUpWhileTheLedgerIsHeld(t *testing.T) {
	for _, b := range ledgertest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			sl, v, clock, prof := dueOnSharedLedger(t, b)
			r := &Runner{Session: v.clocked(t, sl.paths(t), prof, clock), Kind: model.RunnerCron, LookWait: 300 * time.Millisecond}
			hold := ledgertest.HoldLedger(t, sl.loc)

			err := heldOut(t, func() error { _, err := r.Pass(context.Background()); return err })
			var look *LookWaitError
			if !errors.As(err, &look) || !errors.Is(err, ledger.ErrBusy) {
				t.Fatalf("the pass while the ledger is held: %v, want a look that gave up", err)
			}
			for _, w := range append([]string{"waited 300ms for the ledger and gave up", "nothing was started"}, heldWords[b.Name]...) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the look's words lack %q:\n%v", w, err)
				}
			}
			if !hold.Held() || len(v.sb.Sent()) != 0 {
				t.Errorf("held %v, the service took %d", hold.Held(), len(v.sb.Sent()))
			}
			if look.What != lookCheck {
				t.Errorf("the pass gave up at %q, want its verification of the ledger, %q", look.What, lookCheck)
			}
			if b.Name == "sqlite" {
				return
			}
			// Verified now: the pass's first look is for the sends left.
			hold.Release()
			if err := config.VerifyLedger(context.Background(), r.Session.Paths, CheckEvery, true); err != nil {
				t.Fatal(err)
			}
			ledgertest.HoldLedger(t, sl.loc) // released at the test's end
			err = heldOut(t, func() error { _, err := r.Pass(context.Background()); return err })
			if !errors.As(err, &look) || look.What != lookLeft {
				t.Errorf("the pass gave up at %q, want its first look, %q", look.What, lookLeft)
			}
			// Nothing due (the one due is claimed already), in another
			// process: its first look opens the ledger (its verification's,
			// or the sends left's), and gives up the same way.
			quiet := &Runner{Session: v.clocked(t, sl.paths(t), &config.Profile{Name: "other", Sender: sandbox.DefaultSender}, clock), Kind: model.RunnerCron, LookWait: 300 * time.Millisecond}
			err = heldOut(t, func() error { _, _, err := quiet.Once(context.Background()); return err })
			if !errors.As(err, &look) || look.What != lookLeft && look.What != lookCheck {
				t.Fatalf("--once with nothing due while the ledger is held: %v", err)
			}
		})
	}
}

// heldOut runs f, which should end by itself while the ledger is held,
// and returns its error; the test fails at heldGuard.
func heldOut(t *testing.T, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(heldGuard):
		t.Fatal("still waiting for the ledger while it is held")
		return nil
	}
}

// TestLoopStopsWhileItsClaimWaits: a runner's loop whose claim of a due
// send waits for a ledger another session holds (its look wait far
// away) ends at once when its context does (SIGTERM, a server's
// shutdown), the hold still in place, having started nothing. It used
// to wait for the hold to end (26 s in the measure).
func TestLoopStopsWhileItsClaimWaits(t *testing.T) {
	for _, b := range ledgertest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			sl, v, clock, prof := dueOnSharedLedger(t, b)
			var told atomic.Bool // SQLite: the claim tells its wait for the write lock, through the runner's Report
			r := &Runner{Session: v.clocked(t, sl.paths(t), prof, clock), Kind: model.RunnerScheduler, LookWait: time.Hour,
				Report: func(ev RunnerEvent) {
					if ev.Kind == RunnerLedgerWait {
						told.Store(true)
					}
				}}
			hold := ledgertest.HoldLedger(t, sl.loc)

			ctx, stop := context.WithCancel(context.Background())
			defer stop()
			looped := make(chan error, 1)
			go func() { looped <- r.Loop(ctx, time.Hour) }()
			// PostgreSQL: the server shows its look waiting on sends.
			eventually.True(t, hangGuard, func() bool { return told.Load() || hold.Waiting() }, func() string { return "the runner never waited for the held ledger" })
			stop()
			if err := heldOut(t, func() error { return <-looped }); err != nil {
				t.Errorf("Loop: %v, want nil (stopped)", err)
			}
			if !hold.Held() || len(v.sb.Sent()) != 0 {
				t.Errorf("held %v, the service took %d", hold.Held(), len(v.sb.Sent()))
			}
		})
	}
}

// dueOnSharedLedger is a send of profile live scheduled on a shared ledger
// of backend b, due now on the clock returned (10:01 in Tehran), with the
// service it goes to.
func dueOnSharedLedger(t *testing.T, b ledgertest.Backend) (*sharedLedger, *service, *fakeclock.Clock, *config.Profile) {
	t.Helper()
	sl := newSharedLedger(t, b)
	v := newService(t, sandbox.Options{})
	clock := fakeclock.New(tehran(t, 10, 0))
	prof := &config.Profile{Name: "live", Sender: sandbox.DefaultSender}
	schedule(t, v.clocked(t, sl.paths(t), prof, clock), onePair(1), clock.Now().Add(time.Minute))
	clock.Advance(time.Minute)
	return sl, v, clock, prof
}
