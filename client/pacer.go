package client

import (
	"context"
	"encoding/json"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Reasons a request waits, as shown in RateStatus.Reason.
const (
	reasonRateLimit = "rate limit"
	reasonServer429 = "server asked (429)"
)

// RateStore keeps a request budget where every client on the same key sees it,
// in this process or another (config's rate state file: the console and a CLI
// job on one key then share one budget).
type RateStore interface {
	// Update locks the shared state, passes its bytes (nil when there are none
	// yet) to f, stores what f returns and unlocks.
	Update(f func(old []byte) ([]byte, error)) error
	// Load returns the shared state's bytes (nil when there are none yet).
	Load() ([]byte, error)
}

// pacer holds requests back to the key's budget (see budget) and remembers
// the current wait for status bars. With a store, the budget lives there.
type pacer struct {
	perMinute int
	store     RateStore
	logger    *slog.Logger

	mu         sync.Mutex
	b          budget // the budget; with a store, its latest copy
	storeFail  bool   // the store failed once: keep to this process from then on
	waitUntil  time.Time
	waitReason string
}

func newPacer(perMinute int, store RateStore, logger *slog.Logger, now time.Time) *pacer {
	p := &pacer{perMinute: perMinute, store: store, logger: logger, b: newBudget(perMinute, now)}
	if store != nil {
		p.update(now, func(*budget) {}) // show what earlier runs learned
	}
	return p
}

// update applies f to the budget: in the store when there is one, else here.
func (p *pacer) update(now time.Time, f func(*budget)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.store != nil && !p.storeFail {
		applied := false
		err := p.store.Update(func(old []byte) ([]byte, error) {
			var b budget
			if len(old) == 0 || json.Unmarshal(old, &b) != nil {
				b = newBudget(p.perMinute, now)
			}
			b.reconcile(p.perMinute, now)
			f(&b)
			p.b, applied = b, true
			return json.Marshal(b)
		})
		if err == nil {
			return
		}
		p.storeFail = true
		p.logger.Warn("rate state not shared from now on", slog.String("error", err.Error()))
		if applied {
			return
		}
	}
	f(&p.b)
}

// pace holds the caller until a request may start. It returns the request's
// ticket (for observe) and how long it waited.
func (c *Client) pace(ctx context.Context) (ticket int64, waited time.Duration, err error) {
	for {
		now := c.now()
		var wait time.Duration
		var why string
		c.pacer.update(now, func(b *budget) {
			wait, why = b.take(now)
			ticket = b.Taken
		})
		if wait <= 0 {
			return ticket, waited, nil
		}
		if err := c.waitFor(ctx, wait, why); err != nil {
			return 0, waited, err
		}
		waited += wait
	}
}

// waitFor sleeps d (or until ctx is done), telling the wait notifier when the
// wait starts and stops.
func (c *Client) waitFor(ctx context.Context, d time.Duration, reason string) error {
	p := c.pacer
	until := c.now().Add(d)
	p.mu.Lock()
	if until.After(p.waitUntil) {
		p.waitUntil, p.waitReason = until, reason
	}
	p.mu.Unlock()
	err := c.sleep(ctx, d)
	p.mu.Lock()
	if !p.waitUntil.After(until) {
		p.waitUntil, p.waitReason = time.Time{}, ""
	}
	p.mu.Unlock()
	return err
}

// readAnswer collects what an answer's X-RateLimit-Limit, -Remaining and
// -Reset (or the IETF RateLimit-* names) say.
func readAnswer(h http.Header, status int, sentAt, now time.Time, ticket int64) answer {
	a := answer{sentAt: sentAt, now: now, ticket: ticket, status: status, remaining: -1}
	if v, ok := headerInt(h, "X-RateLimit-Limit", "RateLimit-Limit"); ok && v > 0 && v < math.MaxInt32 {
		a.limit = int(v)
	}
	if v, ok := headerInt(h, "X-RateLimit-Remaining", "RateLimit-Remaining"); ok && v >= 0 && v < math.MaxInt32 {
		a.remaining, a.hasRemaining = int(v), true
	}
	if v, ok := headerInt(h, "X-RateLimit-Reset", "RateLimit-Reset"); ok && v >= 0 {
		a.reset = resetTime(v, now)
	}
	return a
}

// observe corrects the budget from an answer's headers.
func (p *pacer) observe(a answer) {
	p.update(a.now, func(b *budget) { b.observe(a) })
}

// refused records a 429 (Retry-After ra, 0 when not said): every request of
// this key waits until until.
func (p *pacer) refused(a answer, ra time.Duration, until time.Time) {
	p.update(a.now, func(b *budget) { b.refused(a, ra, until) })
}

// ended records that ticket's request got no answer by now: it counts from
// now if it may have reached the service (written), else not at all.
func (p *pacer) ended(ticket int64, written bool, now time.Time) {
	p.update(now, func(b *budget) {
		if written {
			b.settle(ticket, now)
		} else {
			b.forget(ticket)
		}
	})
}

// resetTime reads a reset value as epoch seconds (or milliseconds) or as
// seconds from now.
func resetTime(v int64, now time.Time) time.Time {
	switch {
	case v > 1e12:
		return time.UnixMilli(v)
	case v > 1e9:
		return time.Unix(v, 0)
	default:
		return now.Add(time.Duration(v) * time.Second)
	}
}

func headerInt(h http.Header, names ...string) (int64, bool) {
	for _, n := range names {
		v := strings.TrimSpace(h.Get(n))
		if v == "" {
			continue
		}
		if f, err := strconv.ParseFloat(v, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) && math.Abs(f) < 1e15 {
			return int64(math.Ceil(f)), true
		}
	}
	return 0, false
}

// SetRatePerMinute makes n (≤ 0: nothing) the profile's budget from the
// next request on, as WithRatePerMinute sets it at the start: a client
// that lives for days (smsdesk serve's) paces to the profile's
// rate_per_minute as it is at each send, not as it was when the client was
// made (issue 40). What the service announced still wins while fresh.
func (c *Client) SetRatePerMinute(n int) {
	p := c.pacer
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.perMinute == n {
		return
	}
	p.perMinute = n
	p.b.reconcile(n, c.now()) // a shared budget is reconciled at its next update
}

// RateStatus reports the request budget for status bars: Limit requests per
// Window (the profile's, or what the service announced), how many may start
// now without waiting (-1 when nothing is known), and the current wait.
func (c *Client) RateStatus() RateStatus {
	p := c.pacer
	now := c.now()
	p.mu.Lock()
	defer p.mu.Unlock()
	b := &p.b
	if p.store != nil && !p.storeFail {
		// Another process may have spent some since this one last looked.
		if data, err := p.store.Load(); err == nil && len(data) > 0 {
			var shared budget
			if json.Unmarshal(data, &shared) == nil {
				shared.reconcile(p.perMinute, now)
				b = &shared
			}
		}
	}
	st := RateStatus{Limit: b.Limit, Window: b.Window, Remaining: b.remaining(now),
		Learned: b.LimitFrom != fromProfile, WindowLearned: b.windowKnown()}
	if d := p.waitUntil.Sub(now); d > 0 {
		st.Waiting, st.Reason = d, p.waitReason
	}
	return st
}
