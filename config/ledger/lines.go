package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// The kinds of an account's lines (issue 42 §6), in the lines table of
// schema version 2: a row per line that has one; a line without a row
// keeps the profile's settings.

// LineKind is one line's recorded kind: when and by whom it was set
// (Operator: the operator's JSON, "" at a local terminal).
type LineKind struct {
	Account, Line string
	Kind          model.LineKind
	SetAt         time.Time
	Operator      string
}

// LineKindChange is a line's kind to record (Kind "": remove it), with
// who and when.
type LineKindChange struct {
	Account, Line string
	Kind          model.LineKind
	At            time.Time
	Operator      *model.Operator
}

// SetLineKind records ch (or, with Kind "", removes the line's kind) and,
// in the same transaction, the audit entry audit makes of the kind the
// line had before ("" for none): the change and its record are kept
// together or not at all. It returns the kind the line had before.
func (l *Ledger) SetLineKind(ctx context.Context, ch LineKindChange, audit func(was model.LineKind) AuditEntry) (model.LineKind, error) {
	var was model.LineKind
	err := l.withTx(ctx, "recording a line's kind", func(tx *sql.Tx) error {
		var k string
		err := tx.QueryRowContext(ctx, l.q("SELECT kind FROM lines WHERE account = ? AND line = ?"), ch.Account, ch.Line).Scan(&k)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			k = ""
		case err != nil:
			return err
		}
		was = model.LineKind(k)
		if ch.Kind == "" {
			_, err = tx.ExecContext(ctx, l.q("DELETE FROM lines WHERE account = ? AND line = ?"), ch.Account, ch.Line)
		} else {
			_, err = tx.ExecContext(ctx, l.q(`INSERT INTO lines (account, line, kind, set_at, operator) VALUES (?, ?, ?, ?, ?)
				ON CONFLICT (account, line) DO UPDATE SET kind = excluded.kind, set_at = excluded.set_at, operator = excluded.operator`),
				ch.Account, ch.Line, string(ch.Kind), nanos(ch.At), operatorJSON(ch.Operator))
		}
		if err != nil || audit == nil {
			return err
		}
		return l.appendAudit(ctx, tx, audit(was))
	})
	return was, err
}

// LineKindOf is the kind recorded for account's line ("" when none). A
// kind this smsdesk does not know is refused, never read as none: a line
// whose rules cannot be told does not send.
func (l *Ledger) LineKindOf(ctx context.Context, account, line string) (model.LineKind, error) {
	var k string
	err := l.db.QueryRowContext(ctx, l.q("SELECT kind FROM lines WHERE account = ? AND line = ?"), account, line).Scan(&k)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "", nil
	case err != nil:
		return "", l.fail("reading a line's kind", err)
	}
	return checkKind(line, k)
}

// checkKind is a stored kind read, or why it is damaged.
func checkKind(line, k string) (model.LineKind, error) {
	kind, err := model.ParseLineKind(k)
	if err != nil || string(kind) != k {
		return "", fmt.Errorf("the ledger's kind of line %s is %q, which this smsdesk does not know: set it again (smsdesk lines set %s --kind service|advertising)",
			model.SanitizeLine(line), model.SanitizeLine(k), model.SanitizeLine(line))
	}
	return kind, nil
}

// LineKinds are account's recorded kinds, by line.
func (l *Ledger) LineKinds(ctx context.Context, account string) ([]LineKind, error) {
	rows, err := l.db.QueryContext(ctx, l.q("SELECT account, line, kind, set_at, operator FROM lines WHERE account = ? ORDER BY line"), account)
	if err != nil {
		return nil, l.fail("reading the kinds of lines", err)
	}
	defer closeRows(rows)
	var out []LineKind
	for rows.Next() {
		var k LineKind
		var kind string
		var at int64
		if err := rows.Scan(&k.Account, &k.Line, &kind, &at, &k.Operator); err != nil {
			return nil, l.fail("reading the kinds of lines", err)
		}
		if k.Kind, err = checkKind(k.Line, kind); err != nil {
			return nil, err
		}
		k.SetAt = fromNanos(at)
		out = append(out, k)
	}
	return out, l.fail("reading the kinds of lines", rows.Err())
}

// SendLines are the sender lines account's sends by profile went from,
// each once, in order.
func (l *Ledger) SendLines(ctx context.Context, account, profile string) ([]string, error) {
	rows, err := l.db.QueryContext(ctx, l.q("SELECT DISTINCT sender FROM sends WHERE account = ? AND profile = ? ORDER BY sender"), account, profile)
	if err != nil {
		return nil, l.fail("reading the lines of sends", err)
	}
	defer closeRows(rows)
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, l.fail("reading the lines of sends", err)
		}
		out = append(out, s)
	}
	return out, l.fail("reading the lines of sends", rows.Err())
}
