package ledger

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// The fallback poller's side of deliveries: which messages are due to be
// asked about (next_poll_at, through the partial index deliveries_poll),
// and what an ask learned. Each write is one short statement of its own:
// the network call it follows is over before it begins.

// DuePolls are up to limit of account's deliveries whose next poll is due
// at now (next_poll_at ≤ now), soonest first.
func (l *Ledger) DuePolls(ctx context.Context, account string, now time.Time, limit int) ([]Delivery, error) {
	rows, err := l.db.QueryContext(ctx, l.q("SELECT "+deliveryColumns+` FROM deliveries
		WHERE next_poll_at IS NOT NULL AND next_poll_at <= ? AND account = ? ORDER BY next_poll_at, send_id, idx LIMIT ?`),
		nanos(now), account, limit)
	if err != nil {
		return nil, l.fail("reading the deliveries due to be polled", err)
	}
	defer closeRows(rows)
	var out []Delivery
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, l.badRowOr("reading the deliveries due to be polled", err)
		}
		out = append(out, d)
	}
	return out, l.fail("reading the deliveries due to be polled", rows.Err())
}

// NextPoll is when account's next delivery is due to be polled (zero: none
// waits).
func (l *Ledger) NextPoll(ctx context.Context, account string) (time.Time, error) {
	var next sql.NullInt64
	err := l.db.QueryRowContext(ctx, l.q("SELECT min(next_poll_at) FROM deliveries WHERE next_poll_at IS NOT NULL AND account = ?"), account).Scan(&next)
	if err != nil {
		return time.Time{}, l.fail("reading when the next delivery is due to be polled", err)
	}
	return fromNanos(next.Int64), nil
}

// Poll is what the poller learned of one delivery (SendID, Index).
type Poll struct {
	SendID string
	Index  int
	// State is the state the service told at At ("" when the poller did
	// not ask, or learned nothing): the row moves to it only forward
	// (model.DeliveryState.Rank), and a final state ends its polling.
	State model.DeliveryState
	At    time.Time
	// Next is when to ask again if the row is still not final (zero: never
	// again). Asked counts the ask in polls.
	Next  time.Time
	Asked bool
}

// RecordPoll writes p: the row moves forward to p.State (keeping the
// time it arrived), or keeps its state; its next poll is p.Next unless it
// is final now. It reports whether the state moved.
func (l *Ledger) RecordPoll(ctx context.Context, p Poll) (moved bool, err error) {
	asked := 0
	if p.Asked {
		asked = 1
	}
	err = l.withTx(ctx, "recording a delivery state polled", func(tx *sql.Tx) error {
		var err error
		if moved, err = l.moveDelivery(ctx, tx, deliveryKey{p.SendID, p.Index}, p.State, p.At); err != nil {
			return err
		}
		// Polling ends at a final state, whoever told it (this poll, or a
		// webhook event that came meanwhile).
		_, err = tx.ExecContext(ctx, l.q(`UPDATE deliveries SET polls = polls + ?,
			next_poll_at = CASE WHEN state_rank >= ? THEN NULL ELSE ? END WHERE send_id = ? AND idx = ?`),
			asked, model.DeliveryDelivered.Rank(), nullNanos(p.Next), p.SendID, p.Index)
		if err != nil || !moved {
			return err
		}
		return l.bumpCounter(ctx, tx, counterDeliveries)
	})
	if err != nil {
		return false, l.badRowOr("recording a delivery state polled", err)
	}
	return moved, nil
}

// deliveryOffKey is the meta key that holds until when account's service
// is not asked for delivery states (it answered 404 or 405).
func deliveryOffKey(account string) string { return "delivery_off " + account }

// SetDeliveryOff records that account's service is not asked for delivery
// states until until (it has no status endpoint), where every runner on
// the ledger reads it.
func (l *Ledger) SetDeliveryOff(ctx context.Context, account string, until time.Time) error {
	return l.withTx(ctx, "recording that delivery is not polled", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, l.q("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value"),
			deliveryOffKey(account), until.UTC().Format(time.RFC3339Nano))
		return err
	})
}

// DeliveryOff is until when account's service is not asked for delivery
// states (zero: it is asked).
func (l *Ledger) DeliveryOff(ctx context.Context, account string) (time.Time, error) {
	v, ok, err := l.Meta(ctx, deliveryOffKey(account))
	if err != nil || !ok {
		return time.Time{}, err
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, l.damaged("meta "+deliveryOffKey(account)+" is not a time", errors.New(model.SanitizeLine(v)))
	}
	return t, nil
}
