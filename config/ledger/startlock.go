package ledger

import (
	"context"
	"database/sql/driver"
	"errors"
	"time"
)

// startLockKey is the advisory lock LockStarts takes on PostgreSQL.
const startLockKey = 0x736d7364 // "smsd"

// LockStarts takes the ledger-wide lock that serialises the start of new
// sends (config.LockSendStart), waiting until ctx ends; the returned func
// releases it. On PostgreSQL it is a session advisory lock held by a
// connection of its own (released if this process dies: its connection
// ends). A SQLite ledger, on one host, is locked by a file beside it
// instead (config does that): there it is an error.
func (l *Ledger) LockStarts(ctx context.Context) (func(), error) {
	if l.Backend() != Postgres {
		return nil, errors.New("LockStarts is for a PostgreSQL ledger; a SQLite ledger is locked by a file beside it")
	}
	conn, err := l.db.Conn(ctx)
	if err != nil {
		return nil, l.fail("locking the start of sends", err)
	}
	for {
		var got bool
		if err := conn.QueryRowContext(ctx, "SELECT pg_try_advisory_lock($1)", startLockKey).Scan(&got); err != nil {
			conn.Close()
			return nil, l.fail("locking the start of sends", err)
		}
		if got {
			break
		}
		t := time.NewTimer(15 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			conn.Close()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
	return func() {
		c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := conn.ExecContext(c, "SELECT pg_advisory_unlock($1)", startLockKey); err != nil {
			_ = conn.Raw(func(any) error { return driver.ErrBadConn }) // a connection whose unlock failed is not reused
		}
		conn.Close()
	}, nil
}
