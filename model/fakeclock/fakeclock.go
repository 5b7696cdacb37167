// Package fakeclock is the one clock tests control: Sleep advances it at
// once and records the wait, so that tests of pacing, retries and timeouts
// wait on a clock they own, not on real seconds. Every package's tests use
// it (client, dispatch, sandbox, config, the CLI); nothing else imports it.
package fakeclock

import (
	"context"
	"sync"
	"time"
)

// Clock is a clock that moves only when told (Advance) or slept on.
type Clock struct {
	mu    sync.Mutex
	t     time.Time
	slept []time.Duration
	// OnSleep, when set, is called after the nth Sleep (from 1), outside
	// the clock's lock: a test can act at a precise point of a retry loop.
	OnSleep func(n int)
}

// New returns a clock showing t.
func New(t time.Time) *Clock { return &Clock{t: t} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Sleep returns ctx's error if it is done; otherwise it moves the clock on
// by d (nothing for d ≤ 0), records d and returns at once.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	c.t = c.t.Add(max(d, 0))
	c.slept = append(c.slept, d)
	n, hook := len(c.slept), c.OnSleep
	c.mu.Unlock()
	if hook != nil {
		hook(n)
	}
	return nil
}

// Advance moves the clock on by d without a sleep.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// Sleeps are the waits asked for so far, in order.
func (c *Clock) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.slept...)
}

// Slept is the total of the waits asked for so far.
func (c *Clock) Slept() time.Duration {
	var total time.Duration
	for _, d := range c.Sleeps() {
		total += max(d, 0)
	}
	return total
}
