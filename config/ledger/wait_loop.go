package ledger

import (
	"context"
	"database/sql"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// contention is what kind of contention an error is (dialect.contention).
type contention int

const (
	notContention contention = iota
	// contendLock: another writer holds a lock; waited out under the
	// record bound.
	contendLock
	// contendConflict: the transaction lost to another (a serialization
	// failure, a deadlock); tried again at once, maxConflicts times.
	contendConflict
	// contendTimedOut: the server waited for a lock past its own bound
	// (PostgreSQL's lock_timeout, the record wait): given up.
	contendTimedOut
)

// maxConflicts is how many times a transaction that lost to another
// (PostgreSQL's serialization failure or deadlock) is tried again: each
// try meets fewer of the transactions it lost to; ten in a row is not
// contention but a fault.
const maxConflicts = 10

// noticeEvery is how often a wait that goes on is told again.
const noticeEvery = 5 * time.Second

// waiter is one write's wait for other writers (Ledger.retry).
type waiter struct {
	l      *Ledger
	ctx    context.Context
	what   string
	notice func(Wait)
	bounds Waits
	start  time.Time
	tries  int           // conflicts met (contendConflict)
	pid    atomic.Uint32 // PostgreSQL: the backend of the transaction's connection

	mu       sync.Mutex
	why      string    // what it waits for, as last told
	toldAt   time.Time // zero: not told
	toldOver bool
}

func (l *Ledger) newWaiter(ctx context.Context, what string) *waiter {
	return &waiter{l: l, ctx: ctx, what: what, notice: WaitNoticeOf(ctx), bounds: l.Waits(), start: time.Now()}
}

// retry runs attempt (a whole transaction) until it goes, fails, or has
// met contention past its bound (see Waits on the ledger).
func (l *Ledger) retry(ctx context.Context, what string, attempt func(w *waiter) error) error {
	w := l.newWaiter(ctx, what)
	defer w.over()
	for {
		err := attempt(w)
		if err == nil {
			return nil
		}
		kind, why := l.d.contention(err)
		switch {
		case kind == notContention || ctx.Err() != nil:
			return l.fail(what, err)
		case kind == contendTimedOut:
			return w.gaveUp(why, err)
		case kind == contendConflict && w.tries >= maxConflicts:
			return w.gaveUp(why, err)
		}
		if gaveUp := w.pastBound(why, err); gaveUp != nil {
			return gaveUp
		}
		w.tell(why)
		if err := w.pause(kind); err != nil {
			return l.fail(what, err)
		}
	}
}

// tx runs fn in one transaction on a connection of its own, watched (on
// PostgreSQL, for an owner who asked) for what it waits on.
func (l *Ledger) tx(ctx context.Context, w *waiter, fn func(*sql.Tx) error) error {
	stop := w.watch()
	defer stop()
	conn, err := l.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close() }() // given back to the pool: a close error loses nothing
	w.pid.Store(l.d.backendPID(conn))
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// bestEffortWait bounds a write that is only a cache (tryTx).
const bestEffortWait = 250 * time.Millisecond

// tryTx runs fn in a transaction once, giving up if another writer holds
// the ledger for more than bestEffortWait: for a write that is only a
// cache (a send's repeat digest, rebuilt next time), made on the way of a
// read, which must not wait for other writers (the look for repeats waited
// for a 1,000,000-number import's transaction, 20 s, to keep one).
func (l *Ledger) tryTx(ctx context.Context, what string, fn func(*sql.Tx) error) error {
	if err := l.filesStill(); err != nil { // as withTx: never into files replaced underneath
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, bestEffortWait)
	defer cancel()
	quiet := &waiter{l: l, ctx: ctx, what: what, bounds: l.Waits(), start: time.Now()} // nothing to tell: it does not wait
	return l.fail(what, l.tx(ctx, quiet, fn))
}

// pastBound is the error that ends the wait once it has lasted the record
// bound, nil before.
func (w *waiter) pastBound(why string, err error) error {
	if time.Since(w.start) < w.bounds.Record {
		return nil
	}
	return w.gaveUp(why, err)
}

func (w *waiter) gaveUp(why string, err error) error {
	return &WaitError{What: w.what, Where: w.l.where, For: why, Waited: time.Since(w.start), Err: redacted{w.l.d.redact(err.Error()), err}}
}

// pause waits a little before the next try, cut short by the context:
// after a lock, a few milliseconds (SQLite's own busy wait has waited
// already, up to busyTimeout, and whoever waits least takes the lock when
// it comes free); after a conflict, longer each time, so that the
// transactions that conflicted do not meet again.
func (w *waiter) pause(kind contention) error {
	d := 10 * time.Millisecond
	if kind == contendConflict {
		w.tries++
		d = min(5*time.Millisecond<<w.tries, 500*time.Millisecond)
	}
	d = d/2 + rand.N(d/2+1) // apart from the others that wait
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-w.ctx.Done():
		return w.ctx.Err()
	case <-t.C:
		return nil
	}
}

// tell says what the write waits for, once it has waited the notice time,
// and again every noticeEvery while it goes on (or at once when what it
// waits for changes).
func (w *waiter) tell(why string) {
	w.tellWith(func() string { return why }, why)
}

// tellWith is tell with what it waits for found only when it is to be
// told (a question to the server); known, if not "", is it already.
func (w *waiter) tellWith(why func() string, known string) {
	if w.notice == nil {
		return
	}
	waited := time.Since(w.start)
	w.mu.Lock()
	due := waited >= w.bounds.Notice && (w.toldAt.IsZero() || time.Since(w.toldAt) >= noticeEvery || (known != "" && known != w.why))
	if due {
		w.toldAt = time.Now()
	}
	w.mu.Unlock()
	if !due {
		return
	}
	said := why()
	w.mu.Lock()
	w.why = said
	w.mu.Unlock()
	w.notice(Wait{What: w.what, For: said, Waited: waited, Bound: w.bounds.Record})
}

// over tells the owner that a wait it was told of has ended.
func (w *waiter) over() {
	w.mu.Lock()
	told := !w.toldAt.IsZero() && !w.toldOver
	w.toldOver = true
	why := w.why
	w.mu.Unlock()
	if told {
		w.notice(Wait{What: w.what, For: why, Waited: time.Since(w.start), Bound: w.bounds.Record, Over: true})
	}
}

// watch looks, every notice time while a transaction runs, at what it
// waits on, and tells it: on PostgreSQL a statement waits for a lock in
// the server, where no error comes back to say so. The returned func ends
// the watch (and waits for it to end).
func (w *waiter) watch() (stop func()) {
	lw, ok := w.l.d.(lockWatcher)
	if !ok || w.notice == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(w.ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(w.bounds.Notice)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			pid := w.pid.Load()
			if pid == 0 {
				w.tell("every connection this process may open to the ledger is in use")
				continue
			}
			if why, waiting := lw.blockedBy(ctx, w.l.db, pid); waiting {
				w.tell(why)
			}
		}
	}()
	return func() { cancel(); <-done }
}

// lockWatcher is a dialect whose transactions wait for locks inside the
// server (PostgreSQL), where another connection can see what they wait on.
type lockWatcher interface {
	// blockedBy says what backend pid waits for, if it waits for a lock.
	blockedBy(ctx context.Context, db *sql.DB, pid uint32) (why string, waiting bool)
}

// redacted is a driver's error with its text redacted.
type redacted struct {
	msg string
	err error
}

func (r redacted) Error() string { return r.msg }
func (r redacted) Unwrap() error { return r.err }
