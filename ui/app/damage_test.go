package app

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/model/fakeclock"
)

// ledgerAt is where paths' ledger is (a file or a postgres:// URL).
func ledgerAt(t *testing.T, paths config.Paths) string {
	t.Helper()
	pl, err := config.ReadLedgerPlace(paths)
	if err != nil {
		t.Fatal(err)
	}
	return pl.Location
}

// Damage a runner found refuses every start in its process, the way
// production starts a send (ReserveSend, then the plan's Append), not only
// CreateSend's: a long-running serve's runner meets a due send whose plan
// does not parse, and a new send from another session of the same serve
// is refused, nothing of it at the service. On main the new send went.
func TestDamageFoundByARunnerRefusesANewSend(t *testing.T) {
	for _, b := range ledgertest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			sl := newSharedLedger(t, b)
			v := newService(t, sandbox.Options{})
			clock := fakeclock.New(tehran(t, 10, 0))
			prof := &config.Profile{Name: "live", Sender: sandbox.DefaultSender}
			paths := sl.paths(t) // the server's: one ledger handle for every session
			op := v.clocked(t, paths, prof, clock)
			op.Operator = &model.Operator{Name: "sara", Role: model.RoleSender}
			id := schedule(t, op, onePair(1), clock.Now().Add(time.Minute))
			// A look for repeats keeps the scheduled send's pairs (its
			// digest): later looks need not read its records, only the
			// runner that starts it does.
			prepare(t, op, onePair(2), true)
			ledgertest.DamageRecord(t, ledgerAt(t, paths), id, 1, `{"type":"plan","id":`)
			clock.Advance(time.Minute)

			r := &Runner{Session: v.clocked(t, paths, prof, clock), Kind: model.RunnerServe}
			if _, err := r.Pass(context.Background()); !errors.Is(err, ledger.ErrDamaged) {
				t.Fatalf("the runner's pass over a damaged due send: %v, want the damage", err)
			}

			p := prepare(t, op, onePair(2), true)
			if p.Refusal != nil {
				t.Fatalf("refused before the start: %v", p.Refusal)
			}
			x, err := p.Start(context.Background(), SendOptions{})
			if x != nil {
				_, _ = x.Wait()
				_ = x.Close()
			}
			if !errors.Is(err, ledger.ErrDamaged) {
				t.Errorf("a new send after the runner found damage: %v, want the damage", err)
			}
			if n := len(v.sb.Sent()); n != 0 {
				t.Errorf("the service took %d messages from a damaged ledger", n)
			}
		})
	}
}

// Runners verify the ledger (every row, not only the due sends'): a Loop
// as it starts, and any pass (scheduler --once from cron) once the
// ledger's last verification is an hour old. A record that does not parse
// in a finished send is found so, and kept in the ledger: a send from
// another process is refused with it, and nothing goes. A pass within the
// hour after a verification does not verify again (the costs of a cron
// job's minute), while a Loop's start does. On main, neither looked at a
// finished send: the pass found nothing, and the next send went.
func TestRunnersVerifyTheLedger(t *testing.T) {
	for _, b := range ledgertest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			sl := newSharedLedger(t, b)
			v := newService(t, sandbox.Options{})
			prof := &config.Profile{Name: "live", Sender: sandbox.DefaultSender}
			id := send(t, v.session(t, sl.paths(t), prof), pairs(2)).Summary.JobID
			runner := func() *Runner { return &Runner{Session: v.session(t, sl.paths(t), prof), Kind: model.RunnerCron} }

			// Verified a minute ago, by another runner: a pass does not
			// verify again, and starts what is due.
			if err := config.VerifyLedger(context.Background(), sl.paths(t), CheckEvery, true); err != nil {
				t.Fatal(err)
			}
			// A look for repeats keeps the finished send's pairs: the
			// sends that follow never read its records again.
			prepare(t, v.session(t, sl.paths(t), prof), onePair(7), true)
			ledgertest.DamageRecord(t, sl.loc, id, 3, `{"type":"outcome","ti#GARBAGE`)
			if _, err := runner().Pass(context.Background()); err != nil {
				t.Fatalf("a pass within the hour of a verification: %v, want none (it does not verify)", err)
			}
			// A Loop's start verifies, whatever the last verification.
			ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
			defer cancel()
			if err := runner().Loop(ctx, time.Hour); !errors.Is(err, ledger.ErrDamaged) || !strings.Contains(err.Error(), "send "+id+": its record 3 does not parse") {
				t.Fatalf("a Loop's start over a damaged finished send: %v, want the damage naming it", err)
			}

			// Another process, which found nothing: its new send is refused.
			before := len(v.sb.Sent())
			p := prepare(t, v.session(t, sl.paths(t), prof), onePair(7), true)
			x, err := p.Start(context.Background(), SendOptions{})
			if x != nil {
				_, _ = x.Wait()
			}
			if !errors.Is(err, ledger.ErrDamaged) || !strings.Contains(err.Error(), "its record 3 does not parse") {
				t.Errorf("a send from another process after a runner found damage: %v, want the damage", err)
			}
			if n := len(v.sb.Sent()) - before; n != 0 {
				t.Errorf("the service took %d messages from a damaged ledger", n)
			}
		})
	}
}

// scheduler --once from cron counts as a runner's start when the
// ledger's last verification is over an hour old, or there was none: its
// pass verifies, finds the damage and marks it.
func TestOncePassVerifiesALedgerNotVerifiedWithinTheHour(t *testing.T) {
	for _, b := range ledgertest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			sl := newSharedLedger(t, b)
			v := newService(t, sandbox.Options{})
			prof := &config.Profile{Name: "live", Sender: sandbox.DefaultSender}
			id := send(t, v.session(t, sl.paths(t), prof), pairs(2)).Summary.JobID
			ledgertest.DamageRecord(t, sl.loc, id, 3, `{"type":"outcome","ti#GARBAGE`)
			r := &Runner{Session: v.session(t, sl.paths(t), prof), Kind: model.RunnerCron}
			if _, err := r.Pass(context.Background()); !errors.Is(err, ledger.ErrDamaged) || !strings.Contains(err.Error(), id) {
				t.Fatalf("a --once pass on a ledger never verified: %v, want the damage naming send %s", err, id)
			}
			l, err := ledger.Open(context.Background(), sl.loc)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			if err := l.DamageMark(context.Background()); !errors.Is(err, ledger.ErrDamaged) {
				t.Errorf("the ledger's mark: %v, want the damage kept", err)
			}
		})
	}
}
