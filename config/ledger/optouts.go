package ledger

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// The opt-out list is the ledger's, one for every profile, key and
// operator on it: a new key or another spelling of the service's host
// never starts from an empty list. An entry (mobile, sender) holds for one
// line, or with sender "" for every line; a number opted out for every
// line is not added again for one.

// OptOutChange is what AddOptOuts or RemoveOptOuts did: the entries
// changed, and those asked for that were already so (added before, or not
// in the list).
type OptOutChange struct {
	Changed []model.OptOut
	Already []model.OptOut
}

// AddOptOuts adds entries (their Mobile an model.OptOutKey) in one
// transaction. A number already opted out for every line, or for the same
// line, is left as it is (Already, as the list holds it).
func (l *Ledger) AddOptOuts(ctx context.Context, add []model.OptOut) (OptOutChange, error) {
	var ch OptOutChange
	err := l.withTx(ctx, "adding to the opt-out list", func(tx *sql.Tx) error {
		ch = OptOutChange{}
		for _, o := range add {
			row := tx.QueryRowContext(ctx, l.q("SELECT "+optOutColumns+" FROM optouts WHERE mobile = ? AND (sender = '' OR sender = ?) ORDER BY sender LIMIT 1"),
				o.Mobile, o.Sender)
			had, err := scanOptOut(row)
			switch {
			case err == nil && takesOverReply(had, o):
				if err := l.takeOverReply(ctx, tx, o); err != nil {
					return err
				}
				ch.Changed = append(ch.Changed, o)
				continue
			case err == nil:
				ch.Already = append(ch.Already, had)
				continue
			case !errors.Is(err, sql.ErrNoRows):
				return err
			}
			if err := insertOptOut(ctx, l, tx, o); err != nil {
				return err
			}
			ch.Changed = append(ch.Changed, o)
		}
		if len(ch.Changed) == 0 {
			return nil
		}
		return l.bumpOptOuts(ctx, tx) // every console showing these numbers marks them
	})
	return ch, err
}

// takesOverReply: an operator adds a number a reply put on the same
// line's list. The entry becomes the operator's, so that the recipient's
// «۱۲» no longer takes it back (issue 42 §5).
func takesOverReply(had, add model.OptOut) bool {
	return had.Source == model.OptOutReply && had.Sender == add.Sender &&
		(add.Source == "" || add.Source == model.OptOutOperator)
}

// takeOverReply makes the line's entry of o.Mobile o, the operator's.
func (l *Ledger) takeOverReply(ctx context.Context, tx *sql.Tx, o model.OptOut) error {
	_, err := tx.ExecContext(ctx, l.q("UPDATE optouts SET note = ?, added = ?, operator = ?, source = ?, message_id = '' WHERE mobile = ? AND sender = ?"),
		o.Note, o.Added.Format(time.RFC3339Nano), operatorJSON(o.Operator), model.OptOutOperator, o.Mobile, o.Sender)
	return err
}

// optOutColumns are what scanOptOut reads and insertOptOut writes;
// importColumns the five an import gives each entry (its source is
// always import).
const (
	optOutColumns = "mobile, sender, note, added, operator, source, message_id"
	importColumns = "mobile, sender, note, added, operator"
)

// insertOptOut adds o, its source operator unless it names another.
func insertOptOut(ctx context.Context, l *Ledger, tx *sql.Tx, o model.OptOut) error {
	source := o.Source
	if source == "" {
		source = model.OptOutOperator
	}
	_, err := tx.ExecContext(ctx, l.q("INSERT INTO optouts ("+optOutColumns+") VALUES (?, ?, ?, ?, ?, ?, ?)"),
		append(optOutArgs(o), source, o.MessageID)...)
	return err
}

// optOutArgs are o's importColumns.
func optOutArgs(o model.OptOut) []any {
	return []any{o.Mobile, o.Sender, o.Note, o.Added.Format(time.RFC3339Nano), operatorJSON(o.Operator)}
}

func operatorJSON(op *model.Operator) string {
	if op == nil {
		return ""
	}
	b, _ := json.Marshal(op)
	return string(b)
}

