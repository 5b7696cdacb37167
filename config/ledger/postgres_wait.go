package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/smsdesk/smsdesk/model"
)

// contention: a serialization failure (40001) or a deadlock (40P01) lost
// this transaction to another, and it is tried again; a lock waited for
// past lock_timeout (55P03) was waited out by the server, to the record
// bound, and is given up.
func (d *postgresDialect) contention(err error) (contention, string) {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return notContention, ""
	}
	switch pe.Code {
	case "40001":
		return contendConflict, "another transaction changed the same rows at once (a serialization failure)"
	case "40P01":
		return contendConflict, "it deadlocked with another transaction"
	case "55P03":
		return contendTimedOut, "another session held a lock it needs past the ledger's lock_timeout"
	}
	return notContention, ""
}

// backendPID is the server process of conn: pgx knows it from the
// connection's start, so it costs no question.
func (d *postgresDialect) backendPID(conn *sql.Conn) uint32 {
	var pid uint32
	_ = conn.Raw(func(dc any) error {
		if sc, ok := dc.(*stdlib.Conn); ok {
			pid = sc.Conn().PgConn().PID()
		}
		return nil
	})
	return pid
}

// blockingQuery is what backend $1 waits on and, if it is a lock, the
// first session that holds it: its pid, program, state, how long its
// transaction has been open, and the start of its statement (what a
// session of the same user, or with pg_read_all_stats, may see).
const blockingQuery = `SELECT a.wait_event_type = 'Lock', coalesce(b.pid, 0), coalesce(b.application_name, ''), coalesce(b.state, ''),
	coalesce(extract(epoch FROM now() - b.xact_start), 0)::float8, coalesce(left(b.query, 80), '')
	FROM pg_stat_activity a
	LEFT JOIN LATERAL (SELECT unnest(pg_blocking_pids(a.pid)) AS pid LIMIT 1) bp ON true
	LEFT JOIN pg_stat_activity b ON b.pid = bp.pid
	WHERE a.pid = $1`

// blockedBy says what backend pid waits for, if it waits for a lock:
// "PostgreSQL session 4242 holds a lock it needs (psql, idle in
// transaction for 41s: LOCK TABLE sends IN ACCESS EXCLUSIVE MODE)", or
// less where the server does not say more.
func (d *postgresDialect) blockedBy(ctx context.Context, db *sql.DB, pid uint32) (string, bool) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var lock bool
	var by int
	var app, state, query string
	var open float64
	if err := db.QueryRowContext(ctx, blockingQuery, int64(pid)).Scan(&lock, &by, &app, &state, &open, &query); err != nil || !lock {
		return "", false
	}
	if by == 0 {
		return "another session holds a lock it needs", true
	}
	var about []string
	if app = model.SanitizeLine(app); app != "" {
		about = append(about, app)
	}
	if state != "" {
		about = append(about, fmt.Sprintf("%s for %v", model.SanitizeLine(state), (time.Duration(open)*time.Second).Round(time.Second)))
	}
	why := fmt.Sprintf("PostgreSQL session %d holds a lock it needs", by)
	if len(about) > 0 {
		why += " (" + strings.Join(about, ", ")
		if query = model.SanitizeLine(strings.Join(strings.Fields(query), " ")); query != "" {
			why += ": " + query
		}
		why += ")"
	}
	return d.redact(why), true
}
