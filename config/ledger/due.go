package ledger

import (
	"context"
	"database/sql"
	"strings"
	"time"
)

// What a runner asks of the ledger (ui/app's Runner): the due sends of its
// profile, found through the due index (sends_due: only rows with a due
// time are read, however long the history), claimed in one transaction,
// and when to look again. A send is due while it waits for its time, while
// quiet hours that held it are over, and while a runner's run of it is open
// (its due time is when that run began): such a send is skipped while its
// lease is live, and taken over by another runner once the lease ends (the
// runner died), to go on with the items certainly not sent.

// DueQuery selects the due sends of one runner.
type DueQuery struct {
	// Now is the runner's clock: sends due at or before it.
	Now time.Time
	// Late bounds how long ago a held send's quiet hours ended, or an open
	// send's run last wrote (its runner gone), for a runner to go on with
	// it: older ones are left for an operator (LeftDue). A waiting send is
	// due however late: its runner marks it missed. 0: no bound.
	Late time.Duration
	// Profile and Host keep the sends of one profile on one service ("":
	// any; a send that names no host counts for every host).
	Profile, Host string
	// Exclude are sends the runner will not start (another base URL on
	// the same host): never claimed.
	Exclude []string
	// Limit caps how many sends one claim takes (0: 100).
	Limit int
}

// where is q's condition on sends due at q.Now, with its arguments.
func (q DueQuery) where() (string, []any) {
	conds := []string{"due_at IS NOT NULL", "due_at <= ?"}
	args := []any{q.Now.UnixNano()}
	if q.Late > 0 {
		from := q.Now.Add(-q.Late).UnixNano()
		conds = append(conds, "(state = ? OR (state = ? AND due_at >= ?) OR (state = ? AND touched >= ?))")
		args = append(args, string(StateWaiting), string(StateHeld), from, string(StateOpen), from)
	}
	c, a := q.mine()
	return strings.Join(append(conds, c...), " AND "), append(args, a...)
}

// mine is q's condition on the profile, the host and the sends excluded.
func (q DueQuery) mine() ([]string, []any) {
	var conds []string
	var args []any
	if q.Profile != "" {
		conds = append(conds, "profile = ?")
		args = append(args, q.Profile)
	}
	if q.Host != "" {
		conds = append(conds, "(host = ? OR host = '')")
		args = append(args, q.Host)
	}
	if len(q.Exclude) > 0 {
		conds = append(conds, "id NOT IN "+marks(len(q.Exclude)))
		for _, id := range q.Exclude {
			args = append(args, id)
		}
	}
	return conds, args
}

func (q DueQuery) limit() int {
	if q.Limit > 0 {
		return q.Limit
	}
	return 100
}

// DueFor lists q's sends due now, the longest due first (Leased: a live
// lease holds it, a runner is on it).
func (l *Ledger) DueFor(ctx context.Context, q DueQuery) ([]Send, error) {
	where, args := q.where()
	return l.querySends(ctx, "finding due sends", "SELECT "+l.sendColumns("")+" FROM sends WHERE "+where+" ORDER BY due_at, id LIMIT ?",
		append(args, q.limit())...)
}

// ClaimDueFor claims q's due sends that no live lease holds, the longest
// due first, each under a new lease of holder's (see ClaimDue): in one
// transaction that locks the rows it takes (FOR UPDATE SKIP LOCKED on
// PostgreSQL, so that runners on several hosts take different sends
// without waiting on each other; SQLite's one writer at a time). A lease
// taken on this host by a process that has gone counts as ended. A ledger
// found damaged (Damaged), or marked so, claims nothing.
func (l *Ledger) ClaimDueFor(ctx context.Context, q DueQuery, holder string, ttl time.Duration) ([]Claimed, error) {
	if err := l.Damaged(); err != nil {
		return nil, err
	}
	var out []Claimed
	err := l.withTx(ctx, "claiming due sends", func(tx *sql.Tx) error {
		out = nil
		var now int64 // leases end by the ledger's clock
		var mark sql.NullString
		if err := tx.QueryRowContext(ctx, "SELECT "+l.d.clock()+", "+markSQL).Scan(&now, &mark); err != nil {
			return err
		}
		if err := l.markedDamage(mark); err != nil {
			return err
		}
		dead, err := l.goneHolders(ctx, tx, q, now)
		if err != nil {
			return err
		}
		where, args := q.where()
		unleased := "(lease_token IS NULL OR lease_until <= ?"
		args = append(args, now)
		if len(dead) > 0 {
			unleased += " OR (lease_host = ? AND lease_pid IN " + marks(len(dead)) + ")"
			args = append(args, l.host)
			for _, pid := range dead {
				args = append(args, pid)
			}
		}
		unleased += ")"
		rows, err := tx.QueryContext(ctx, l.q("SELECT "+l.sendColumns("")+" FROM sends WHERE "+where+" AND "+unleased+
			" ORDER BY due_at, id LIMIT ?"+l.d.lockRows(true)), append(args, q.limit())...)
		if err != nil {
			return err
		}
		var free []Send
		for rows.Next() {
			s, err := l.scanSend(rows)
			if err != nil {
				closeRows(rows)
				return err
			}
			if !s.Leased {
				free = append(free, s)
			}
		}
		closeRows(rows)
		if err := rows.Err(); err != nil {
			return err
		}
		for _, s := range free {
			lease := l.newLease(s.ID, holder, ttl)
			if err := l.setLease(ctx, tx, lease); err != nil {
				return err
			}
			s.Leased, s.LeaseHolder, s.LeaseHost, s.LeasePID, s.LeaseUntil = true, holder, l.host, l.pid, l.hostTime(now+lease.ttl.Nanoseconds(), now)
			out = append(out, Claimed{Send: s, Lease: lease})
		}
		return nil
	})
	return out, err
}

