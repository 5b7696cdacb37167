package ledger

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync/atomic"
	"time"
)

// Backend names the kind of store a ledger is kept in.
type Backend string

// The backends.
const (
	SQLite   Backend = "sqlite"   // a file on this machine (the default)
	Postgres Backend = "postgres" // a PostgreSQL database shared by several hosts
)

// FileName is the SQLite ledger's name in the state directory.
const FileName = "smsdesk.db"

// Errors. A damaged ledger's errors are *DamagedError (errors.Is ErrDamaged).
var (
	// ErrDamaged: the ledger cannot be opened, fails its integrity or
	// schema check, or holds a row that does not parse. Nothing may be
	// sent until it is restored.
	ErrDamaged = errors.New("the ledger is damaged")
	// ErrMissing: no ledger at the location (Open). A ledger that existed
	// and is gone is never made anew without being asked (Create).
	ErrMissing = errors.New("no ledger there")
	// ErrExists: Create found a ledger (or another file) at the location.
	ErrExists = errors.New("a ledger is there already")
	// ErrUnopenable: the ledger is there, but this process may not open
	// it (its mode or owner, or its directory's). Nothing may be sent
	// until it can; it is not damaged, so no backup is to be restored.
	ErrUnopenable = errors.New("the ledger cannot be opened")
	// ErrSchemaTooNew: the ledger was written by a newer smsdesk.
	ErrSchemaTooNew = errors.New("the ledger was written by a newer smsdesk")
	// ErrNoSuchSend: no send has the id.
	ErrNoSuchSend = errors.New("no such send")
	// ErrSendExists: a send with the id exists already.
	ErrSendExists = errors.New("a send with this id exists already")
	// ErrInUse: another live lease holds the send (another process, or
	// another run in this one, is sending or resuming it).
	ErrInUse = errors.New("the send is in use by another smsdesk process")
	// ErrLeaseLost: the lease a write was made under has expired and was
	// taken by another runner (or released): the write is refused, so that
	// two runners never send one send's chunk.
	ErrLeaseLost = errors.New("the lease on the send was lost")
	// ErrOnceUsed: RecordOnce was given a once-only id used already.
	ErrOnceUsed = errors.New("the once-only id was used already")
)

// DamagedError is a ledger that must not be trusted: Where names it
// (redacted), Problem says what is wrong.
type DamagedError struct {
	Where   string
	Backend Backend
	Problem string
	Err     error
	// Found says who found it, and when, when another process did (the
	// ledger's mark): "found 2026-11-29 10:02 UTC by smsdesk scheduler on
	// web-1". Empty when this process found it.
	Found string
	// Unkept is why the damage could not be marked in the ledger (its own
	// write failed, or its files were replaced underneath): other
	// processes may not know of it yet. Nil once marked, or not tried.
	Unkept error
}

// Error reads "the ledger <where> is damaged: <problem>; nothing was sent"
// and how to restore it.
func (e *DamagedError) Error() string {
	restore := "restore it from a backup made before the damage was found: move the file aside, with its -wal, -shm and any .damaged beside it, and copy that `smsdesk ledger backup` in its place"
	if e.Backend == Postgres {
		restore = "restore the database from a pg_dump backup made before the damage was found"
	}
	found := ""
	if e.Found != "" {
		found = " (" + e.Found + ")"
	}
	unkept := ""
	if e.Unkept != nil {
		unkept = fmt.Sprintf(". The damage could not be marked in the ledger (%v): other smsdesk processes on it refuse only once they find it themselves", e.Unkept)
	}
	return fmt.Sprintf("the ledger %s is damaged: %s%s; nothing was sent%s. Every smsdesk on it refuses to send until then. To go on, %s, or start over with an empty ledger (move it aside, then `smsdesk ledger init --new`: it forgets the opt-out list and what was sent)",
		e.Where, e.Problem, found, unkept, restore)
}

// Unwrap gives ErrDamaged and the cause.
func (e *DamagedError) Unwrap() []error { return []error{ErrDamaged, e.Err} }

// UnopenableError is a ledger file this process cannot open (errors.Is
// ErrUnopenable): Where names it, Err is why (permission denied).
type UnopenableError struct {
	Where string
	Err   error
}

