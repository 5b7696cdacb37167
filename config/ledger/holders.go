package ledger

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// holdersQuery finds the session that has held a lock on one of the
// ledger's tables longest, in a mode that keeps its readers or writers
// out (LOCK TABLE's, an ALTER's, a VACUUM FULL's, a CREATE INDEX's): its
// pid, program, state, how long its transaction has been open, the
// table, the mode and the start of its statement (what a session of the
// same user, or with pg_read_all_stats, may see). Row locks of ordinary
// writes are not among them: those last a transaction of ours.
const holdersQuery = `SELECT l.pid, coalesce(a.application_name, ''), coalesce(a.state, ''),
	coalesce(extract(epoch FROM now() - a.xact_start), 0)::float8, c.relname, l.mode, coalesce(left(a.query, 80), '')
	FROM pg_locks l
	JOIN pg_class c ON c.oid = l.relation
	LEFT JOIN pg_stat_activity a ON a.pid = l.pid
	WHERE l.granted AND l.pid <> pg_backend_pid() AND c.relnamespace = to_regnamespace(current_schema())
	AND l.mode IN ('ShareLock', 'ShareRowExclusiveLock', 'ExclusiveLock', 'AccessExclusiveLock')
	ORDER BY a.xact_start NULLS LAST LIMIT 1`

// LockHolder says, for a look that waited for the ledger and gave up,
// what it most likely waited for: on PostgreSQL, the session holding a
// lock that keeps others off one of the ledger's tables ("PostgreSQL
// session 4242 holds a lock on sends (AccessExclusiveLock, psql, idle in
// transaction for 41s: LOCK TABLE sends IN ACCESS EXCLUSIVE MODE)"); on
// SQLite, whose readers no writer keeps out, whether another process
// holds its write lock (what a claim waits for). "" when nothing is held,
// or the ledger does not say within a second (two on SQLite).
func (l *Ledger) LockHolder(ctx context.Context) string {
	if l.Backend() != Postgres {
		return l.writeLockHolder(ctx)
	}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	var pid int
	var app, state, table, mode, query string
	var open float64
	if err := l.db.QueryRowContext(ctx, holdersQuery).Scan(&pid, &app, &state, &open, &table, &mode, &query); err != nil {
		return ""
	}
	about := []string{model.SanitizeLine(mode)}
	if app = model.SanitizeLine(app); app != "" {
		about = append(about, app)
	}
	if state != "" {
		about = append(about, fmt.Sprintf("%s for %v", model.SanitizeLine(state), (time.Duration(open)*time.Second).Round(time.Second)))
	}
	why := fmt.Sprintf("PostgreSQL session %d holds a lock on %s (%s", pid, model.SanitizeLine(table), strings.Join(about, ", "))
	if query = model.SanitizeLine(strings.Join(strings.Fields(query), " ")); query != "" {
		why += ": " + query
	}
	why += ")"
	return l.d.redact(why)
}

// writeLockHolder says whether another process holds the SQLite ledger's
// write lock: a write transaction begun and at once rolled back finds it
// (within the driver's busy timeout, and a second more), "" when it is
// free.
func (l *Ledger) writeLockHolder(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, busyTimeout+time.Second)
	defer cancel()
	tx, err := l.db.BeginTx(ctx, nil) // BEGIN IMMEDIATE (_txlock)
	if err == nil {
		_ = tx.Rollback()
		return ""
	}
	if kind, why := l.d.contention(err); kind == contendLock {
		return why
	}
	return ""
}
