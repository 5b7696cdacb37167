package ledger

import (
	"context"
	"database/sql"
)

// StoredEvent is a webhook event as the ledger keeps it.
type StoredEvent struct {
	Seq int64
	Event
	// Matched is the send of the message it is about ("" for an inbound
	// message); Unmatched: no message of smsdesk's has its id (yet).
	Matched   string
	Unmatched bool
}

// EventQuery picks stored events: the account's (Account ""), of one
// message (MessageID), only unmatched ones, newest first, at most Limit (0:
// all).
type EventQuery struct {
	Account   string
	MessageID string
	Unmatched bool
	Limit     int
}

// ListEvents returns the stored events q picks, newest first.
func (l *Ledger) ListEvents(ctx context.Context, q EventQuery) ([]StoredEvent, error) {
	query, args := `SELECT seq, account, profile, message_id, event, status, recipient, occurred_at, received_at, body, matched
		FROM events WHERE account = ?`, []any{q.Account}
	if q.MessageID != "" {
		query, args = query+" AND message_id = ?", append(args, q.MessageID)
	}
	if q.Unmatched {
		query += " AND matched IS NULL"
	}
	query += " ORDER BY seq DESC"
	if q.Limit > 0 {
		query, args = query+" LIMIT ?", append(args, q.Limit)
	}
	rows, err := l.db.QueryContext(ctx, l.q(query), args...)
	if err != nil {
		return nil, l.fail("reading the webhook events", err)
	}
	defer closeRows(rows)
	var out []StoredEvent
	for rows.Next() {
		var e StoredEvent
		var occurred, received int64
		var matched sql.NullString
		if err := rows.Scan(&e.Seq, &e.Account, &e.Profile, &e.MessageID, &e.Kind, &e.Status, &e.Recipient, &occurred, &received,
			&e.Body, &matched); err != nil {
			return nil, l.fail("reading the webhook events", err)
		}
		e.OccurredAt, e.ReceivedAt = fromNanos(occurred), fromNanos(received)
		e.Matched, e.Unmatched = matched.String, !matched.Valid
		out = append(out, e)
	}
	return out, l.fail("reading the webhook events", rows.Err())
}