// Error reads "the ledger <where> cannot be opened: <why>; nothing was
// sent" and what to check.
func (e *UnopenableError) Error() string {
	why := e.Err
	var pe *fs.PathError
	if errors.As(why, &pe) {
		why = pe.Err // the path is said already
	}
	return fmt.Sprintf("the ledger %s cannot be opened: %v; nothing was sent. smsdesk must be able to read and write it and its directory: run smsdesk as the user who owns them, or give them back to that user (the file's mode is 0600)",
		e.Where, why)
}

// Unwrap gives ErrUnopenable and the cause.
func (e *UnopenableError) Unwrap() []error { return []error{ErrUnopenable, e.Err} }

// Ledger is an open ledger. It is safe for concurrent use by many
// goroutines; several processes (and on PostgreSQL several hosts) may have
// the same ledger open.
type Ledger struct {
	db      *sql.DB
	d       dialect
	where   string // the location, redacted
	id      string
	version int
	now     func() time.Time // real time: leases are about live processes
	host    string
	pid     int
	// found is the first damage this process found in the ledger (a row
	// that does not parse, a page that does not read, a failed check), or
	// read from its mark: from then on it starts no send (Damaged,
	// markedDamage). marked: the mark is in the ledger, or was tried.
	found  atomic.Pointer[DamagedError]
	marked atomic.Bool
	unkept atomic.Pointer[error] // why the mark could not be written
	// files are a SQLite ledger's -wal and -shm as this process opened
	// them (nil on PostgreSQL): every write checks they still are.
	files *walFiles
	// waits are the bounds of its waits for other writers (SetWaits).
	waits waitBounds
	// pollAfter is delivery_poll_after (SetDeliveryPollAfter), as a
	// time.Duration; 0: the default.
	pollAfter atomic.Int64
}

// Open opens the ledger at location, a postgres:// (or postgresql://) URL
// or the path of a SQLite file, and brings its schema up to date. No
// ledger there is ErrMissing: one is made only by Create. A ledger written
// by a newer smsdesk is ErrSchemaTooNew; one that does not read is a
// *DamagedError.
func Open(ctx context.Context, location string) (*Ledger, error) {
	return open(ctx, location, false)
}

// Create makes a new, empty ledger at location with a new random id, and
// opens it. Anything already there is ErrExists.
func Create(ctx context.Context, location string) (*Ledger, error) {
	return open(ctx, location, true)
}

func open(ctx context.Context, location string, create bool) (*Ledger, error) {
	d, err := dialectFor(location)
	if err != nil {
		return nil, err
	}
	if create {
		if err := build(ctx, d); err != nil {
			return nil, err
		}
	}
	db, err := d.open(ctx, false)
	if err != nil {
		return nil, err
	}
	l := newLedger(db, d)
	l.marked.Store(true) // what opening finds is no mark's: every process finds it as it opens
	if err := l.migrate(ctx); err != nil {
		_ = db.Close() // the error above is the one to report
		return nil, err
	}
	l.marked.Store(false)
	if sd, ok := d.(*sqliteDialect); ok {
		if l.files, err = pinFiles(ctx, db, sd.path); err != nil {
			_ = db.Close() // the error above is the one to report
			return nil, err
		}
	}
	return l, nil
}

func newLedger(db *sql.DB, d dialect) *Ledger {
	host, _ := os.Hostname()
	return &Ledger{db: db, d: d, where: d.where(), now: time.Now, host: host, pid: os.Getpid()}
}

// build makes a new ledger's schema where no process can see it half
// made (a SQLite file is made aside and linked into place whole; a
// PostgreSQL schema is made in one transaction), so that a second smsdesk
// starting at the same moment opens a whole ledger or none.
func build(ctx context.Context, d dialect) error {
	db, err := d.open(ctx, true)
	if err != nil {
		return err
	}
	err = newLedger(db, d).create(ctx)
	if err == nil && d.backend() == SQLite {
		// Everything into the file itself: publish links the file alone.
		_, err = db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	}
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = d.publish()
	}
	d.abandon()
	return err
}

