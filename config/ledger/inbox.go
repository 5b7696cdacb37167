package ledger

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// fileInbound files an inbound message (an sms.inbound event, e) in the
// inbox, in the transaction that stores its event, linked to the last send
// from that line to that number. It is the one place a reply is acted on:
// what it does to the opt-out list is decided here, in the same
// transaction (actOnReply; the inbox row's action says what it did:
// opted_out, opted_in, or "" for a reply that changes nothing). It
// returns the inbox row's seq.
func (l *Ledger) fileInbound(ctx context.Context, tx *sql.Tx, e Event) (int64, error) {
	m := e.Inbound
	sendID, err := l.lastSendTo(ctx, tx, e.Account, m.Sender, m.Line)
	if err != nil {
		return 0, err
	}
	action, err := l.actOnReply(ctx, tx, e)
	if err != nil {
		return 0, err
	}
	var seq int64
	err = tx.QueryRowContext(ctx, l.q(`INSERT INTO inbox (account, profile, message_id, sender, line, message, occurred_at, received_at,
		action, send_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq`),
		e.Account, e.Profile, e.MessageID, m.Sender, m.Line, m.Message, nanos(e.OccurredAt), nanos(e.ReceivedAt), string(action), nullString(sendID)).
		Scan(&seq)
	return seq, err
}

// lastSendTo is the last send of the account from line to number that the
// service accepted ("" when there is none).
func (l *Ledger) lastSendTo(ctx context.Context, tx *sql.Tx, account, number, line string) (string, error) {
	var id string
	err := tx.QueryRowContext(ctx, l.q(`SELECT send_id FROM deliveries WHERE account = ? AND recipient = ? AND sender = ?
		ORDER BY accepted_at DESC, send_id DESC LIMIT 1`), account, number, line).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return id, err
}

// InboxMessage is one message of the inbox.
type InboxMessage struct {
	Seq                    int64
	Account, Profile       string
	MessageID              string
	Sender, Line, Message  string
	OccurredAt, ReceivedAt time.Time
	// Action is what it did to the opt-out list: "opted_out", "opted_in"
	// or "".
	Action string
	// SendID is the last send from Line to Sender before it ("" if none).
	SendID string
}

// InboxMessages are account's inbox, newest first (limit 0: all of it).
func (l *Ledger) InboxMessages(ctx context.Context, account string, limit int) ([]InboxMessage, error) {
	return l.Inbox(ctx, account, InboxFilter{Limit: limit})
}

// InboxFilter chooses messages of the inbox: received at Since or later
// (zero: any time), written to Line ("": any line), at most Limit (0: all).
type InboxFilter struct {
	Since time.Time
	Line  string
	Limit int
}

// Inbox are the messages of account's inbox f chooses, newest first.
func (l *Ledger) Inbox(ctx context.Context, account string, f InboxFilter) ([]InboxMessage, error) {
	query, args := `SELECT seq, account, profile, message_id, sender, line, message, occurred_at, received_at, action, send_id
		FROM inbox WHERE account = ?`, []any{account}
	if !f.Since.IsZero() {
		query += " AND received_at >= ?"
		args = append(args, nanos(f.Since))
	}
	if f.Line != "" {
		query += " AND line = ?"
		args = append(args, f.Line)
	}
	query += " ORDER BY received_at DESC, seq DESC"
	if f.Limit > 0 {
		query += " LIMIT ?"
		args = append(args, f.Limit)
	}
	rows, err := l.db.QueryContext(ctx, l.q(query), args...)
	if err != nil {
		return nil, l.fail("reading the inbox", err)
	}
	defer closeRows(rows)
	var out []InboxMessage
	for rows.Next() {
		var m InboxMessage
		var occurred, received int64
		var sendID sql.NullString
		if err := rows.Scan(&m.Seq, &m.Account, &m.Profile, &m.MessageID, &m.Sender, &m.Line, &m.Message, &occurred, &received,
			&m.Action, &sendID); err != nil {
			return nil, l.fail("reading the inbox", err)
		}
		m.OccurredAt, m.ReceivedAt, m.SendID = fromNanos(occurred), fromNanos(received), sendID.String
		out = append(out, m)
	}
	return out, l.fail("reading the inbox", rows.Err())
}
