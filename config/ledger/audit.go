package ledger

import (
	"context"
	"database/sql"
	"strings"
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
	return l.readAudit(ctx, query, args)
}

// readAudit runs a query of the audit table's seq, at, action and body.
func (l *Ledger) readAudit(ctx context.Context, query string, args []any) ([]AuditEntry, error) {
	rows, err := l.db.QueryContext(ctx, l.q(query), args...)
	if err != nil {
		return nil, l.fail("reading the audit trail", err)
	}
	defer closeRows(rows)
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

// AuditPage returns up to n records of the trail newest first: those
// before seq before (0: from the newest) written at or after since (zero:
// any time). It walks the table's primary key backwards (seq, the order
// records were written), so that the newest page costs the same at 100
// records as at 100,000. There is no index of the time: a since that
// keeps few records reads back until it has n or reaches the trail's
// start (BenchmarkAuditPage: BENCHMARKS.md). n must be positive.
func (l *Ledger) AuditPage(ctx context.Context, before int64, since time.Time, n int) ([]AuditEntry, error) {
	query, args := auditPageQuery(before, since, n)
	return l.readAudit(ctx, query, args)
}

// auditPageQuery is AuditPage's query and its arguments.
func auditPageQuery(before int64, since time.Time, n int) (string, []any) {
	query, args := "SELECT seq, at, action, body FROM audit", []any{}
	var conds []string
	if before > 0 {
		conds, args = append(conds, "seq < ?"), append(args, before)
	}
	if !since.IsZero() {
		conds, args = append(conds, "at >= ?"), append(args, nanos(since))
	}
	if len(conds) > 0 {
		query += " WHERE " + strings.Join(conds, " AND ")
	}
	return query + " ORDER BY seq DESC LIMIT ?", append(args, n)
}
