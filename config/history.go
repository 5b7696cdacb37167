package config

import (
	"context"
	"github.com/smsdesk/smsdesk/config/ledger"
)

// ListSends returns a page of the sends' summaries, newest first (with
// q.Due, soonest due first), from the ledger's index: none is replayed.
// A page replays only the sends it shows (ReadJournal), after what their
// summaries say has picked them.
func ListSends(ctx context.Context, p Paths, q ledger.SendQuery) ([]ledger.Send, error) {
	l, err := p.Ledger(ctx)
	if err != nil {
		return nil, err
	}
	return l.ListSends(ctx, q)
}
