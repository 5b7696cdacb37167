package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// The service tells what happened to a message by webhook: sms.sent,
// sms.delivered, sms.failed (with "status": "rejected" when it refused the
// message after accepting it) and sms.inbound (a recipient wrote to a
// line). It gives no event id and no retry policy: an event is identified
// by (account, message_id, event), may come twice, late, out of order, and
// before the outcome record that accepted its message is written.
// RecordEvents stores each with that identity (a repeat changes nothing)
// and applies it in the same transaction: a delivery event moves its
// message's deliveries row forward, never back; one whose message has no
// row yet is kept unmatched and applied when the outcome writes the row
// (matchEvents); an inbound message is filed in the inbox (fileInbound).

// Event kinds, as the service names them.
const (
	EventSent      = "sms.sent"
	EventDelivered = "sms.delivered"
	EventFailed    = "sms.failed"
	EventInbound   = "sms.inbound"
)

// Event is one webhook event, checked and read (RecordEvents stores it).
type Event struct {
	Account   string // the account of the profile it was posted for
	Profile   string
	MessageID string
	Kind      string // EventSent, EventDelivered, EventFailed or EventInbound
	Status    string // "rejected", or "" (another word is kept as it is)
	Recipient string
	// OccurredAt is the service's time for it (zero: not given, or not a
	// time); ReceivedAt is when it arrived.
	OccurredAt, ReceivedAt time.Time
	Body                   []byte // the raw JSON, as posted
	// Inbound is an sms.inbound event's message.
	Inbound *Inbound
}

// Inbound is a message a recipient wrote to one of the account's lines.
type Inbound struct {
	Sender  string // the mobile that wrote (canonical: model.OptOutKey when it reads as one)
	Line    string // the line it wrote to
	Message string
}

// DeliveryState is the delivery state a delivery event tells (ok false for
// an inbound message, or a kind this version does not know).
func (e Event) DeliveryState() (model.DeliveryState, bool) {
	switch e.Kind {
	case EventSent:
		return model.DeliverySent, true
	case EventDelivered:
		return model.DeliveryDelivered, true
	case EventFailed:
		if e.Status == "rejected" {
			return model.DeliveryRejected, true
		}
		return model.DeliveryFailed, true
	}
	return "", false
}

// at is when the event's state arrived: the service's time when it gave
// one, else when it was received.
func (e Event) at() time.Time {
	if !e.OccurredAt.IsZero() {
		return e.OccurredAt
	}
	return e.ReceivedAt
}

// EventResult is what recording one event did.
type EventResult struct {
	// Duplicate: the ledger had the event already (the service sent it
	// again): nothing changed.
	Duplicate bool
	// SendID is the send of the message it is about; "" while unmatched
	// (no message of smsdesk's has its id yet) and for an inbound message.
	SendID string
	// Moved: the message's delivery state moved forward.
	Moved bool
	// Inbox is an inbound message's place in the inbox (its seq).
	Inbox int64
}