func scanOptOut(sc interface{ Scan(...any) error }) (model.OptOut, error) {
	var o model.OptOut
	var added, op string
	if err := sc.Scan(&o.Mobile, &o.Sender, &o.Note, &added, &op, &o.Source, &o.MessageID); err != nil {
		return model.OptOut{}, err
	}
	t, err := time.Parse(time.RFC3339Nano, added)
	if err != nil {
		return model.OptOut{}, fmt.Errorf("opt-out %s: its time %q does not parse", model.SanitizeLine(o.Mobile), model.SanitizeLine(added))
	}
	o.Added = t
	if op != "" {
		o.Operator = new(model.Operator)
		if err := json.Unmarshal([]byte(op), o.Operator); err != nil {
			return model.OptOut{}, fmt.Errorf("opt-out %s: its operator does not parse", model.SanitizeLine(o.Mobile))
		}
	}
	return o, nil
}

// RemoveOptOuts removes the entries of mobiles (OptOutKeys): for sender
// only, or every entry of the number when sender is "". A number with
// nothing to remove comes back in Already (Mobile and Sender as asked).
func (l *Ledger) RemoveOptOuts(ctx context.Context, mobiles []string, sender string) (OptOutChange, error) {
	var ch OptOutChange
	err := l.withTx(ctx, "removing from the opt-out list", func(tx *sql.Tx) error {
		ch = OptOutChange{}
		for _, m := range mobiles {
			cond, args := "mobile = ?", []any{m}
			if sender != "" {
				cond, args = "mobile = ? AND sender = ?", []any{m, sender}
			}
			gone, err := l.scanOptOuts(tx.QueryContext(ctx, l.q("SELECT "+optOutColumns+" FROM optouts WHERE "+cond+" ORDER BY sender"), args...))
			if err != nil {
				return err
			}
			if len(gone) == 0 {
				ch.Already = append(ch.Already, model.OptOut{Mobile: m, Sender: sender})
				continue
			}
			if _, err := tx.ExecContext(ctx, l.q("DELETE FROM optouts WHERE "+cond), args...); err != nil {
				return err
			}
			ch.Changed = append(ch.Changed, gone...)
		}
		if len(ch.Changed) == 0 {
			return nil
		}
		return l.bumpOptOuts(ctx, tx)
	})
	return ch, err
}

