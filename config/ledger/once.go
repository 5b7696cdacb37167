package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// Once-only ids (send-pair --once ID) are the ledger's, as the opt-out
// list is: a second run with one id, from any profile, host or operator on
// the ledger, finds the first.

// OnceSend is a once-only id used: the send made under it, and what it sent.
type OnceSend struct {
	ID     string    `json:"id"`      // the once-only id, as given
	SendID string    `json:"send_id"` // the send made under it
	Pairs  string    `json:"pairs"`   // model.PairsDigest of its plan
	Count  int       `json:"count"`   // its plan's items
	Source string    `json:"source"`  // where its rows came from
	Time   time.Time `json:"time"`
	// Profile and Operator made it (Operator on a served console).
	Profile  string `json:"profile"`
	Operator string `json:"operator,omitempty"`
}

const onceColumns = "id, send_id, pairs, count, source, at, profile, operator"

// FindOnce looks up a once-only id.
func (l *Ledger) FindOnce(ctx context.Context, id string) (OnceSend, bool, error) {
	var o OnceSend
	var at string
	err := l.db.QueryRowContext(ctx, l.q("SELECT "+onceColumns+" FROM once_ids WHERE id = ?"), id).
		Scan(&o.ID, &o.SendID, &o.Pairs, &o.Count, &o.Source, &at, &o.Profile, &o.Operator)
	if errors.Is(err, sql.ErrNoRows) {
		return OnceSend{}, false, nil
	}
	if err != nil {
		return OnceSend{}, false, l.fail("reading the once-only ids", err)
	}
	t, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		return OnceSend{}, false, l.fail("reading the once-only ids", l.damaged(fmt.Sprintf("once-only id %q: its time %q does not parse", model.SanitizeLine(id), model.SanitizeLine(at)), err))
	}
	o.Time = t
	return o, true, nil
}

// RecordOnce records that o.ID was used by o.SendID. An id used already is
// refused (ErrOnceUsed, naming the send that used it).
func (l *Ledger) RecordOnce(ctx context.Context, o OnceSend) error {
	return l.withTx(ctx, "recording a once-only id", func(tx *sql.Tx) error {
		var by string
		err := tx.QueryRowContext(ctx, l.q("SELECT send_id FROM once_ids WHERE id = ?"), o.ID).Scan(&by)
		if err == nil {
			return fmt.Errorf("once-only id %q was used by send %s already: %w", model.SanitizeLine(o.ID), by, ErrOnceUsed)
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		_, err = tx.ExecContext(ctx, l.q("INSERT INTO once_ids ("+onceColumns+") VALUES (?, ?, ?, ?, ?, ?, ?, ?)"),
			o.ID, o.SendID, o.Pairs, o.Count, o.Source, o.Time.Format(time.RFC3339Nano), o.Profile, o.Operator)
		return err
	})
}

// ForgetOnce takes back id's record for sendID: a send that could not
// start after its id was recorded sent nothing.
func (l *Ledger) ForgetOnce(ctx context.Context, id, sendID string) error {
	return l.withTx(ctx, "forgetting a once-only id", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, l.q("DELETE FROM once_ids WHERE id = ? AND send_id = ?"), id, sendID)
		return err
	})
}

// FreeOnceSend takes back every once-only id send sendID used (a
// scheduled send cancelled before its time sent nothing: its id may be
// used again) and returns them.
func (l *Ledger) FreeOnceSend(ctx context.Context, sendID string) ([]string, error) {
	var freed []string
	err := l.withTx(ctx, "freeing once-only ids", func(tx *sql.Tx) error {
		freed = nil
		rows, err := tx.QueryContext(ctx, l.q("DELETE FROM once_ids WHERE send_id = ? RETURNING id"), sendID)
		if err != nil {
			return err
		}
		defer closeRows(rows)
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return err
			}
			freed = append(freed, id)
		}
		return rows.Err()
	})
	return freed, err
}
