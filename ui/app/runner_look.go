package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/config/ledger"
)

// A runner's looks at the ledger (its due sends, its claim, when the next
// is due) wait for the ledger at most the look wait (docs/ARCHITECTURE.md,
// "Waits on the ledger"): a runner that meets a ledger held by another
// session (a `LOCK TABLE sends` left open in psql, a writer that hangs)
// gives up that look, says what it waited for, and starts nothing by it;
// a Loop looks again later, `scheduler --once` exits non-zero within 30 s.
// The caller's context cuts a look short at once.

// What a runner's looks are, for people.
const (
	lookDue = "looking for due sends"
	// lookLeft: a pass's look for sends left for an operator
	// (held past Late, or whose runner has gone).
	lookLeft  = "looking for sends left past their time"
	lookClaim = "claiming due sends"
	lookCheck = "verifying the ledger"
	lookNext  = "looking for when the next send is due"
	lookRead  = "reading the claimed sends"
	// lookRepeats: the repeat guard's look for earlier sends, before a
	// claim (Session.facts).
	lookRepeats = "looking for earlier sends (the repeat guard)"
)

// LookWaitError is a runner's look at the ledger that waited past its
// bound (Runner.LookWait) and gave up. Nothing was started by it.
type LookWaitError struct {
	// What the look was: "looking for due sends".
	What string
	// Waited is the bound it waited.
	Waited time.Duration
	// For is what it most likely waited for, as the ledger says
	// (config.LedgerLockHolder); "" when it does not say.
	For string
	// Err is the ledger's error as the bound ended the look.
	Err error
}

// Error says what waited, how long, for what, and what to do.
func (e *LookWaitError) Error() string {
	why := "the ledger did not answer"
	if e.For != "" {
		why = e.For
	}
	return fmt.Sprintf("%s: waited %v for the ledger and gave up: %s; nothing was started. Find what holds the ledger (a psql or sqlite3 session with a transaction open, a backup, another smsdesk's import) and try again",
		e.What, e.Waited, why)
}

// Unwrap gives ledger.ErrBusy and the ledger's error.
func (e *LookWaitError) Unwrap() []error { return []error{ledger.ErrBusy, e.Err} }

// lookWait is the runner's bound on a look.
func (r *Runner) lookWait() time.Duration {
	if r.LookWait > 0 {
		return r.LookWait
	}
	return ledger.LookWait
}

// looking runs look, one look at the ledger, under ctx bounded by the
// look wait: past it, a *LookWaitError naming what (and what the ledger
// says it waited for); ctx's own end is ctx's error, as it is.
func (r *Runner) looking(ctx context.Context, what string, look func(context.Context) error) error {
	c, cancel := context.WithTimeout(ctx, r.lookWait())
	defer cancel()
	return r.lookFailed(ctx, what, look(c))
}

// lookFailed is err of a look made under ctx and the look wait: a
// *LookWaitError when the bound, not ctx, ended it.
func (r *Runner) lookFailed(ctx context.Context, what string, err error) error {
	if err == nil || ctx.Err() != nil || !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &LookWaitError{What: what, Waited: r.lookWait(), For: config.LedgerLockHolder(ctx, r.Session.Paths), Err: err}
}

// Once is one pass as a cron job makes it (scheduler --once): Pass and,
// when it started nothing, when the next send is due (zero: none waits),
// that look bounded by what is left of the look wait from the pass's
// start: a ledger held by another session ends the whole within one look
// wait, not one a look. err is the pass's (Pass), or the look's for the
// next send (a *LookWaitError when it gave up).
func (r *Runner) Once(ctx context.Context) (started int, next time.Time, err error) {
	lookBy := time.Now().Add(r.lookWait())
	started, err = r.Pass(ctx)
	if err != nil || started > 0 || ctx.Err() != nil {
		return started, time.Time{}, err
	}
	c, cancel := context.WithDeadline(ctx, lookBy)
	defer cancel()
	next, err = r.Next(c)
	if err != nil && ctx.Err() == nil && c.Err() != nil {
		err = r.lookFailed(ctx, lookNext, errors.Join(context.DeadlineExceeded, err))
	}
	return started, next, err
}
