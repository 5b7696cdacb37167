package ledger

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// Waits on the ledger (issue 39 §2; docs/ARCHITECTURE.md, "Waits on the
// ledger"). Contention is not damage: a write that meets another writer
// (SQLite's write lock held by another process; on PostgreSQL a row or
// table lock, a serialization failure, a deadlock) is tried again, whole,
// until it goes or its bound is past, and after about a second it tells
// whoever asked for it what it waits for (WithWaitNotice). Only past the
// bound does it give up (*WaitError, errors.Is ErrBusy). A write that
// fails (a full disk, an I/O error, damage, a constraint) is not tried
// again. The caller's context cuts any wait short at once.

// The bounds of a wait.
const (
	// RecordWait bounds a write a running or starting send depends on
	// (reserving or creating a send, an intent, an outcome, its end, a
	// resume, a cancel, a once-only id, the start lock): long enough for
	// any other writer's legitimate transaction (a 1,000,000-number import
	// writes for about 6 s on an idle machine, 20 s at load 15), short
	// enough that a send whose ledger is held by a process that hangs
	// stops, with every item's outcome known or unknown, within minutes.
	RecordWait = 2 * time.Minute
	// MinRecordWait is the least a record write waits, whatever it is
	// told (SetWaits is for tests, which shorten it below).
	MinRecordWait = time.Minute
	// LookWait bounds a look (a runner's look for due sends and its claim,
	// `scheduler --once`'s pass, history and status reads): the caller
	// puts it on its context, so that `scheduler --once` gives up within
	// 30 s.
	LookWait = 25 * time.Second
	// NoticeAfter is how long a write waits before it says what it waits
	// for.
	NoticeAfter = time.Second
)

// ErrBusy: a write waited for another writer of the ledger past its bound
// and gave up (a *WaitError).
var ErrBusy = errors.New("the ledger stayed busy")

// Wait is a write of the ledger that waits for another writer, as told to
// the one who asked for it (WithWaitNotice).
type Wait struct {
	// What is being done: "recording send 20260320-…".
	What string
	// For says what it waits for: "another smsdesk holds its write lock
	// (…/smsdesk.db)", "PostgreSQL session 4242 holds a lock it needs
	// (psql, idle in transaction for 41s: LOCK TABLE sends …)".
	For string
	// Waited is how long it has waited so far.
	Waited time.Duration
	// Bound is when it gives up.
	Bound time.Duration
	// Over: the wait has ended (the write went on, failed, or gave up).
	Over bool
}

// String reads "waiting for the ledger: <for>; <what>, waited 3s of at
// most 2m0s".
func (w Wait) String() string {
	if w.Over {
		return "the ledger is free again: " + w.What + " went on after " + waited(w.Waited)
	}
	return fmt.Sprintf("waiting for the ledger: %s; %s, waited %s of at most %v", w.For, w.What, waited(w.Waited), w.Bound)
}

// waited is a wait's length for people: whole seconds, tenths below ten.
func waited(d time.Duration) string {
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// WaitError is a write that waited for another writer past its bound.
type WaitError struct {
	What, Where, For string
	Waited           time.Duration
	Err              error // the last contention the write met
}

// Error says what waited, for what, how long, and what to do.
func (e *WaitError) Error() string {
	return fmt.Sprintf("%s in the ledger %s: waited %s while %s, and gave up (%v); find what holds the ledger so long (another smsdesk's import or send, a backup, a sqlite3 or psql session with a transaction open) and try again",
		e.What, e.Where, waited(e.Waited), e.For, e.Err)
}

// Unwrap gives ErrBusy and the last contention.
func (e *WaitError) Unwrap() []error { return []error{ErrBusy, e.Err} }

type noticeKey struct{}

// WithWaitNotice is ctx carrying notice, which every write of the ledger
// made with it calls after it has waited about NoticeAfter for another
// writer (and again now and then while it waits, with Waited grown), and
// once more with Over when that wait ends. It may be called from another
// goroutine than the write's, and must not block.
func WithWaitNotice(ctx context.Context, notice func(Wait)) context.Context {
	return context.WithValue(ctx, noticeKey{}, notice)
}

// WaitNoticeOf is ctx's notice (WithWaitNotice), nil when none.
func WaitNoticeOf(ctx context.Context) func(Wait) {
	f, _ := ctx.Value(noticeKey{}).(func(Wait))
	return f
}

// Waits are a ledger's bounds on its waits (SetWaits). Zero fields are the
// defaults.
type Waits struct {
	// Record bounds a record write (RecordWait).
	Record time.Duration
	// Notice is how long a write waits before it says so (NoticeAfter).
	Notice time.Duration
}

// waitBounds are the bounds in force.
type waitBounds struct {
	record, notice atomic.Int64
}

// SetWaits sets the ledger's bounds on its waits (zero fields: the
// defaults). Tests shorten them; a record wait below MinRecordWait is for
// tests only.
func (l *Ledger) SetWaits(w Waits) {
	l.waits.record.Store(int64(w.Record))
	l.waits.notice.Store(int64(w.Notice))
}

// Waits are the bounds in force.
func (l *Ledger) Waits() Waits {
	w := Waits{Record: time.Duration(l.waits.record.Load()), Notice: time.Duration(l.waits.notice.Load())}
	if w.Record <= 0 {
		w.Record = RecordWait
	}
	if w.Notice <= 0 {
		w.Notice = NoticeAfter
	}
	return w
}

// Waiter is one wait under the ledger's bounds, for a wait outside the
// ledger's transactions that the ledger's rules bound (config's start lock
// on a file): Contended after each try that found the other holder, Over
// when done.
type Waiter struct {
	*waiter
}

// NewWaiter starts a wait for what, told to ctx's notice (WithWaitNotice).
func (l *Ledger) NewWaiter(ctx context.Context, what string) Waiter {
	return Waiter{l.newWaiter(ctx, what)}
}

// Contended says the try found the other holder (why: what it waits
// for). It returns nil to try again after pause, or the error that ends
// the wait: the context's, or a *WaitError past the record bound.
func (w Waiter) Contended(why string, err error) error {
	if gaveUp := w.waiter.pastBound(why, err); gaveUp != nil {
		return gaveUp
	}
	w.waiter.tell(why)
	return w.waiter.pause(contendLock)
}

// Over ends the wait (telling the notice, if it was told of the wait).
func (w Waiter) Over() { w.waiter.over() }
