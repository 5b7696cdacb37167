package ledger

import (
	"context"
	"database/sql"
	"time"
)

// The ledger's change counters (the counters table, one row a kind): each
// moves on, in the transaction of the change, with every change of its
// kind, so that another process learns of it (SQLite's watchers poll the
// table; PostgreSQL's NOTIFY wakes them at once and they read it):
//
//   - sends: a send planned, scheduled, held, started, ended, cancelled or
//     let go (what runners and history show);
//   - optouts: the opt-out list changed (added, removed, imported, or by a
//     reply);
//   - deliveries: a message's delivery state moved (an event, a poll) or
//     an outcome wrote its messages' rows;
//   - inbox: a recipient's message was filed.
//
// The row of a kind other than sends is made by its first change (an
// INSERT of a row is data, not a change of the schema); until then the
// kind reads 0.

// Counters are the change counters as read at one time.
type Counters struct {
	Sends      int64
	OptOuts    int64
	Deliveries int64
	Inbox      int64
}

// Changed reports the kinds whose counters differ between c and was.
func (c Counters) Changed(was Counters) (sends, optOuts bool) {
	return c.Sends != was.Sends, c.OptOuts != was.OptOuts
}

// The rows of counters other than sends.
const (
	counterOptOuts    = "optouts"
	counterDeliveries = "deliveries"
	counterInbox      = "inbox"
)

// ReadCounters reads every change counter.
func (l *Ledger) ReadCounters(ctx context.Context) (Counters, error) {
	rows, err := l.db.QueryContext(ctx, "SELECT name, value FROM counters")
	if err != nil {
		return Counters{}, l.fail("reading the change counters", err)
	}
	defer closeRows(rows)
	var c Counters
	for rows.Next() {
		var name string
		var v int64
		if err := rows.Scan(&name, &v); err != nil {
			return Counters{}, l.fail("reading the change counters", err)
		}
		switch name {
		case "sends":
			c.Sends = v
		case counterOptOuts:
			c.OptOuts = v
		case counterDeliveries:
			c.Deliveries = v
		case counterInbox:
			c.Inbox = v
		}
	}
	return c, l.fail("reading the change counters", rows.Err())
}

// bumpOptOuts moves the opt-out list's counter on in tx (making its row
// at the first change) and tells other processes' watches once tx
// commits.
func (l *Ledger) bumpOptOuts(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, l.q("INSERT INTO counters (name, value) VALUES (?, 1) ON CONFLICT (name) DO UPDATE SET value = counters.value + 1"),
		counterOptOuts); err != nil {
		return err
	}
	return l.d.notify(ctx, tx)
}

// Watch tells a runner, within a second, that a send was scheduled, held,
// started, cancelled or let go anywhere on the ledger (PostgreSQL's
// LISTEN/NOTIFY; on SQLite a poll of the counters five times a second).
// The channel holds at most one signal (changes coalesce); it is closed
// once ctx has ended and the watching goroutine is gone. A signal says
// "look again" (Due, NextDue), never what changed. The first comes once
// the watch is in place: a change after it is signalled again. A change of
// another kind (the opt-out list) is not signalled.
func (l *Ledger) Watch(ctx context.Context) <-chan struct{} {
	ch := make(chan struct{}, 1)
	go func() {
		defer close(ch)
		l.watchCounters(ctx, func(c, was Counters, first bool) {
			if sends, _ := c.Changed(was); !first && !sends {
				return
			}
			select {
			case ch <- struct{}{}:
			default:
			}
		})
	}()
	return ch
}

// WatchCounters is Watch for every kind of change: each signal carries the
// counters as read after the change (compare them with the last to know
// what changed); the first, once the watch is in place, the counters then.
// The channel holds the latest counters only (changes coalesce) and is
// closed once ctx has ended and the watching goroutine is gone.
func (l *Ledger) WatchCounters(ctx context.Context) <-chan Counters {
	ch := make(chan Counters, 1)
	go func() {
		defer close(ch)
		l.watchCounters(ctx, func(c, _ Counters, _ bool) {
			for {
				select {
				case ch <- c:
					return
				default:
				}
				select { // a signal not taken yet: the latest replaces it
				case <-ch:
				default:
				}
			}
		})
	}()
	return ch
}

// watchCounters calls fn (on the watching goroutine) with the counters
// read after each signal of the backend's watch that finds them moved, and
// with the first (first true), until ctx ends. A read that fails is passed
// by: the next signal reads again.
func (l *Ledger) watchCounters(ctx context.Context, fn func(c, was Counters, first bool)) {
	var last Counters
	first := true
	l.d.watch(ctx, l, func() {
		c, err := l.ReadCounters(ctx)
		if err != nil && !first {
			return
		}
		if first || c != last {
			fn(c, last, first)
			first, last = false, c
		}
	})
}

// pollChanges reads the change counters every so often until ctx ends,
// calling changed when any moved.
func pollChanges(ctx context.Context, l *Ledger, every time.Duration, changed func()) {
	last, err := l.ReadCounters(ctx)
	if err != nil {
		last = Counters{Sends: -1}
	}
	changed() // in place: anything that changed before
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		c, err := l.ReadCounters(ctx)
		if err == nil && c != last {
			last = c
			changed()
		}
	}
}
