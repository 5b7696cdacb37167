package ledger

import (
	"context"
	"database/sql"
	"time"
)

// AuditEntry is one record of the audit trail: the changes smsdesk made
// besides sending (config.AuditRecord's JSON is Body).
type AuditEntry struct {
	Seq    int64 // its place in the trail (0 before it is written)
	Time   time.Time
	Action string
	Body   []byte
}

// AppendAudit adds one record to the audit trail, committed when it returns.
func (l *Ledger) AppendAudit(ctx context.Context, e AuditEntry) error {
	return l.withTx(ctx, "writing the audit trail", func(tx *sql.Tx) error { return l.appendAudit(ctx, tx, e) })
}

func (l *Ledger) appendAudit(ctx context.Context, tx *sql.Tx, e AuditEntry) error {
	_, err := tx.ExecContext(ctx, l.q("INSERT INTO audit (at, action, body) VALUES (?, ?, ?)"), nanos(e.Time), e.Action, string(e.Body))
	return err
}

// ListAudit returns up to limit records after seq after, oldest first
// (limit 0: all of them).
func (l *Ledger) ListAudit(ctx context.Context, after int64, limit int) ([]AuditEntry, error) {
	query, args := "SELECT seq, at, action, body FROM audit WHERE seq > ? ORDER BY seq", []any{after}
	if limit > 0 {
		query += " LIMIT ?"
		args = append(args, limit)
	}
	rows, err := l.db.QueryContext(ctx, l.q(query), args...)
	if err != nil {
		return nil, l.fail("reading the audit trail", err)
	}
	defer rows.Close()
	var out []AuditEntry
	for rows.Next() {
		var e AuditEntry
		var at int64
		var body string
		if err := rows.Scan(&e.Seq, &at, &e.Action, &body); err != nil {
			return nil, l.fail("reading the audit trail", err)
		}
		e.Time, e.Body = fromNanos(at), []byte(body)
		out = append(out, e)
	}
	return out, l.fail("reading the audit trail", rows.Err())
}
