package config

import (
	"context"
	"errors"
	"fmt"

	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/model"
)

// Once-only sends (send-pair --once ID) are the ledger's, as the opt-out
// list is: every profile, host and operator on the ledger shares them. A
// new send's id is recorded under the send-start lock (LockSendStart)
// together with its plan, so that two runs with one id send once. The
// account argument the functions take no longer splits them.

// OnceSend is a once-only id used: the send made under it, and what it sent.
type OnceSend = ledger.OnceSend

// FindOnce looks up a once-only id.
func FindOnce(ctx context.Context, p Paths, _, id string) (OnceSend, bool, error) {
	l, err := p.Ledger(ctx)
	if err != nil {
		return OnceSend{}, false, err
	}
	return l.FindOnce(ctx, id)
}

// RecordOnce records that o.ID was used by o.SendID. It refuses an id used
// already (the caller holds LockSendStart and has looked).
func RecordOnce(ctx context.Context, p Paths, _ string, o OnceSend) error {
	l, err := p.Ledger(ctx)
	if err != nil {
		return err
	}
	err = l.RecordOnce(ctx, o)
	if errors.Is(err, ledger.ErrOnceUsed) {
		prev, _, _ := l.FindOnce(ctx, o.ID)
		return fmt.Errorf("once-only id %q was used by send %s already", model.SanitizeLine(o.ID), prev.SendID)
	}
	return err
}

// ForgetOnce takes back id's record for sendID: a send that could not
// start after its id was recorded sent nothing.
func ForgetOnce(ctx context.Context, p Paths, _, id, sendID string) error {
	l, err := p.Ledger(ctx)
	if err != nil {
		return err
	}
	return l.ForgetOnce(ctx, id, sendID)
}

// FreeOnceSend takes back every once-only id that send sendID used (a
// scheduled send cancelled before its time sent nothing: its id may be
// used again) and returns them.
func FreeOnceSend(ctx context.Context, p Paths, _, sendID string) ([]string, error) {
	l, err := p.Ledger(ctx)
	if err != nil {
		return nil, err
	}
	return l.FreeOnceSend(ctx, sendID)
}
