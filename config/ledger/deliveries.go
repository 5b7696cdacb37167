package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// Every message the service accepted has a row in deliveries, written in
// the transaction of the outcome record that accepted it: its delivery
// state (model.DeliveryState), moved only forward by the service's webhook
// events and the fallback poller, and the time each state arrived.

// DefaultDeliveryPollAfter is how long after its acceptance a message with
// no final state is first polled for (delivery_poll_after), unless the
// process says otherwise (SetDeliveryPollAfter).
const DefaultDeliveryPollAfter = 10 * time.Minute

// SetDeliveryPollAfter sets when a message accepted from now on is first
// due for the fallback poller: d after its acceptance (d ≤ 0: the default).
// What is written already keeps its time.
func (l *Ledger) SetDeliveryPollAfter(d time.Duration) {
	if d <= 0 {
		d = DefaultDeliveryPollAfter
	}
	l.pollAfter.Store(int64(d))
}

// deliveryPollAfter is the process's delivery_poll_after.
func (l *Ledger) deliveryPollAfter() time.Duration {
	if d := time.Duration(l.pollAfter.Load()); d > 0 {
		return d
	}
	return DefaultDeliveryPollAfter
}

// deliveryRow is a message accepted, as its deliveries row is first written.
type deliveryRow struct {
	sendID          string
	idx             int
	messageID       string
	account, sender string
	recipient       string
	state           model.DeliveryState
	acceptedAt, at  time.Time // at: when state arrived
	nextPoll        time.Time // zero: none (final)
}

// stateTimeColumn is the column that keeps when a state arrived ("" for
// pending: accepted_at).
func stateTimeColumn(s model.DeliveryState) string {
	switch s {
	case model.DeliverySent:
		return "sent_at"
	case model.DeliveryDelivered:
		return "delivered_at"
	case model.DeliveryFailed:
		return "failed_at"
	case model.DeliveryRejected:
		return "rejected_at"
	case model.DeliveryNoReport:
		return "no_report_at"
	}
	return ""
}

// deliveryInsert is the statement that writes n deliveries rows, each
// deliveryWidth arguments (deliveryArgs); a row the send has for that item
// already is left as it is (an item is accepted once).
func deliveryInsert(n int) string {
	tuple := marks(deliveryWidth)
	return `INSERT INTO deliveries (send_id, idx, message_id, account, sender, recipient, state, state_rank,
		accepted_at, sent_at, delivered_at, failed_at, rejected_at, no_report_at, updated_at, next_poll_at)
		VALUES ` + tuple + strings.Repeat(", "+tuple, n-1) + ` ON CONFLICT (send_id, idx) DO NOTHING`
}

const deliveryWidth = 16

// deliveryArgs are r's deliveryWidth arguments of deliveryInsert.
func deliveryArgs(r deliveryRow) []any {
	var times [5]int64 // sent, delivered, failed, rejected, no report
	for i, s := range []model.DeliveryState{model.DeliverySent, model.DeliveryDelivered, model.DeliveryFailed, model.DeliveryRejected, model.DeliveryNoReport} {
		if r.state == s {
			times[i] = nanos(r.at)
		}
	}
	updated := r.acceptedAt
	if r.at.After(updated) {
		updated = r.at
	}
	return []any{r.sendID, r.idx, r.messageID, r.account, r.sender, r.recipient, string(r.state), r.state.Rank(),
		nanos(r.acceptedAt), times[0], times[1], times[2], times[3], times[4], nanos(updated), nullNanos(r.nextPoll)}
}

// insertDeliveries writes rows in tx, as many to a statement as the
// backends allow.
func (l *Ledger) insertDeliveries(ctx context.Context, tx *sql.Tx, rows []deliveryRow) error {
	per := max(1, bulkParams/deliveryWidth)
	args := make([]any, 0, min(len(rows), per)*deliveryWidth)
	for batch := range slices.Chunk(rows, per) {
		args = args[:0]
		for _, r := range batch {
			args = append(args, deliveryArgs(r)...)
		}
		if _, err := tx.ExecContext(ctx, l.q(deliveryInsert(len(batch))), args...); err != nil {
			return err
		}
	}
	return nil
}

// Delivery is a deliveries row: one accepted message and where it stands.
type Delivery struct {
	SendID    string
	Index     int    // the item's index in the send's plan
	MessageID string // the service's ("" when it gave none)
	Account   string
	Sender    string // the line it went from
	Recipient string
	State     model.DeliveryState
	// The time each state arrived (zero until it did); AcceptedAt is the
	// outcome's, when the message was pending.
	AcceptedAt, SentAt, DeliveredAt, FailedAt, RejectedAt, NoReportAt time.Time
	Updated                                                           time.Time
	// NextPoll is when the fallback poller may ask about it next (zero:
	// never, its state is final); Polls counts its asks.
	NextPoll time.Time
	Polls    int
}

