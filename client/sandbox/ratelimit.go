package sandbox

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Which rate headers the sandbox sends (Options.RateHeaders).
const (
	// RateHeadersLaravel: X-RateLimit-Limit and -Remaining on every answer;
	// Retry-After and X-RateLimit-Reset (epoch seconds) on a 429. Laravel's
	// throttle middleware does this.
	RateHeadersLaravel = "laravel"
	// RateHeadersFull: X-RateLimit-Reset on every answer as well.
	RateHeadersFull = "full"
	// RateHeadersNone: nothing but Retry-After on a 429.
	RateHeadersNone = "none"
)

// rateLimiter keeps fixed windows per key the way Laravel's rate limiter does:
// a key's first request opens a window that ends window seconds after the
// start of that second; up to limit requests fit in it; the rest get 429,
// uncounted, until it ends.
type rateLimiter struct {
	limit   int
	window  time.Duration // whole seconds
	headers string

	mu      sync.Mutex
	windows map[string]time.Time // key → end of its window
	counts  map[string]int
}

// rateVerdict is the limiter's answer for one request.
type rateVerdict struct {
	allowed    bool
	limit      int
	remaining  int
	reset      time.Time // when the current window ends (a whole second)
	retryAfter int       // whole seconds, ≥1, when not allowed
}

func newRateLimiter(limit int, window time.Duration, headers string) *rateLimiter {
	return &rateLimiter{limit: limit, window: window, headers: headers, windows: map[string]time.Time{}, counts: map[string]int{}}
}

// checkRate validates the rate options.
func checkRate(o *Options) error {
	switch {
	case o.RatePerMinute < 0:
		return fmt.Errorf("sandbox: rate %d: want 0 (no limit) or more requests per window", o.RatePerMinute)
	case o.RateWindow < 0 || o.RateWindow%time.Second != 0:
		return fmt.Errorf("sandbox: rate window %s: want whole seconds (like 2s or 1m), or 0 for a minute", o.RateWindow)
	}
	switch o.RateHeaders {
	case "":
		o.RateHeaders = RateHeadersLaravel
	case RateHeadersLaravel, RateHeadersFull, RateHeadersNone:
	default:
		return fmt.Errorf("sandbox: rate headers %q: want %s, %s or %s", o.RateHeaders, RateHeadersLaravel, RateHeadersFull, RateHeadersNone)
	}
	if o.RateWindow == 0 {
		o.RateWindow = time.Minute
	}
	return nil
}

// take counts one request for key at now.
func (l *rateLimiter) take(key string, now time.Time) rateVerdict {
	l.mu.Lock()
	defer l.mu.Unlock()
	end, ok := l.windows[key]
	if !ok || !now.Before(end) {
		end = now.Truncate(time.Second).Add(l.window)
		l.windows[key], l.counts[key] = end, 0
	}
	v := rateVerdict{limit: l.limit, reset: end}
	if l.counts[key] >= l.limit {
		v.retryAfter = max(1, int(end.Unix()-now.Unix()))
		return v
	}
	l.counts[key]++
	v.allowed, v.remaining = true, l.limit-l.counts[key]
	return v
}

// setHeaders writes the verdict's headers in the configured style.
func (l *rateLimiter) setHeaders(h http.Header, v rateVerdict) {
	if l.headers != RateHeadersNone {
		h.Set("X-RateLimit-Limit", strconv.Itoa(v.limit))
		h.Set("X-RateLimit-Remaining", strconv.Itoa(v.remaining))
		if l.headers == RateHeadersFull || !v.allowed {
			h.Set("X-RateLimit-Reset", strconv.FormatInt(v.reset.Unix(), 10))
		}
	}
	if !v.allowed {
		h.Set("Retry-After", strconv.Itoa(v.retryAfter))
	}
}

// windowText names a window for messages: "minute", "2 s".
func windowText(w time.Duration) string {
	if w == time.Minute {
		return "minute"
	}
	return fmt.Sprintf("%d s", w/time.Second)
}
