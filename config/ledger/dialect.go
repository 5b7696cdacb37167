package ledger

import (
	"context"
	"database/sql"
	"fmt"
	"hash/fnv"
	"strings"
)

// dialect is what differs between the two backends. Everything else (the
// schema, the statements, the transactions) is shared: statements are
// written with ? placeholders and portable SQL (ON CONFLICT DO NOTHING,
// RETURNING, partial indexes), which SQLite and PostgreSQL both read.
type dialect interface {
	backend() Backend
	// where is the location for people (a PostgreSQL URL redacted).
	where() string
	// open connects; with create, to a new store to build the schema in
	// (a SQLite file beside the ledger's, refusing a ledger that exists),
	// otherwise to the ledger, whose absence is ErrMissing.
	open(ctx context.Context, create bool) (*sql.DB, error)
	// publish puts the store create built in the ledger's place, whole
	// (ErrExists if another process was first).
	publish() error
	// abandon removes what create made and publish did not take.
	abandon()
	// rebind rewrites ? placeholders as the driver wants them.
	rebind(query string) string
	// types fills a schema statement's {{blob}} and {{serial}}.
	types(stmt string) string
	// lockRows is the clause that locks selected rows for the transaction
	// (and skips rows another transaction locked, with skip): FOR UPDATE
	// [SKIP LOCKED] on PostgreSQL; "" on SQLite, whose write transaction
	// holds the whole database.
	lockRows(skip bool) string
	// hasTable reports whether the named table exists.
	hasTable(ctx context.Context, q querier, name string) (bool, error)
	// lockAccount takes the transaction's lock on an account's deliveries
	// and events, key accountLockKey's (PostgreSQL's advisory lock, held to
	// the end of tx; nothing on SQLite, whose write transaction holds the
	// whole database): see lockAccounts.
	lockAccount(ctx context.Context, tx *sql.Tx, key int64) error
	// notify tells other processes' Watch that scheduled sends changed,
	// once tx commits (PostgreSQL's NOTIFY; SQLite's watchers poll).
	notify(ctx context.Context, tx *sql.Tx) error
	// watch signals changed (without blocking) when sends may have changed,
	// until ctx ends.
	watch(ctx context.Context, l *Ledger, changed func())
	// clock is the ledger's clock as SQL, Unix nanoseconds (a BIGINT):
	// what lease times are written and compared with, so that hosts whose
	// clocks differ agree on when a lease ends (PostgreSQL's
	// clock_timestamp(); on SQLite, one host's file, that host's clock as
	// SQLite reads it).
	clock() string
	// integrity checks the store's own pages: "ok", or what is wrong.
	integrity(ctx context.Context, db *sql.DB) (string, error)
	// quickCheck is the cheaper check a runner makes before it starts
	// sends (QuickCheck): "ok", or what is wrong.
	quickCheck(ctx context.Context, db *sql.DB) (string, error)
	// size is the store's size in bytes.
	size(ctx context.Context, db *sql.DB) (int64, error)
	// backup writes a copy of the ledger to file.
	backup(ctx context.Context, db *sql.DB, file string) error
	// isCorrupt reports whether err says the store itself is damaged.
	isCorrupt(err error) bool
	// isUnique reports whether err is a unique or primary key violation.
	isUnique(err error) bool
	// contention says whether err is another writer's doing (a lock held,
	// a transaction lost to another), and what it waited for.
	contention(err error) (kind contention, why string)
	// backendPID is the server's process of conn (PostgreSQL), 0 when
	// there is none.
	backendPID(conn *sql.Conn) uint32
	// redact removes secrets from a driver's error text.
	redact(s string) string
}

// querier is a *sql.DB, *sql.Tx or *sql.Conn.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// dialectFor picks the backend location names.
func dialectFor(location string) (dialect, error) {
	location = strings.TrimSpace(location)
	switch {
	case location == "":
		return nil, fmt.Errorf("no ledger location: give a file path or a postgres:// URL")
	case IsPostgres(location):
		return newPostgres(location)
	case strings.Contains(location, "://"):
		return nil, fmt.Errorf("ledger %s: smsdesk keeps its ledger in a SQLite file (a path) or in PostgreSQL (postgres://…)", redactURL(location))
	}
	return newSQLite(location), nil
}

// rebindDollar numbers ? placeholders $1, $2, … (none of our statements
// holds a ? inside a string literal).
func rebindDollar(query string) string {
	if !strings.Contains(query, "?") {
		return query
	}
	var b strings.Builder
	b.Grow(len(query) + 16)
	n := 0
	for i := 0; i < len(query); i++ {
		if query[i] == '?' {
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteByte(query[i])
	}
	return b.String()
}

// marks is a parenthesised list of n placeholders, "(?, ?, ?)", for an IN
// list or a VALUES row (n ≥ 1); q rewrites them for PostgreSQL.
func marks(n int) string { return "(?" + strings.Repeat(", ?", n-1) + ")" }

// accountLockKey is the advisory lock of an account's deliveries and
// events (lockAccounts).
func accountLockKey(account string) int64 {
	h := fnv.New64a()
	h.Write([]byte("smsdesk-deliveries\x00" + account))
	return int64(h.Sum64())
}