// At is when the message reached state s (zero if it never did).
func (d Delivery) At(s model.DeliveryState) time.Time {
	switch s {
	case model.DeliveryPending:
		return d.AcceptedAt
	case model.DeliverySent:
		return d.SentAt
	case model.DeliveryDelivered:
		return d.DeliveredAt
	case model.DeliveryFailed:
		return d.FailedAt
	case model.DeliveryRejected:
		return d.RejectedAt
	case model.DeliveryNoReport:
		return d.NoReportAt
	}
	return time.Time{}
}

const deliveryColumns = `send_id, idx, message_id, account, sender, recipient, state, accepted_at, sent_at, delivered_at,
	failed_at, rejected_at, no_report_at, updated_at, next_poll_at, polls`

// badRow is a row that does not read as what it should hold: the ledger is
// damaged (badRowOr).
type badRow string

func (e badRow) Error() string { return string(e) }

// badRowOr is err as the ledger's: a badRow damages it, anything else is
// what doing what failed.
func (l *Ledger) badRowOr(what string, err error) error {
	var bad badRow
	if errors.As(err, &bad) {
		return l.damaged(string(bad), err)
	}
	return l.fail(what, err)
}

// scanDelivery reads a row of deliveryColumns; a state this version does
// not know is a badRow.
func scanDelivery(sc interface{ Scan(...any) error }) (Delivery, error) {
	var d Delivery
	var state string
	var acc, sent, delivered, failed, rejected, noReport, updated int64
	var next sql.NullInt64
	if err := sc.Scan(&d.SendID, &d.Index, &d.MessageID, &d.Account, &d.Sender, &d.Recipient, &state, &acc, &sent, &delivered,
		&failed, &rejected, &noReport, &updated, &next, &d.Polls); err != nil {
		return Delivery{}, err
	}
	s, ok := model.ParseDeliveryState(state)
	if !ok {
		return Delivery{}, badRow(fmt.Sprintf("send %s item %d: its delivery state %q is not one this smsdesk knows", d.SendID, d.Index, model.SanitizeLine(state)))
	}
	d.State = s
	d.AcceptedAt, d.SentAt, d.DeliveredAt, d.FailedAt = fromNanos(acc), fromNanos(sent), fromNanos(delivered), fromNanos(failed)
	d.RejectedAt, d.NoReportAt, d.Updated, d.NextPoll = fromNanos(rejected), fromNanos(noReport), fromNanos(updated), fromNanos(next.Int64)
	return d, nil
}

// SendDeliveries are send id's deliveries rows, by item index: its
// accepted messages and where each stands (none for a send nothing of
// which was accepted).
func (l *Ledger) SendDeliveries(ctx context.Context, id string) ([]Delivery, error) {
	rows, err := l.db.QueryContext(ctx, l.q("SELECT "+deliveryColumns+" FROM deliveries WHERE send_id = ? ORDER BY idx"), id)
	if err != nil {
		return nil, l.fail("reading send "+id+"'s deliveries", err)
	}
	defer closeRows(rows)
	var out []Delivery
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, l.badRowOr("reading send "+id+"'s deliveries", err)
		}
		out = append(out, d)
	}
	return out, l.fail("reading send "+id+"'s deliveries", rows.Err())
}

// SendDeliveryPage is up to limit of send id's deliveries whose index is
// past after (-1: from the first), in index order: a report of 100,000
// messages reads them a page at a time, never all at once (issue 42 costs:
// SendDeliveries' 100,000 rows took the report to 300 MB), and no read
// stays open while the page is written out.
func (l *Ledger) SendDeliveryPage(ctx context.Context, id string, after, limit int) ([]Delivery, error) {
	rows, err := l.db.QueryContext(ctx, l.q("SELECT "+deliveryColumns+" FROM deliveries WHERE send_id = ? AND idx > ? ORDER BY idx LIMIT ?"), id, after, limit)
	if err != nil {
		return nil, l.fail("reading send "+id+"'s deliveries", err)
	}
	defer closeRows(rows)
	out := make([]Delivery, 0, limit)
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, l.badRowOr("reading send "+id+"'s deliveries", err)
		}
		out = append(out, d)
	}
	return out, l.fail("reading send "+id+"'s deliveries", rows.Err())
}

// canonicalNumber is a number as deliveries and the inbox keep it
// (model.OptOutKey: 09… for an Iranian mobile, whatever its spelling), so
// that a reply finds the send to it; a number that does not read as one is
// kept as it is.
func canonicalNumber(s string) string {
	if k, err := model.OptOutKey(s); err == nil {
		return k
	}
	return s
}
