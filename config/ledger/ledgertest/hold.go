package ledgertest

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"sync"
	"testing"
	"time"
)

// Hold is another session holding the ledger at location (a file or a
// postgres:// URL) the way an operator's sqlite3 or psql session with a
// transaction left open does: on SQLite its write lock (BEGIN IMMEDIATE:
// every write waits, reads go on), on PostgreSQL `LOCK TABLE sends IN
// ACCESS EXCLUSIVE MODE` (every read and write of sends waits). It is
// held until Release or the test's end.
type Hold struct {
	mu   sync.Mutex // Release from the test and from its cleanup
	db   *sql.DB
	conn *sql.Conn
	// PID is the PostgreSQL session's process (0 on SQLite).
	PID int
}

// HoldLedger takes the hold on the ledger at location.
func HoldLedger(t testing.TB, location string) *Hold {
	t.Helper()
	h, err := TryHoldLedger(t, location)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TryHoldLedger is HoldLedger for a goroutine other than the test's (a
// sandbox's handler taking the hold as a chunk goes), which may not call
// t.Fatal: it returns the error instead. The hold is released at the
// test's end all the same.
func TryHoldLedger(t testing.TB, location string) (*Hold, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	driver, begin := "sqlite", []string{"BEGIN IMMEDIATE"}
	if u, err := url.Parse(location); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		driver, begin = "pgx", []string{"BEGIN", "LOCK TABLE sends IN ACCESS EXCLUSIVE MODE"}
	}
	db, err := sql.Open(driver, location)
	if err != nil {
		return nil, err
	}
	h := &Hold{db: db}
	t.Cleanup(h.Release)
	if h.conn, err = db.Conn(ctx); err != nil {
		return nil, err
	}
	if driver == "pgx" {
		if err := h.conn.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&h.PID); err != nil {
			return nil, err
		}
	}
	for _, stmt := range begin { // the last statement the session shows is the lock's
		if _, err := h.conn.ExecContext(ctx, stmt); err != nil {
			return nil, fmt.Errorf("holding the ledger (%s): %w", stmt, err)
		}
	}
	return h, nil
}

// Held reports whether the hold is still taken (the session is open and
// in its transaction): a test that ends a wait "while the ledger is held"
// checks it after the wait.
func (h *Hold) Held() bool {
	if h.conn == nil {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var one int
	return h.conn.QueryRowContext(ctx, "SELECT 1").Scan(&one) == nil
}

// Waiting reports whether another PostgreSQL session waits for a lock
// the hold keeps (pg_locks: a lock on sends not granted); false on
// SQLite, whose waits the server cannot see.
func (h *Hold) Waiting() bool {
	if h.PID == 0 {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var n int
	err := h.conn.QueryRowContext(ctx, `SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
		WHERE NOT l.granted AND c.relname = 'sends' AND l.pid <> pg_backend_pid()`).Scan(&n)
	return err == nil && n > 0
}

// Release ends the hold (a rollback: nothing was written). Releasing twice,
// or a nil hold (one never taken), does nothing.
func (h *Hold) Release() {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.conn != nil {
		_, _ = h.conn.ExecContext(context.Background(), "ROLLBACK")
		_ = h.conn.Close()
		h.conn = nil
	}
	if h.db != nil {
		_ = h.db.Close()
		h.db = nil
	}
}
