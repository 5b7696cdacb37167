package ledger

// Which sends: the queries of history pages, due sends and single
// summaries, over the summary rows the appends keep.

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// SendQuery selects sends for ListSends, newest first (plan time, then id).
type SendQuery struct {
	// Limit is the page size (0: every send); Offset skips that many.
	Limit, Offset int
	// States keeps only sends in these states (none: every state).
	States []State
	// Profile keeps only the profile's sends ("" every profile's).
	Profile string
	// Hosts keeps only the sends to these services (model.ServiceHost;
	// "" for a send that does not name its service). None: every send.
	Hosts []string
	// Since keeps only the sends planned at or after it (zero: any).
	Since time.Time
	// Due keeps only the sends a runner is to start or continue (waiting
	// or held: their due time is set), soonest due first, read from the
	// due index: a query of waiting sends with Due reads those few rows,
	// without it every row.
	Due bool
	// Leased keeps only the sends a lease was taken on and not released
	// (Send.Leased says whether it is live): those a run may hold.
	Leased bool
	// IDPrefix keeps only the sends whose id begins with it (a shell's
	// completion of a send id).
	IDPrefix string
	// Before keeps only the sends after Before in the history's order
	// (older: planned earlier, or at the same time with a lesser id), the
	// next page down; After those before it (newer), listed oldest first:
	// the page up, read from the history index from After on. Pages are
	// read by their key, not an offset: a page at the end of 100,000 sends
	// costs what the first does.
	Before, After *SendKey
	// Oldest lists the sends oldest first (the history index read from its
	// end): the last page of the history, with Limit.
	Oldest bool
	// Match keeps only the sends whose id, profile, sender, source or
	// operator contains it (ASCII letters in any case). It is read from the
	// summary rows in the history index's order, no send replayed: a Match
	// that few sends have reads every row.
	Match string
}

// SendKey is a send's place in the history's order: its plan time, then
// its id (Send.Key).
type SendKey struct {
	PlanTime time.Time
	ID       string
}

// Key is the send's place in the history's order.
func (s Send) Key() SendKey { return SendKey{PlanTime: s.PlanTime, ID: s.ID} }

// ListSends returns a page of send summaries, newest first (with Due:
// soonest due first), from the history index (the due index): no send is
// replayed.
func (l *Ledger) ListSends(ctx context.Context, q SendQuery) ([]Send, error) {
	query, args := q.list(l.sendColumns(""))
	return l.querySends(ctx, "listing sends", query, args...)
}

// list is ListSends' statement, selecting cols.
func (q SendQuery) list(cols string) (string, []any) {
	where, args := q.where()
	order := " ORDER BY plan_time DESC, id DESC"
	switch {
	case q.Due:
		order = " ORDER BY due_at, id" // the due index's order
	case q.After != nil || q.Oldest:
		order = " ORDER BY plan_time, id" // the history index read backwards
	}
	query := "SELECT " + cols + " FROM sends" + where + order
	if q.Limit > 0 {
		query += " LIMIT ? OFFSET ?"
		args = append(args, q.Limit, q.Offset)
	}
	return query, args
}

// CountSends counts the sends q selects (its Limit and Offset aside).
func (l *Ledger) CountSends(ctx context.Context, q SendQuery) (int, error) {
	where, args := q.where()
	var n int
	err := l.db.QueryRowContext(ctx, l.q("SELECT count(*) FROM sends"+where), args...).Scan(&n)
	return n, l.fail("counting sends", err)
}

