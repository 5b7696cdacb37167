package config

import (
	"context"
	"errors"
	"time"
)

// StopGrace is how long a write that records what was done before a stop
// may still wait for the ledger once the stop has come (ctrl+c, SIGTERM,
// a hang-up, a server's shutdown): the outcome of the chunk that was in
// flight, a send's end, its lease let go, an audit record. A ledger that
// answers takes such a write in milliseconds; one that does not (a lock
// held by another session, a writer that hangs) would otherwise hold the
// stop for a record wait (ledger.RecordWait, minutes), and a supervisor
// (systemd's 90 s) kills the process anyway. Two seconds, once per
// journal (JournalFile gives up on the rest at once after one such write
// was cut), keeps a running scheduler's stop within 5 s (issue 39 §3). An
// outcome not written reads unknown, as after a kill: never resent
// without the operator's say.
const StopGrace = 2 * time.Second

// ErrStopGrace is the cause of a write cut short StopGrace after its
// caller's stop (AfterStop): the ledger did not answer in time.
var ErrStopGrace = errors.New("the ledger did not answer within " + StopGrace.String() + " of the stop")

// AfterStop is the context of a write that records what was done before
// its caller stopped: ctx's values, not ended by ctx's end but StopGrace
// after it (with ErrStopGrace as its cause), so that a record the stop
// itself causes is written when the ledger answers, and a stop is never
// held up longer by a ledger that does not. done releases it; call it
// when the write is over.
func AfterStop(ctx context.Context) (c context.Context, done context.CancelFunc) {
	c, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() {
		t := time.NewTimer(StopGrace)
		defer t.Stop()
		select {
		case <-t.C:
			cancel(ErrStopGrace)
		case <-c.Done(): // the write is over
		}
	})
	return c, func() {
		stop()
		cancel(nil)
	}
}

// cutAfterStop reports whether a write made under c (AfterStop) was cut
// short by the stop's grace.
func cutAfterStop(c context.Context) bool {
	return errors.Is(context.Cause(c), ErrStopGrace)
}
