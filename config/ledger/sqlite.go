package ledger

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// sqliteDialect is a ledger in one SQLite file: WAL, synchronous=FULL (a
// commit is on disk before it returns), a busy timeout (another process's
// write waits rather than fails), foreign keys on, and every transaction
// IMMEDIATE (it takes the write lock when it begins: one writer at a time,
// which is how ClaimDue claims each due send once).
type sqliteDialect struct {
	path  string
	build string // the file Create builds in, beside path, until published
}

func newSQLite(path string) *sqliteDialect {
	path = strings.TrimPrefix(path, "sqlite:")
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return &sqliteDialect{path: path}
}

// sqliteHeader starts every SQLite database file.
var sqliteHeader = []byte("SQLite format 3\x00")

// busyTimeout is how long the driver waits for another process's write
// lock before it gives the try back to the ledger's own loop (retry),
// which tries again until the record bound, says what it waits for and
// stops when its context ends: one second, short enough that a wait is
// told within about NoticeAfter, long enough that a read that meets a
// closing connection's clean-up of the WAL (the one time a WAL reader
// waits) is not refused for it.
const busyTimeout = time.Second

func (d *sqliteDialect) backend() Backend { return SQLite }
func (d *sqliteDialect) where() string    { return d.path }

func (d *sqliteDialect) damaged(problem string, err error) error {
	return &DamagedError{Where: d.path, Backend: SQLite, Problem: problem, Err: err}
}

func (d *sqliteDialect) open(ctx context.Context, create bool) (*sql.DB, error) {
	path := d.path
	if create {
		if _, err := os.Lstat(d.path); err == nil {
			return nil, fmt.Errorf("%s: %w", d.path, ErrExists)
		}
		if err := os.MkdirAll(filepath.Dir(d.path), 0o700); err != nil {
			return nil, fmt.Errorf("creating the ledger's directory: %w", err)
		}
		f, err := os.CreateTemp(filepath.Dir(d.path), "."+filepath.Base(d.path)+".new-*")
		if err != nil {
			return nil, fmt.Errorf("creating the ledger: %w", err)
		}
		if err := f.Close(); err != nil {
			_ = os.Remove(f.Name()) // an empty file of ours: the close's error is the one to report
			return nil, fmt.Errorf("creating the ledger: %w", err)
		}
		d.build, path = f.Name(), f.Name()
		if err := os.Chmod(path, 0o600); err != nil {
			d.abandon()
			return nil, fmt.Errorf("creating the ledger: %w", err)
		}
	} else if err := d.checkFile(); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		return nil, fmt.Errorf("opening the ledger %s: %w", d.path, err)
	}
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close() // the error above is the one to report
		if d.isCorrupt(err) {
			return nil, d.damaged("it does not open as a database: "+err.Error(), err)
		}
		return nil, fmt.Errorf("opening the ledger %s: %w", d.path, err)
	}
	return db, nil
}

// checkFile refuses a ledger file that is missing, empty or not SQLite's
// before any connection could start it afresh.
func (d *sqliteDialect) checkFile() error {
	f, err := os.Open(d.path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", d.path, ErrMissing)
	}
	if err != nil {
		return &UnopenableError{Where: d.path, Err: err}
	}
	defer func() { _ = f.Close() }() // read only: a close error loses nothing
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("opening the ledger: %w", err)
	}
	if fi.IsDir() {
		return d.damaged("it is a directory, not a database file", nil)
	}
	head := make([]byte, len(sqliteHeader))
	if _, err := io.ReadFull(f, head); err != nil {
		return d.damaged(fmt.Sprintf("the file is %d bytes, too short to be a database", fi.Size()), err)
	}
	if !bytes.Equal(head, sqliteHeader) {
		return d.damaged("the file is not a SQLite database", nil)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		_ = os.Chmod(d.path, 0o600) // what it holds is for its owner only
	}
	return nil
}

func dsn(path string) string {
	r := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")
	return "file:" + r.Replace(path) +
		fmt.Sprintf("?_pragma=busy_timeout(%d)", busyTimeout.Milliseconds()) +
		"&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=foreign_keys(1)&_pragma=mmap_size(268435456)&_txlock=immediate"
}

// publish links the file built (closed: its WAL checkpointed and gone)
// to the ledger's name, failing if a ledger got there first.
func (d *sqliteDialect) publish() error {
	err := os.Link(d.build, d.path)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s: %w", d.path, ErrExists)
	}
	if err != nil {
		return fmt.Errorf("creating the ledger: %w", err)
	}
	return syncDirOf(d.path)
}

func (d *sqliteDialect) abandon() {
	if d.build == "" {
		return
	}
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		_ = os.Remove(d.build + suffix) // a leftover is harmless: the error above is the one to report
	}
	d.build = ""
}

