package config

import (
	"context"
	"time"

	"github.com/smsdesk/smsdesk/config/ledger"
)

// Due sends, for runners (ui/app's Runner): found through the ledger's due
// index and claimed under a lease each (see package ledger), so that
// runners in several processes, on several hosts, start each send once.

// DueQuery selects a runner's due sends (see ledger.DueQuery).
type DueQuery = ledger.DueQuery

// DueSend is a due send's summary row as the ledger keeps it.
type DueSend = ledger.Send

// ClaimedSend is a due send a runner claimed: its summary as claimed, and
// its journal, held under the claim's lease (renewed until Close, which
// lets it go).
type ClaimedSend struct {
	Send    DueSend
	Journal *JournalFile
}

// DueSends lists q's sends due now (Leased: a run holds it).
func DueSends(ctx context.Context, p Paths, q DueQuery) ([]DueSend, error) {
	l, err := p.Ledger(ctx)
	if err != nil {
		return nil, err
	}
	return l.DueFor(ctx, q)
}

// ClaimDue claims q's due sends that no run holds, in one transaction, each
// with its journal open under its new lease.
func ClaimDue(ctx context.Context, p Paths, q DueQuery) ([]ClaimedSend, error) {
	l, err := p.Ledger(ctx)
	if err != nil {
		return nil, err
	}
	claimed, err := l.ClaimDueFor(ctx, q, leaseHolder(), ledger.DefaultLeaseTTL)
	if err != nil {
		return nil, err
	}
	out := make([]ClaimedSend, len(claimed))
	for i, c := range claimed {
		out[i] = ClaimedSend{Send: c.Send, Journal: newJournal(ctx, l, c.Send.ID, c.Lease)}
	}
	return out, nil
}

// LeftDue lists q's sends left for an operator (see ledger.LeftDue).
func LeftDue(ctx context.Context, p Paths, q DueQuery) ([]DueSend, error) {
	l, err := p.Ledger(ctx)
	if err != nil {
		return nil, err
	}
	return l.LeftDue(ctx, q)
}

// NextWake says when a runner of q's is to look again (see
// ledger.NextWake): the next send's due time on q's clock, and when a
// lease of another process's on a due send ends, in real time.
func NextWake(ctx context.Context, p Paths, q DueQuery) (due, leaseEnds time.Time, err error) {
	l, err := p.Ledger(ctx)
	if err != nil {
		return time.Time{}, time.Time{}, err
	}
	return l.NextWake(ctx, q)
}

// WatchSends signals, within a second, that sends were scheduled, held,
// started, cancelled or let go anywhere on the ledger (see ledger.Watch):
// the first signal once the watch is in place. The channel closes once
// ctx has ended and the watch is gone.
func WatchSends(ctx context.Context, p Paths) (<-chan struct{}, error) {
	l, err := p.Ledger(ctx)
	if err != nil {
		return nil, err
	}
	return l.Watch(ctx), nil
}

// VerifyLedger verifies the ledger as a runner does (ledger.Verify: its
// pages, the damage mark, every row) when force is set (a runner's start),
// or when its last verification by any process on it is every or more
// ago (ledger.VerifyDue); else it does nothing. What it finds damaged is a
// *ledger.DamagedError, kept in the ledger.
func VerifyLedger(ctx context.Context, p Paths, every time.Duration, force bool) error {
	l, err := p.Ledger(ctx)
	if err != nil {
		return err
	}
	if !force {
		if due, err := l.VerifyDue(ctx, every); err != nil || !due {
			return err
		}
	}
	_, err = l.Verify(ctx)
	return err
}
