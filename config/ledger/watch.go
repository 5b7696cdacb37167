package ledger

import (
	"context"
	"time"
)

// Watch tells a runner, within a second, that a send was scheduled, held,
// started, cancelled or let go anywhere on the ledger (PostgreSQL's
// LISTEN/NOTIFY; on SQLite a poll of one counter row five times a
// second). The channel holds at most one signal (changes coalesce); it is
// closed once ctx has ended and the watching goroutine is gone. A signal
// says "look again" (Due, NextDue), never what changed. The first comes
// once the watch is in place: a change after it is signalled again.
func (l *Ledger) Watch(ctx context.Context) <-chan struct{} {
	ch := make(chan struct{}, 1)
	go func() {
		defer close(ch)
		l.d.watch(ctx, l, func() {
			select {
			case ch <- struct{}{}:
			default:
			}
		})
	}()
	return ch
}

// ChangeCount is the change counter Watch follows: it moves on with every
// change to what is due.
func (l *Ledger) ChangeCount(ctx context.Context) (int64, error) {
	var v int64
	err := l.db.QueryRowContext(ctx, "SELECT value FROM counters WHERE name = 'sends'").Scan(&v)
	return v, l.fail("reading the change counter", err)
}

// pollChanges reads the change counter every so often until ctx ends,
// calling changed when it moved.
func pollChanges(ctx context.Context, l *Ledger, every time.Duration, changed func()) {
	last, err := l.ChangeCount(ctx)
	if err != nil {
		last = -1
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
		v, err := l.ChangeCount(ctx)
		if err == nil && v != last {
			last = v
			changed()
		}
	}
}