func (q SendQuery) where() (string, []any) {
	conds := []string{"records > 0"} // not a reserved send
	var args []any
	if q.Due {
		conds = append(conds, "due_at IS NOT NULL")
	}
	if len(q.States) > 0 {
		conds = append(conds, "state IN "+marks(len(q.States)))
		for _, s := range q.States {
			args = append(args, string(s))
		}
	}
	if q.Profile != "" {
		conds = append(conds, "profile = ?")
		args = append(args, q.Profile)
	}
	if len(q.Hosts) > 0 {
		conds = append(conds, "host IN "+marks(len(q.Hosts)))
		for _, h := range q.Hosts {
			args = append(args, h)
		}
	}
	if !q.Since.IsZero() {
		conds = append(conds, "plan_time >= ?")
		args = append(args, q.Since.UnixNano())
	}
	if q.Leased {
		conds = append(conds, "lease_token IS NOT NULL")
	}
	if q.IDPrefix != "" {
		conds = append(conds, "substr(id, 1, ?) = ?")
		args = append(args, len(q.IDPrefix), q.IDPrefix)
	}
	if k := q.Before; k != nil {
		conds = append(conds, "(plan_time, id) < (?, ?)")
		args = append(args, k.PlanTime.UnixNano(), k.ID)
	}
	if k := q.After; k != nil {
		conds = append(conds, "(plan_time, id) > (?, ?)")
		args = append(args, k.PlanTime.UnixNano(), k.ID)
	}
	if q.Match != "" {
		conds = append(conds, matchCondition)
		like := "%" + likeEscaper.Replace(strings.ToLower(q.Match)) + "%"
		for range strings.Count(matchCondition, "?") {
			args = append(args, like)
		}
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// matchCondition is SendQuery.Match's: a column of the summary row that
// holds the text (lower-cased, as the pattern is).
const matchCondition = `(lower(id) LIKE ? ESCAPE '\' OR lower(profile) LIKE ? ESCAPE '\' OR lower(sender) LIKE ? ESCAPE '\' OR ` +
	`lower(source) LIKE ? ESCAPE '\' OR lower(operator) LIKE ? ESCAPE '\')`

// likeEscaper escapes LIKE's wildcards and its escape character in a text
// matched as it is.
var likeEscaper = strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`)

// GetSend returns send id's summary row.
func (l *Ledger) GetSend(ctx context.Context, id string) (Send, error) {
	list, err := l.querySends(ctx, "reading send "+id, "SELECT "+l.sendColumns("")+" FROM sends WHERE id = ?", id)
	if err != nil {
		return Send{}, err
	}
	if len(list) == 0 {
		return Send{}, fmt.Errorf("send %s: %w (see `smsdesk history`)", id, ErrNoSuchSend)
	}
	return list[0], nil
}

func (l *Ledger) querySends(ctx context.Context, what, query string, args ...any) ([]Send, error) {
	rows, err := l.db.QueryContext(ctx, l.q(query), args...)
	if err != nil {
		return nil, l.fail(what, err)
	}
	defer closeRows(rows)
	var out []Send
	for rows.Next() {
		s, err := l.scanSend(rows)
		if err != nil {
			return nil, l.fail(what, err)
		}
		out = append(out, s)
	}
	return out, l.fail(what, rows.Err())
}

// Due returns up to limit sends due at or before now (waiting for their
// time, or held until it), the longest due first, from the due index.
// Sends a live lease holds are included (Leased): a runner skips them.
func (l *Ledger) Due(ctx context.Context, now time.Time, limit int) ([]Send, error) {
	return l.querySends(ctx, "finding due sends",
		"SELECT "+l.sendColumns("")+" FROM sends WHERE due_at IS NOT NULL AND due_at <= ? ORDER BY due_at, id LIMIT ?",
		now.UnixNano(), max(limit, 1))
}

// NextDue is the earliest time a send is due (zero when none waits).
func (l *Ledger) NextDue(ctx context.Context) (time.Time, error) {
	var n sql.NullInt64
	err := l.db.QueryRowContext(ctx, "SELECT min(due_at) FROM sends WHERE due_at IS NOT NULL").Scan(&n)
	if err != nil {
		return time.Time{}, l.fail("finding the next due send", err)
	}
	return fromNanos(n.Int64), nil
}

// DeleteSend removes a send that never started (its plan only), under its
// lease: a plan that could not be confirmed leaves no trace in history.
func (l *Ledger) deleteSend(ctx context.Context, id, token string) error {
	return l.withTx(ctx, "removing send "+id, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, l.q("DELETE FROM sends WHERE id = ? AND lease_token = ?"), id, token)
		return err
	})
}