// scanOptOuts reads every row of a query of optOutColumns; a row that does
// not parse is a damaged ledger.
func (l *Ledger) scanOptOuts(rows *sql.Rows, err error) ([]model.OptOut, error) {
	if err != nil {
		return nil, err
	}
	defer closeRows(rows)
	var out []model.OptOut
	for rows.Next() {
		o, err := scanOptOut(rows)
		if err != nil {
			return nil, l.damaged(err.Error(), err)
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

// lookupBatch is how many numbers one lookup query names.
const lookupBatch = 500

// LookupOptOuts returns the entries (every line's and one line's) of the
// numbers given (OptOutKeys): what a plan of them needs to know, read by
// the primary key, never the whole list. The numbers are held once more,
// sorted (neighbouring numbers share the index's pages), and looked up
// lookupBatch at a time; an empty list answers at once. (A map and a
// slice of them boxed took a million-row dry run from 319 to 464 MB.)
func (l *Ledger) LookupOptOuts(ctx context.Context, mobiles []string) ([]model.OptOut, error) {
	var listed bool
	if err := l.db.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM optouts)").Scan(&listed); err != nil {
		return nil, l.fail("reading the opt-out list", err)
	}
	if !listed || len(mobiles) == 0 {
		return nil, nil
	}
	keys := slices.Clone(mobiles)
	slices.Sort(keys)
	keys = slices.Compact(keys)
	if keys[0] == "" {
		keys = keys[1:]
	}
	var out []model.OptOut
	batch := make([]any, lookupBatch)
	for len(keys) > 0 {
		n := min(len(keys), lookupBatch)
		for i, k := range keys[:n] {
			batch[i] = k
		}
		keys = keys[n:]
		found, err := l.scanOptOuts(l.db.QueryContext(ctx,
			l.q("SELECT "+optOutColumns+" FROM optouts WHERE mobile IN "+marks(n)), batch[:n]...))
		if err != nil {
			return nil, l.fail("reading the opt-out list", err)
		}
		out = append(out, found...)
	}
	return out, nil
}

// ListOptOuts returns a page of the list, by number then line (limit 0:
// all of it).
func (l *Ledger) ListOptOuts(ctx context.Context, limit, offset int) ([]model.OptOut, error) {
	query, args := "SELECT "+optOutColumns+" FROM optouts ORDER BY mobile, sender", []any(nil)
	if limit > 0 {
		query += " LIMIT ? OFFSET ?"
		args = []any{limit, offset}
	}
	out, err := l.scanOptOuts(l.db.QueryContext(ctx, l.q(query), args...))
	return out, l.fail("reading the opt-out list", err)
}

// CountOptOuts counts the list's entries.
func (l *Ledger) CountOptOuts(ctx context.Context) (int, error) {
	var n int
	err := l.db.QueryRowContext(ctx, "SELECT count(*) FROM optouts").Scan(&n)
	return n, l.fail("counting the opt-out list", err)
}

// ImportResult is what ImportOptOuts did: entries read, added, and
// already on the list (for every line, or the same line).
type ImportResult struct {
	Read, Added, Already int
}

// importBatch is how many entries one statement of an import inserts
// (five parameters each: far below both backends' limits).
const importBatch = 1000

// ImportOptOuts adds every entry entries yields (their Mobile an
// OptOutKey) in one transaction, in batches of multi-row inserts, and
// writes audit's record of the whole import in the same transaction: all
// of it, or none (an error from entries rolls it back). Memory does not
// grow with the import: one batch is held at a time. entries must be read
// and checked already (a local copy: config.OptOutSpool), and may be
// ranged over again: the transaction must not wait on an import's input,
// and is tried again if it meets another writer.
func (l *Ledger) ImportOptOuts(ctx context.Context, entries iter.Seq2[model.OptOut, error], audit func(ImportResult) AuditEntry) (ImportResult, error) {
	if bulk, ok := l.d.(bulkLoader); ok {
		return bulk.importOptOuts(ctx, l, entries, audit)
	}
	var res ImportResult
	err := l.withTx(ctx, "importing to the opt-out list", func(tx *sql.Tx) error {
		res = ImportResult{}
		full, err := tx.PrepareContext(ctx, l.q(importStatement(importBatch)))
		if err != nil {
			return err
		}
		defer func() { _ = full.Close() }() // read only: a close error loses nothing
		args := make([]any, 0, 5*importBatch)
		flush := func() error {
			if len(args) == 0 {
				return nil
			}
			var r sql.Result
			var err error
			if len(args) == 5*importBatch {
				r, err = full.ExecContext(ctx, args...)
			} else {
				r, err = tx.ExecContext(ctx, l.q(importStatement(len(args)/5)), args...)
			}
			if err != nil {
				return err
			}
			n, err := r.RowsAffected()
			res.Added += int(n)
			args = args[:0]
			return err
		}
		for o, err := range entries {
			if err != nil {
				return err
			}
			res.Read++
			args = append(args, optOutArgs(o)...)
			if len(args) == 5*importBatch {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		if err := flush(); err != nil {
			return err
		}
		res.Already = res.Read - res.Added
		if res.Added > 0 {
			if err := l.bumpOptOuts(ctx, tx); err != nil {
				return err
			}
		}
		if audit != nil {
			return l.appendAudit(ctx, tx, audit(res))
		}
		return nil
	})
	return res, err
}

// importStatement inserts n entries (source import), leaving out those the
// list holds for every line or for the same line.
func importStatement(n int) string {
	return "INSERT INTO optouts (" + importColumns + ", source) SELECT column1, column2, column3, column4, column5, 'import' FROM (VALUES (?, ?, ?, ?, ?)" +
		strings.Repeat(", (?, ?, ?, ?, ?)", n-1) + ") AS v WHERE NOT EXISTS (SELECT 1 FROM optouts o WHERE o.mobile = v.column1 AND (o.sender = '' OR o.sender = v.column2)) ON CONFLICT DO NOTHING"
}

// bulkLoader is a dialect with a faster import than batched inserts
// (PostgreSQL's COPY).
type bulkLoader interface {
	importOptOuts(ctx context.Context, l *Ledger, entries iter.Seq2[model.OptOut, error], audit func(ImportResult) AuditEntry) (ImportResult, error)
}

// importFromStaging adds the entries of the table optouts_import that the
// list does not hold for every line or the same line.
const importFromStaging = "INSERT INTO optouts (" + importColumns + ", source) SELECT mobile, sender, note, added, operator, 'import' FROM optouts_import v " +
	"WHERE NOT EXISTS (SELECT 1 FROM optouts o WHERE o.mobile = v.mobile AND (o.sender = '' OR o.sender = v.sender)) ON CONFLICT DO NOTHING"
