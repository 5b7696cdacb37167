package sandbox

import (
	"sync"
	"time"
)

// rateLimiter is a fixed window per key: the first request opens a window of
// one period; up to limit requests fit in it; the rest get 429 until it ends.
type rateLimiter struct {
	limit  int
	period time.Duration

	mu      sync.Mutex
	windows map[string]*rateWindow
}

type rateWindow struct {
	start time.Time
	count int
}

// rateVerdict is the limiter's answer for one request.
type rateVerdict struct {
	allowed    bool
	limit      int
	remaining  int
	reset      time.Time // when the current window ends
	retryAfter int       // whole seconds, ≥1, when not allowed
}

func newRateLimiter(limit int, period time.Duration) *rateLimiter {
	return &rateLimiter{limit: limit, period: period, windows: map[string]*rateWindow{}}
}

// take counts one request for key at now.
func (l *rateLimiter) take(key string, now time.Time) rateVerdict {
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.windows[key]
	if w == nil || !now.Before(w.start.Add(l.period)) {
		w = &rateWindow{start: now}
		l.windows[key] = w
	}
	v := rateVerdict{limit: l.limit, reset: w.start.Add(l.period)}
	if w.count >= l.limit {
		wait := v.reset.Sub(now)
		v.retryAfter = max(1, int((wait+time.Second-1)/time.Second))
		return v
	}
	w.count++
	v.allowed, v.remaining = true, l.limit-w.count
	return v
}
