package client

import (
	"context"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// maxServerWait caps how long a server's X-RateLimit-Reset may hold requests.
const maxServerWait = 2 * time.Minute

// Reasons a request waits, as shown in RateStatus.Reason.
const (
	reasonRateLimit = "rate limit"
	reasonServer429 = "server asked (429)"
)

// newMinuteLimiter makes a token bucket for perMinute requests a minute with a
// small burst. The refill rate leaves room for the burst, so that no sliding
// minute holds more than perMinute requests. nil when pacing is off.
func newMinuteLimiter(perMinute int) *rate.Limiter {
	if perMinute <= 0 {
		return nil
	}
	burst := min(max(perMinute/20, 1), 5)
	refill := perMinute - burst
	if refill < 1 {
		refill = 1
		burst = max(perMinute-1, 1)
	}
	return rate.NewLimiter(rate.Limit(float64(refill)/60), burst)
}

// pacer holds requests back: for the client's token bucket, for a server gate
// (X-RateLimit-Remaining hit 0 until the reset, or a 429's Retry-After), and
// reports what it is doing.
type pacer struct {
	lim       *rate.Limiter // nil: no client-side pacing
	perMinute int
	shared    bool

	mu           sync.Mutex
	gateUntil    time.Time // no request starts before this
	gateReason   string
	srvLimit     int // from X-RateLimit-Limit; 0 when unknown
	srvRemaining int // from X-RateLimit-Remaining; -1 when unknown
	srvResetAt   time.Time
	waitUntil    time.Time
	waitReason   string
}

func newPacer(lim *rate.Limiter, perMinute int, shared bool) *pacer {
	return &pacer{lim: lim, perMinute: perMinute, shared: shared, srvRemaining: -1}
}

// pace holds the caller until a request may start. It returns how long it waited.
func (c *Client) pace(ctx context.Context) (time.Duration, error) {
	p := c.pacer
	var waited time.Duration
	p.mu.Lock()
	gate, reason := p.gateUntil, p.gateReason
	p.mu.Unlock()
	if d := gate.Sub(c.now()); d > 0 {
		if err := c.waitFor(ctx, d, reason); err != nil {
			return waited, err
		}
		waited += d
	}
	if p.lim == nil {
		return waited, nil
	}
	r := p.lim.Reserve()
	if !r.OK() {
		return waited, nil // a limiter with burst 0 cannot pace; let the server say
	}
	if d := r.Delay(); d > 0 {
		if err := c.waitFor(ctx, d, reasonRateLimit); err != nil {
			r.Cancel()
			return waited, err
		}
		waited += d
	}
	return waited, nil
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
	if c.waitNotify != nil {
		st := c.RateStatus()
		st.Waiting, st.Reason = d, reason
		c.waitNotify(st)
	}
	err := c.sleep(ctx, d)
	p.mu.Lock()
	if !p.waitUntil.After(until) {
		p.waitUntil, p.waitReason = time.Time{}, ""
	}
	p.mu.Unlock()
	if c.waitNotify != nil {
		st := c.RateStatus()
		st.Waiting, st.Reason = 0, ""
		c.waitNotify(st)
	}
	return err
}

// holdUntil makes every request wait until t (a 429's Retry-After).
func (p *pacer) holdUntil(t time.Time, reason string) {
	p.mu.Lock()
	if t.After(p.gateUntil) {
		p.gateUntil, p.gateReason = t, reason
	}
	p.mu.Unlock()
}

// observe reads X-RateLimit-Limit/Remaining/Reset (or the IETF RateLimit-*
// names); when Remaining is 0, requests wait for the reset.
func (p *pacer) observe(h http.Header, now time.Time) {
	limit, okL := headerInt(h, "X-RateLimit-Limit", "RateLimit-Limit")
	remaining, okR := headerInt(h, "X-RateLimit-Remaining", "RateLimit-Remaining")
	reset, okS := headerInt(h, "X-RateLimit-Reset", "RateLimit-Reset")
	p.mu.Lock()
	defer p.mu.Unlock()
	if okL {
		p.srvLimit = int(limit)
	}
	if okR {
		p.srvRemaining = int(remaining)
	}
	if okS {
		p.srvResetAt = resetTime(reset, now)
	}
	if okR && remaining <= 0 && okS {
		t := p.srvResetAt
		if t.After(now.Add(maxServerWait)) {
			t = now.Add(maxServerWait)
		}
		if t.After(p.gateUntil) {
			p.gateUntil, p.gateReason = t, reasonRateLimit
		}
	}
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
		if f, err := strconv.ParseFloat(v, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return int64(math.Ceil(f)), true
		}
	}
	return 0, false
}

// RateStatus reports the request budget for status bars: the pace the client
// keeps (or the service's limit when the client does not pace), how many
// requests may start now without waiting (-1 when neither the client nor the
// service keeps count), and the current wait.
func (c *Client) RateStatus() RateStatus {
	p := c.pacer
	now := c.now()
	st := RateStatus{Limit: p.perMinute, Remaining: -1}
	if p.lim != nil {
		if p.shared {
			st.Limit = int(math.Round(float64(p.lim.Limit()) * 60))
		}
		st.Remaining = max(int(math.Floor(p.lim.TokensAt(now))), 0)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.lim == nil && p.srvLimit > 0 {
		st.Limit = p.srvLimit
	}
	srvFresh := p.srvResetAt.IsZero() || now.Before(p.srvResetAt)
	if p.srvRemaining >= 0 && srvFresh && (st.Remaining < 0 || p.srvRemaining < st.Remaining) {
		st.Remaining = p.srvRemaining
	}
	if now.Before(p.gateUntil) {
		st.Remaining = 0
	}
	if d := p.waitUntil.Sub(now); d > 0 {
		st.Waiting, st.Reason = d, p.waitReason
	}
	return st
}
