package config

import (
	"context"
	"github.com/smsdesk/smsdesk/config/ledger"
)

// JournalLease is send id's summary when a live lease holds it (a run is
// working on it: ok), naming the run (LeaseHolder, LeaseHost, LeasePID)
// and when its lease ends unless renewed (LeaseUntil, on this host's
// clock); ok is false when no run holds it, or it cannot be read.
func JournalLease(ctx context.Context, p Paths, id string) (s ledger.Send, ok bool) {
	l, err := p.Ledger(ctx)
	if err != nil {
		return ledger.Send{}, false
	}
	s, err = l.GetSend(ctx, id)
	return s, err == nil && s.Leased
}