// syncDirOf makes a new name in path's directory durable (not on Windows,
// which cannot sync a directory).
func syncDirOf(path string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	dir, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer func() { _ = dir.Close() }() // read only: a close error loses nothing
	return dir.Sync()
}

func (d *sqliteDialect) rebind(query string) string { return query }

func (d *sqliteDialect) types(stmt string) string {
	return strings.NewReplacer("{{blob}}", "BLOB", "{{serial}}", "INTEGER PRIMARY KEY", "{{without_rowid}}", " WITHOUT ROWID").Replace(stmt)
}

func (d *sqliteDialect) lockRows(bool) string { return "" }

func (d *sqliteDialect) hasTable(ctx context.Context, q querier, name string) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", name).Scan(&n)
	return n > 0, err
}

func (d *sqliteDialect) notify(context.Context, *sql.Tx) error { return nil }

func (d *sqliteDialect) lockAccount(context.Context, *sql.Tx, int64) error { return nil }

// clock is SQLite's 'now' (this host's clock, read by SQLite's own
// VFS), to the millisecond: a SQLite ledger is one host's, so its clock is
// the ledger's.
func (d *sqliteDialect) clock() string {
	return "(CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER) * 1000000)"
}

// watchPoll is how often a SQLite watcher reads the change counter: one
// indexed row, a few microseconds.
const watchPoll = 200 * time.Millisecond

func (d *sqliteDialect) watch(ctx context.Context, l *Ledger, changed func()) {
	pollChanges(ctx, l, watchPoll, changed)
}

func (d *sqliteDialect) integrity(ctx context.Context, db *sql.DB) (string, error) {
	return d.check(ctx, db, "integrity_check")
}

// quickCheck is SQLite's quick_check: every page of every table and index
// read and its structure checked (a page overwritten is found), without
// integrity_check's match of each index against its table.
func (d *sqliteDialect) quickCheck(ctx context.Context, db *sql.DB) (string, error) {
	return d.check(ctx, db, "quick_check")
}

// check runs PRAGMA pragma (integrity_check, quick_check): "ok", or the
// problems it lists, joined.
func (d *sqliteDialect) check(ctx context.Context, db *sql.DB, pragma string) (string, error) {
	rows, err := db.QueryContext(ctx, "PRAGMA "+pragma)
	if err != nil {
		return "", err
	}
	defer closeRows(rows)
	var problems []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return "", err
		}
		problems = append(problems, s)
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	if len(problems) == 1 && problems[0] == "ok" {
		return "ok", nil
	}
	return strings.Join(problems, "; "), nil
}

func (d *sqliteDialect) size(context.Context, *sql.DB) (int64, error) {
	var total int64
	for _, suffix := range []string{"", "-wal"} {
		fi, err := os.Stat(d.path + suffix)
		if err == nil {
			total += fi.Size()
		}
	}
	return total, nil
}

// backup writes a consistent copy with VACUUM INTO, to a new file made
// 0600 first (VACUUM INTO accepts an empty file; an existing one is never
// overwritten).
func (d *sqliteDialect) backup(ctx context.Context, db *sql.DB, file string) error {
	f, err := os.OpenFile(file, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("backup %s: the file exists; name a new one", file)
	}
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if err := f.Close(); err != nil {
		_ = os.Remove(file) // an empty file of ours: the close's error is the one to report
		return fmt.Errorf("backup: %w", err)
	}
	if _, err := db.ExecContext(ctx, "VACUUM INTO ?", file); err != nil {
		_ = os.Remove(file) // a leftover is harmless: the error above is the one to report
		return fmt.Errorf("backup to %s: %w", file, err)
	}
	return nil
}

func (d *sqliteDialect) isCorrupt(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return true
	case sqlite3.SQLITE_IOERR:
		// The file could not be read or written (a short read of a file
		// truncated underneath, the disk's EIO): the ledger's error, as
		// damage, never a service's or an unknown one.
		return true
	}
	return false
}

func (d *sqliteDialect) isUnique(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	c := se.Code()
	return c == sqlite3.SQLITE_CONSTRAINT_UNIQUE || c == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
}

func (d *sqliteDialect) redact(s string) string { return s }

// contention: SQLITE_BUSY (another connection holds the write lock, past
// the driver's busy timeout) and SQLITE_LOCKED are waited out.
func (d *sqliteDialect) contention(err error) (contention, string) {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return notContention, ""
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return contendLock, "another smsdesk holds its write lock (" + d.path + ")"
	}
	return notContention, ""
}

func (d *sqliteDialect) backendPID(*sql.Conn) uint32 { return 0 }
