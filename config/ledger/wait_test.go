package ledger

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
)

// notices gathers what writes tell of their waits.
type notices struct {
	mu    sync.Mutex
	list  []Wait
	first chan struct{} // closed at the first wait told
	once  sync.Once
}

func newNotices() *notices { return &notices{first: make(chan struct{})} }

func (n *notices) notice(w Wait) {
	n.mu.Lock()
	n.list = append(n.list, w)
	n.mu.Unlock()
	if !w.Over {
		n.once.Do(func() { close(n.first) })
	}
}

func (n *notices) all() []Wait {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]Wait(nil), n.list...)
}

// holdLock holds the ledger's write lock (SQLite) or an ACCESS EXCLUSIVE
// lock on sends (PostgreSQL, as `LOCK TABLE sends` in a psql left open)
// from another connection, until the returned func is called.
func holdLock(t *testing.T, l *Ledger, loc string) (release func()) {
	t.Helper()
	ctx := context.Background()
	driver, begin := "sqlite", "BEGIN IMMEDIATE"
	if l.Backend() == Postgres {
		driver, begin = "pgx", "BEGIN; LOCK TABLE sends IN ACCESS EXCLUSIVE MODE"
	} else {
		loc = "file:" + loc
	}
	db, err := sql.Open(driver, loc)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, begin); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
				t.Errorf("releasing the lock: %v", err)
			}
			conn.Close()
			db.Close()
		})
	}
	t.Cleanup(release)
	return release
}

// TestWriteWaitsOutAnotherWriter (issue 39 §2): a record write that meets
// another writer holding the ledger (SQLite's write lock; a lock on sends
// on PostgreSQL) waits, says what it waits for, and goes once the other
// lets go, however long that is within the record bound: the holder here
// lets go only once the write has said that it waits. With SQLite's busy
// timeout of 10 s the write failed 'database is locked' after 10 s, and
// a failed record stops the send.
func TestWriteWaitsOutAnotherWriter(t *testing.T) {
	each(t, func(t *testing.T, l *Ledger, loc string) {
		l.SetWaits(Waits{Notice: 50 * time.Millisecond})
		release := holdLock(t, l, loc)
		n := newNotices()
		ctx := WithWaitNotice(context.Background(), n.notice)
		done := make(chan error, 1)
		go func() {
			_, err := l.ReserveSend(ctx, "s1", "test", time.Minute)
			done <- err
		}()
		select {
		case <-n.first:
		case err := <-done:
			t.Fatalf("the write ended before it said it waits: %v", err)
		}
		release()
		if err := <-done; err != nil {
			t.Fatalf("the write once the other let go: %v", err)
		}
		got := n.all()
		first, last := got[0], got[len(got)-1]
		t.Logf("told: %s", first)
		want := "another smsdesk holds its write lock (" + loc + ")"
		if l.Backend() == Postgres {
			want = "PostgreSQL session "
		}
		if first.Over || !strings.HasPrefix(first.For, want) || first.What != "reserving send s1" || first.Bound != RecordWait {
			t.Errorf("the first notice: %+v, want one of %q", first, want)
		}
		if l.Backend() == Postgres && !strings.Contains(first.For, "LOCK TABLE sends IN ACCESS EXCLUSIVE MODE") {
			t.Errorf("the notice %q does not say what the holder runs", first.For)
		}
		if !strings.HasPrefix(first.String(), "waiting for the ledger: "+want) {
			t.Errorf("the notice reads %q", first.String())
		}
		if !last.Over {
			t.Errorf("the last notice %+v does not say the wait is over", last)
		}
		if s, err := l.GetSend(context.Background(), "s1"); err != nil || s.State != StateReserved {
			t.Errorf("the send after the wait: %+v %v", s, err)
		}
	})
}