// RecordEvents stores events, and applies each, in one transaction,
// committed before it returns (a receiver answers the service only then):
// all of them, or none. Several events in one transaction are what a
// receiver's group commit gathers (one commit, one sync of the disk, for
// what arrived together); a batch that fails is best tried again one event
// at a time, so that one event the ledger refuses holds up no other.
func (l *Ledger) RecordEvents(ctx context.Context, events []Event) ([]EventResult, error) {
	out := make([]EventResult, len(events))
	err := l.withTx(ctx, "recording webhook events", func(tx *sql.Tx) error {
		clear(out)
		if err := l.lockAccounts(ctx, tx, eventAccounts(events)); err != nil {
			return err
		}
		moved, filed := false, false
		for i, e := range events {
			r, err := l.recordEvent(ctx, tx, e)
			if err != nil {
				return fmt.Errorf("event %s of message %s: %w", model.SanitizeLine(e.Kind), model.SanitizeLine(e.MessageID), err)
			}
			out[i] = r
			moved = moved || r.Moved
			filed = filed || r.Inbox > 0
		}
		if moved {
			if err := l.bumpCounter(ctx, tx, counterDeliveries); err != nil {
				return err
			}
		}
		if filed {
			return l.bumpCounter(ctx, tx, counterInbox)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// eventAccounts are the accounts of events.
func eventAccounts(events []Event) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.Account
	}
	return out
}

// recordEvent stores e in tx and applies it.
func (l *Ledger) recordEvent(ctx context.Context, tx *sql.Tx, e Event) (EventResult, error) {
	if e.Account == "" || e.MessageID == "" || e.Kind == "" {
		return EventResult{}, errors.New("an event needs its account, message id and kind")
	}
	state, isDelivery := e.DeliveryState()
	var rows []deliveryKey
	if isDelivery {
		var err error
		if rows, err = l.deliveriesOf(ctx, tx, e.Account, e.MessageID); err != nil {
			return EventResult{}, err
		}
	}
	r, err := l.storeEvent(ctx, tx, e, rows)
	if err != nil || r.Duplicate {
		return r, err
	}
	if e.Kind == EventInbound && e.Inbound != nil {
		r.Inbox, err = l.fileInbound(ctx, tx, e)
		return r, err
	}
	for _, k := range rows {
		moved, err := l.moveDelivery(ctx, tx, k, state, e.at())
		if err != nil {
			return r, err
		}
		r.Moved = r.Moved || moved
	}
	return r, nil
}

// storeEvent inserts e, matched to the send of rows (its message's
// deliveries rows; empty for an inbound message, NULL when there are none):
// Duplicate when the ledger has the event already.
func (l *Ledger) storeEvent(ctx context.Context, tx *sql.Tx, e Event, rows []deliveryKey) (EventResult, error) {
	matched := sql.NullString{Valid: e.Kind == EventInbound}
	if len(rows) > 0 {
		matched = sql.NullString{String: rows[0].sendID, Valid: true}
	}
	res, err := tx.ExecContext(ctx, l.q(`INSERT INTO events (account, profile, message_id, event, status, recipient, occurred_at,
		received_at, body, matched) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (account, message_id, event) DO NOTHING`),
		e.Account, e.Profile, e.MessageID, e.Kind, e.Status, e.Recipient, nanos(e.OccurredAt), nanos(e.ReceivedAt), e.Body, matched)
	if err != nil {
		return EventResult{}, err
	}
	n, err := res.RowsAffected()
	if err != nil || n == 0 {
		return EventResult{Duplicate: err == nil}, err
	}
	return EventResult{SendID: matched.String}, nil
}

// deliveryKey names a deliveries row.
type deliveryKey struct {
	sendID string
	idx    int
}

// deliveriesOf are the rows of account's message id (one, but for a
// service that gave two messages one id).
func (l *Ledger) deliveriesOf(ctx context.Context, tx *sql.Tx, account, messageID string) ([]deliveryKey, error) {
	rows, err := tx.QueryContext(ctx, l.q("SELECT send_id, idx FROM deliveries WHERE account = ? AND message_id = ? ORDER BY send_id, idx"),
		account, messageID)
	if err != nil {
		return nil, err
	}
	defer closeRows(rows)
	var out []deliveryKey
	for rows.Next() {
		var k deliveryKey
		if err := rows.Scan(&k.sendID, &k.idx); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// moveDelivery moves row k to state, which arrived at at, if that is
// forward (a higher rank): the state's time is kept, and a final state
// ends its polling. It reports whether the row moved.
func (l *Ledger) moveDelivery(ctx context.Context, tx *sql.Tx, k deliveryKey, state model.DeliveryState, at time.Time) (bool, error) {
	col := stateTimeColumn(state)
	if col == "" {
		return false, nil // pending: nothing moves to it
	}
	poll := "next_poll_at"
	if state.Final() {
		poll = "NULL"
	}
	res, err := tx.ExecContext(ctx, l.q(`UPDATE deliveries SET state = ?, state_rank = ?, `+col+` = ?, updated_at = ?, next_poll_at = `+poll+`
		WHERE send_id = ? AND idx = ? AND state_rank < ?`),
		string(state), state.Rank(), nanos(at), nanos(at), k.sendID, k.idx, state.Rank())
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// bumpCounter moves the named counter on and tells other processes'
// watches once tx commits (a watcher of deliveries or the inbox polls it on
// SQLite; PostgreSQL's watchers are woken by the NOTIFY).
func (l *Ledger) bumpCounter(ctx context.Context, tx *sql.Tx, name string) error {
	if _, err := tx.ExecContext(ctx, l.q("UPDATE counters SET value = value + 1 WHERE name = ?"), name); err != nil {
		return err
	}
	return l.d.notify(ctx, tx)
}

// lockAccounts takes tx's locks on the accounts' deliveries and events, in
// one order (no two transactions wait for each other). Every transaction
// that writes deliveries rows from an outcome, or stores events, takes it
// first: on PostgreSQL an event stored unmatched and the outcome that
// writes its message's row, at once in two transactions, would otherwise
// each miss the other (neither sees what the other has not committed), and
// the event would stay unmatched. On SQLite one writer at a time is so
// already.
func (l *Ledger) lockAccounts(ctx context.Context, tx *sql.Tx, accounts []string) error {
	keys := make([]int64, 0, len(accounts))
	for _, a := range accounts {
		keys = append(keys, accountLockKey(a))
	}
	slices.Sort(keys)
	for _, k := range slices.Compact(keys) {
		if err := l.d.lockAccount(ctx, tx, k); err != nil {
			return err
		}
	}
	return nil
}
