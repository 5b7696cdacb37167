package config

import (
	"context"
	"time"

	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/model"
)

// RepeatScope is whose sends count as earlier ones for the repeat guard
// (see ledger.RepeatScope).
type RepeatScope = ledger.RepeatScope

// RecentPairs returns the pairs accepted, or that may have gone (or will, at
// a scheduled send's time), at or after since by the sends of the scope,
// one model.SentPairs per send that has any (see ledger.RecentPairs). A
// damaged ledger is an error: the guard cannot say.
func RecentPairs(ctx context.Context, p Paths, scope RepeatScope, since time.Time) ([]model.SentPairs, error) {
	l, err := p.Ledger(ctx)
	if err != nil {
		return nil, err
	}
	return l.RecentPairs(ctx, scope, since)
}