// Close closes the ledger's connections.
func (l *Ledger) Close() error {
	l.files.close()
	return l.db.Close()
}

// ID is the ledger's id, made at random when it was created.
func (l *Ledger) ID() string { return l.id }

// Backend is the kind of store the ledger is kept in.
func (l *Ledger) Backend() Backend { return l.d.backend() }

// Where is the ledger's location for people: a file's path, or a
// PostgreSQL URL without a password.
func (l *Ledger) Where() string { return l.where }

// SchemaVersion is the ledger's schema version (SchemaVersion, once open).
func (l *Ledger) SchemaVersion() int { return l.version }

// damaged is the error of a ledger that does not read: problem says what.
// The ledger keeps the first (Damaged): a damaged ledger starts no send.
func (l *Ledger) damaged(problem string, err error) error {
	de := &DamagedError{Where: l.where, Backend: l.d.backend(), Problem: problem, Err: err}
	l.found.CompareAndSwap(nil, de)
	return de
}

// Damaged is the first damage this process found in the ledger (nil:
// none). A ledger with a row that does not parse, or a page that does not
// read, is not to be trusted anywhere: from then on every send, resume and
// scheduled start on it (ReserveSend and the plan's Append, CreateSend,
// Claim, ClaimDueFor) is refused with
// that damage, whatever send it is, until it is restored (a new process:
// a restore stops every smsdesk on it).
func (l *Ledger) Damaged() error {
	if de := l.found.Load(); de != nil {
		return l.withUnkept(de)
	}
	return nil
}

// fail wraps err from the database with what was being done; an error that
// says the store is corrupt becomes a *DamagedError. Every error leaving
// the package passes here, so none names a password.
func (l *Ledger) fail(what string, err error) error {
	if err == nil {
		return nil
	}
	var de *DamagedError
	if errors.As(err, &de) {
		return l.keep(de)
	}
	var we *WaitError
	if errors.As(err, &we) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if l.d.isCorrupt(err) {
		return l.keep(l.damaged(what+": "+l.d.redact(err.Error()), err).(*DamagedError))
	}
	return &dbError{what: what + " in the ledger " + l.where, msg: l.d.redact(err.Error()), err: err}
}

// dbError is a database error with its text redacted.
type dbError struct {
	what, msg string
	err       error
}

func (e *dbError) Error() string { return e.what + ": " + e.msg }
func (e *dbError) Unwrap() error { return e.err }

// newToken is a random id (the ledger's, a lease's).
func newToken() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// IsPostgres reports whether location names a PostgreSQL ledger.
func IsPostgres(location string) bool {
	l := strings.ToLower(strings.TrimSpace(location))
	return strings.HasPrefix(l, "postgres://") || strings.HasPrefix(l, "postgresql://")
}

// Redact is location fit to print: a PostgreSQL URL without its password.
func Redact(location string) string {
	if IsPostgres(location) {
		return redactURL(location)
	}
	return location
}

// withTx runs fn in a transaction (IMMEDIATE on SQLite: it takes the write
// lock at once, so two writers wait rather than deadlock) and commits it.
// A transaction that meets another writer is tried again, whole, until it
// goes or its wait is past its bound (retry; see Waits on the ledger): fn
// may run more than once, so it sets what it finds afresh each time. fn
// must not wait on anything outside the ledger (a network request, a pipe,
// a prompt, a sleep).
func (l *Ledger) withTx(ctx context.Context, what string, fn func(*sql.Tx) error) error {
	if err := l.filesStill(); err != nil {
		return err
	}
	return l.retry(ctx, what, func(w *waiter) error { return l.tx(ctx, w, fn) })
}

// q rewrites a statement written with ? placeholders for the backend.
func (l *Ledger) q(query string) string { return l.d.rebind(query) }

// nanos is t as stored in time columns (Unix nanoseconds); zero time is 0.
func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// fromNanos is the inverse of nanos (UTC).
func fromNanos(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// closeRows closes rows read for a query: rows.Err (checked after each
// loop) or the scan reports what the read met; Close only gives the
// connection back, and its error loses nothing written.
func closeRows(rows *sql.Rows) { _ = rows.Close() }
