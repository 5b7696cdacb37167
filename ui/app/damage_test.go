package app

import (
	"context"
	"errors"
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
