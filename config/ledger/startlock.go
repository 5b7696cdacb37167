package ledger

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// startLockKey is the advisory lock LockStarts takes on PostgreSQL.
const startLockKey = 0x736d7364 // "smsd"

// errStartLockHeld is what a try of the start lock met.
var errStartLockHeld = errors.New("the start lock is held")

// LockStarts takes the ledger-wide lock that serialises the start of new
// sends (config.LockSendStart), waiting for another smsdesk's start as a
// record write waits (the record bound; said after about a second to
// ctx's notice, WithWaitNotice; cut short by ctx); the returned func
// releases it. On PostgreSQL it is a session advisory lock held by a
// connection of its own (released if this process dies: its connection
// ends); a wait tries it again and again, holding no connection between
// tries (a process whose every connection waited for the lock would leave
// the holder none to start its send with). A SQLite ledger, on one host,
// is locked by a file beside it instead (config does that): there it is
// an error.
func (l *Ledger) LockStarts(ctx context.Context) (func(), error) {
	if l.Backend() != Postgres {
		return nil, errors.New("LockStarts is for a PostgreSQL ledger; a SQLite ledger is locked by a file beside it")
	}
	w := l.newWaiter(ctx, "starting a send")
	defer w.over()
	for {
		conn, err := l.tryStartLock(ctx)
		if err != nil {
			return nil, l.fail("locking the start of sends", err)
		}
		if conn != nil {
			return startUnlock(conn), nil
		}
		if err := w.pastBound(startLockHeld, errStartLockHeld); err != nil {
			return nil, err
		}
		w.tellWith(func() string { return l.startLockHolder(ctx) }, "")
		if err := w.pause(contendLock); err != nil {
			return nil, err
		}
	}
}

// startLockHeld is what a start waits for.
const startLockHeld = "another smsdesk is starting a send (it holds the ledger's start lock)"

// tryStartLock takes the start lock on a connection of its own, or
// returns none when another session holds it.
func (l *Ledger) tryStartLock(ctx context.Context) (*sql.Conn, error) {
	conn, err := l.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	var got bool
	if err := conn.QueryRowContext(ctx, "SELECT pg_try_advisory_lock($1)", startLockKey).Scan(&got); err != nil || !got {
		_ = conn.Close() // the error above is the one to report
		return nil, err
	}
	return conn, nil
}

// startLockHolder names the session that holds the start lock, as far as
// the server says.
func (l *Ledger) startLockHolder(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var pid int
	var app string
	err := l.db.QueryRowContext(ctx, `SELECT a.pid, coalesce(a.application_name, '') FROM pg_locks k JOIN pg_stat_activity a ON a.pid = k.pid
		WHERE k.locktype = 'advisory' AND k.granted AND k.objid = $1 LIMIT 1`, startLockKey).Scan(&pid, &app)
	if err != nil {
		return startLockHeld
	}
	return fmt.Sprintf("another smsdesk is starting a send (PostgreSQL session %d, %s, holds the ledger's start lock)", pid, model.SanitizeLine(app))
}

// startUnlock releases the start lock held by conn.
func startUnlock(conn *sql.Conn) func() {
	return func() {
		c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := conn.ExecContext(c, "SELECT pg_advisory_unlock($1)", startLockKey); err != nil {
			_ = conn.Raw(func(any) error { return driver.ErrBadConn }) // a connection whose unlock failed is not reused
		}
		_ = conn.Close() // back to the pool (or dropped, above): nothing written to lose
	}
}