// TestWriteGivesUpPastItsBound: a write whose wait passes its bound gives
// up with an error that says what it waited for and how to go on (a
// *WaitError, errors.Is ErrBusy), and writes nothing. The bound is the
// ledger's record wait on SQLite (shortened here), PostgreSQL's
// lock_timeout there (the URL's here: a URL's setting is kept).
func TestWriteGivesUpPastItsBound(t *testing.T) {
	for _, b := range ledgertest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			loc := b.Location(t)
			if b.Name == "postgres" {
				loc += "&lock_timeout=300ms"
			}
			l, err := Create(context.Background(), loc)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			l.SetWaits(Waits{Record: 300 * time.Millisecond, Notice: 50 * time.Millisecond})
			holdLock(t, l, loc)
			n := newNotices()
			_, err = l.ReserveSend(WithWaitNotice(context.Background(), n.notice), "s1", "test", time.Minute)
			t.Logf("past the bound: %v", err)
			var we *WaitError
			if !errors.As(err, &we) || !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "reserving send s1 in the ledger ") ||
				!strings.Contains(err.Error(), "and gave up") || !strings.Contains(err.Error(), "try again") {
				t.Fatalf("past the bound: %v, want a *WaitError", err)
			}
			if errors.Is(err, ErrDamaged) {
				t.Errorf("a wait past its bound is no damage: %v", err)
			}
			if got := n.all(); len(got) > 0 && !got[len(got)-1].Over {
				t.Errorf("the wait was told and never said over: %+v", got)
			}
		})
	}
}

// TestWaitEndsWithTheContext: a write waiting for another writer stops as
// soon as its context ends (SIGTERM, quit, an SSH hang-up).
func TestWaitEndsWithTheContext(t *testing.T) {
	each(t, func(t *testing.T, l *Ledger, loc string) {
		l.SetWaits(Waits{Notice: 50 * time.Millisecond})
		holdLock(t, l, loc)
		n := newNotices()
		ctx, cancel := context.WithCancel(WithWaitNotice(context.Background(), n.notice))
		done := make(chan error, 1)
		go func() {
			_, err := l.ReserveSend(ctx, "s1", "test", time.Minute)
			done <- err
		}()
		select {
		case <-n.first:
		case err := <-done:
			t.Fatalf("the write ended before it said it waits: %v", err)
		}
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled while it waited: %v", err)
		}
	})
}

// TestConflictsAreTriedAgain: a transaction PostgreSQL lost to another (a
// serialization failure, 40001; a deadlock, 40P01) is tried again, whole,
// and goes; one that keeps losing gives up after maxConflicts; any other
// error is not tried again.
func TestConflictsAreTriedAgain(t *testing.T) {
	l := &Ledger{d: &postgresDialect{}, where: "postgres://db/ledger"}
	for _, tc := range []struct {
		name   string
		errs   []error
		tries  int
		busy   bool
		failed bool
	}{
		{"serialization failure", []error{&pgconn.PgError{Code: "40001"}}, 2, false, false},
		{"deadlock twice", []error{&pgconn.PgError{Code: "40P01"}, &pgconn.PgError{Code: "40P01"}}, 3, false, false},
		{"lost every time", repeatErr(&pgconn.PgError{Code: "40001"}, maxConflicts+1), maxConflicts + 1, true, true},
		{"lock_timeout", []error{&pgconn.PgError{Code: "55P03"}}, 1, true, true},
		{"a constraint", []error{&pgconn.PgError{Code: "23514"}}, 1, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tries := 0
			err := l.retry(context.Background(), "recording send x", func(*waiter) error {
				tries++
				if tries <= len(tc.errs) {
					return tc.errs[tries-1]
				}
				return nil
			})
			if tries != tc.tries || (err != nil) != tc.failed || errors.Is(err, ErrBusy) != tc.busy {
				t.Errorf("%d tries, error %v; want %d tries, failed %v, busy %v", tries, err, tc.tries, tc.failed, tc.busy)
			}
		})
	}
}

func repeatErr(err error, n int) []error {
	out := make([]error, n)
	for i := range out {
		out[i] = err
	}
	return out
}