// goneHolders are the processes on this host, other than this one, that
// hold unexpired leases on q's due sends but have gone (killed, crashed):
// their leases are over.
func (l *Ledger) goneHolders(ctx context.Context, tx *sql.Tx, q DueQuery, now int64) ([]int, error) {
	where, args := q.where()
	rows, err := tx.QueryContext(ctx, l.q("SELECT DISTINCT lease_pid FROM sends WHERE "+where+
		" AND lease_token IS NOT NULL AND lease_until > ? AND lease_host = ? AND lease_pid <> ?"),
		append(args, now, l.host, l.pid)...)
	if err != nil {
		return nil, err
	}
	defer closeRows(rows)
	var gone []int
	for rows.Next() {
		var pid int
		if err := rows.Scan(&pid); err != nil {
			return nil, err
		}
		if pid > 0 && !processAlive(pid) {
			gone = append(gone, pid)
		}
	}
	return gone, rows.Err()
}

// LeftDue lists q's sends left for an operator (q.Late set): held sends
// whose quiet hours ended more than q.Late ago, and open runs no live
// lease holds (their runner gone) that last wrote more than q.Late ago.
// A runner says so once and goes on without them.
func (l *Ledger) LeftDue(ctx context.Context, q DueQuery) ([]Send, error) {
	if q.Late <= 0 {
		return nil, nil
	}
	from := q.Now.Add(-q.Late).UnixNano()
	conds := []string{"due_at IS NOT NULL", "due_at <= ?", "((state = ? AND due_at < ?) OR (state = ? AND touched < ?))"}
	args := []any{q.Now.UnixNano(), string(StateHeld), from, string(StateOpen), from}
	c, a := q.mine()
	list, err := l.querySends(ctx, "finding sends left for an operator", "SELECT "+l.sendColumns("")+" FROM sends WHERE "+
		strings.Join(append(conds, c...), " AND ")+" ORDER BY due_at, id LIMIT ?", append(append(args, a...), q.limit())...)
	if err != nil {
		return nil, err
	}
	out := list[:0]
	for _, s := range list {
		if !s.Leased {
			out = append(out, s)
		}
	}
	return out, nil
}

// NextWake says when a runner of q's is to look again: due, the earliest
// time (on q's clock) one of its sends falls due after q.Now (zero: none
// waits), and leaseEnds, the earliest time (on this host's clock: the
// ledger's end of the lease, translated) a live lease that another process
// holds on one of its due sends ends unless renewed (zero: none), when the
// send is taken over if that runner has gone.
func (l *Ledger) NextWake(ctx context.Context, q DueQuery) (due, leaseEnds time.Time, err error) {
	conds, args := q.mine()
	var next, until sql.NullInt64
	err = l.db.QueryRowContext(ctx, l.q("SELECT min(due_at) FROM sends WHERE "+strings.Join(append([]string{"due_at > ?"}, conds...), " AND ")),
		append([]any{q.Now.UnixNano()}, args...)...).Scan(&next)
	if err != nil {
		return time.Time{}, time.Time{}, l.fail("finding the next due send", err)
	}
	where, wargs := q.where()
	var now int64
	err = l.db.QueryRowContext(ctx, l.q("SELECT min(lease_until), "+l.d.clock()+" FROM sends WHERE "+where+
		" AND lease_token IS NOT NULL AND lease_until > "+l.d.clock()+" AND NOT (lease_host = ? AND lease_pid = ?)"),
		append(wargs, l.host, l.pid)...).Scan(&until, &now)
	if err != nil {
		return time.Time{}, time.Time{}, l.fail("finding the next lease to end", err)
	}
	return fromNanos(next.Int64), l.hostTime(until.Int64, now), nil
}
