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

// How the sandbox counts a key's window (Options.RateWindowStart).
const (
	// WindowStartSecond: a key's first request opens a window that ends
	// RateWindow after the start of that request's second: Laravel's
	// throttle on a file or database cache (and, through its Redis
	// script, on Redis too).
	WindowStartSecond = "second"
	// WindowStartFirst: a key's first request opens a window that ends
	// RateWindow after that request, to the nanosecond: most gateways.
	WindowStartFirst = "first"
	// WindowSliding: a sliding log: a request is taken while fewer than
	// the limit were taken in the RateWindow before it.
	WindowSliding = "sliding"
)

// rateLimiter keeps a window per key, of the kind Options.RateWindowStart
// names: up to limit requests fit in it; the rest get 429, uncounted.
type rateLimiter struct {
	limit   int
	window  time.Duration // whole seconds
	start   string        // WindowStartSecond, WindowStartFirst or WindowSliding
	headers string

	mu   sync.Mutex
	keys map[string][]time.Time // key → its taken requests in the open window, oldest first
}

// rateVerdict is the limiter's answer for one request.
type rateVerdict struct {
	allowed    bool
	limit      int
	remaining  int
	reset      time.Time // when the window ends (sliding: when its oldest request leaves it)
	retryAfter int       // whole seconds, ≥1, when not allowed
}

func newRateLimiter(limit int, window time.Duration, start, headers string) *rateLimiter {
	return &rateLimiter{limit: limit, window: window, start: start, headers: headers, keys: map[string][]time.Time{}}
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
	switch o.RateWindowStart {
	case "":
		o.RateWindowStart = WindowStartSecond
	case WindowStartSecond, WindowStartFirst, WindowSliding:
	default:
		return fmt.Errorf("sandbox: window start %q: want %s, %s or %s", o.RateWindowStart, WindowStartFirst, WindowStartSecond, WindowSliding)
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
	taken := l.open(l.keys[key], now)
	end := l.end(taken, now)
	v := rateVerdict{limit: l.limit, reset: ceilSecond(end)}
	if len(taken) >= l.limit {
		v.retryAfter = max(1, int(end.Unix()-now.Unix()))
		if l.start != WindowStartSecond { // the end is not a whole second: round the wait up
			v.retryAfter = max(1, int((end.Sub(now)+time.Second-1)/time.Second))
		}
		l.keys[key] = taken
		return v
	}
	taken = append(taken, now)
	l.keys[key] = taken
	v.allowed, v.remaining = true, l.limit-len(taken)
	return v
}

// open is what of taken still counts at now: a fixed window's requests until
// it ends, a sliding window's of the last window.
func (l *rateLimiter) open(taken []time.Time, now time.Time) []time.Time {
	if len(taken) == 0 {
		return taken
	}
	if l.start == WindowSliding {
		i := 0
		for i < len(taken) && !taken[i].Add(l.window).After(now) {
			i++
		}
		return taken[i:]
	}
	if !now.Before(l.end(taken, now)) {
		return taken[:0]
	}
	return taken
}

// end is when the window holding taken ends (sliding: when its oldest
// request leaves it); with none taken, the end of a window opened at now.
func (l *rateLimiter) end(taken []time.Time, now time.Time) time.Time {
	first := now
	if len(taken) > 0 {
		first = taken[0]
	}
	if l.start == WindowStartSecond {
		first = first.Truncate(time.Second)
	}
	return first.Add(l.window)
}

// ceilSecond is t rounded up to a whole second, as X-RateLimit-Reset (epoch
// seconds) says it: a client that waits for it finds the window over.
func ceilSecond(t time.Time) time.Time {
	if s := t.Truncate(time.Second); s.Before(t) {
		return s.Add(time.Second)
	}
	return t
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

// windowKindText names a window kind for the sandbox's first lines.
func windowKindText(start string) string {
	switch start {
	case WindowStartFirst:
		return "fixed windows from each window's first request"
	case WindowSliding:
		return "a sliding window"
	}
	return "fixed windows from the first request's whole second"
}