// TestPostgresConnectionsAreBounded (issue 39 §3): every connection to a
// PostgreSQL ledger carries lock_timeout (the record wait),
// statement_timeout and idle_in_transaction_session_timeout, a URL's own
// setting kept; the pool is bounded.
func TestPostgresConnectionsAreBounded(t *testing.T) {
	loc := ledgertest.Postgres(t)
	for _, tc := range []struct {
		query string
		want  map[string]string
	}{
		{"", map[string]string{"lock_timeout": "2min", "statement_timeout": "5min", "idle_in_transaction_session_timeout": "1min", "application_name": "smsdesk"}},
		{"&statement_timeout=10min", map[string]string{"lock_timeout": "2min", "statement_timeout": "10min"}},
	} {
		l, err := Open(context.Background(), loc+tc.query)
		if errors.Is(err, ErrMissing) {
			l, err = Create(context.Background(), loc+tc.query)
		}
		if err != nil {
			t.Fatal(err)
		}
		for name, want := range tc.want {
			var got string
			if err := l.db.QueryRowContext(context.Background(), "SHOW "+name).Scan(&got); err != nil || got != want {
				t.Errorf("%s: SHOW %s = %q (%v), want %q", tc.query, name, got, err, want)
			}
		}
		if st := l.db.Stats(); st.MaxOpenConnections != maxOpenConns {
			t.Errorf("the pool opens up to %d connections, want %d", st.MaxOpenConnections, maxOpenConns)
		}
		l.Close()
	}
}

// TestStartLockWaitsAndSays: on PostgreSQL, a start waits for another
// process's start lock, says whose, and takes it once let go.
func TestStartLockWaitsAndSays(t *testing.T) {
	loc := ledgertest.Postgres(t)
	l, err := Create(context.Background(), loc)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	other := reopen(t, loc)
	unlockOther, err := other.LockStarts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	l.SetWaits(Waits{Notice: 50 * time.Millisecond})
	n := newNotices()
	done := make(chan error, 1)
	go func() {
		unlock, err := l.LockStarts(WithWaitNotice(context.Background(), n.notice))
		if err == nil {
			unlock()
		}
		done <- err
	}()
	select {
	case <-n.first:
	case err := <-done:
		t.Fatalf("took the start lock another holds: %v", err)
	}
	unlockOther()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if first := n.all()[0]; !strings.HasPrefix(first.For, "another smsdesk is starting a send (PostgreSQL session ") || !strings.Contains(first.For, ", smsdesk, holds the ledger's start lock") {
		t.Errorf("the notice: %+v", first)
	}
}

// TestLookForRepeatsWaitsForNoWriter: the look for repeats keeps each
// send's digest as a cache on the way; with another writer holding the
// ledger it does not wait to keep it (it is rebuilt next time): the look
// ends without a wait told. It waited, to the record bound, for a
// 1,000,000-number import's transaction (20 s by hand) in every send's
// and runner's look. SQLite only: on PostgreSQL a digest's row waits for
// no other send's writer, and a LOCK TABLE on sends holds the read itself.
func TestLookForRepeatsWaitsForNoWriter(t *testing.T) {
	ctx := context.Background()
	loc := ledgertest.SQLite(t)
	l, err := Create(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	oneSend(t, loc, "s1") // accepted at t0; its digest not kept yet
	l.SetWaits(Waits{Record: 3 * time.Second, Notice: 20 * time.Millisecond})
	holdLock(t, l, loc)
	n := newNotices()
	got, err := l.RecentPairs(WithWaitNotice(ctx, n.notice), RepeatScope{Account: "acct1", Profile: "work"}, t0.Add(-time.Hour))
	if err != nil || len(got) != 1 {
		t.Fatalf("the look: %v %v, want send s1", got, err)
	}
	if told := n.all(); len(told) != 0 {
		t.Errorf("the look for repeats waited: %v", told[0])
	}
}
