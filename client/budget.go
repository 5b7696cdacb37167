package client

import (
	"slices"
	"time"
)

// Timings and sizes of the budget.
const (
	// maxServerWait caps how long one Reset or Retry-After may hold requests.
	maxServerWait = 2 * time.Minute
	// openStale is how long a request may stay unanswered (a process that
	// died with it in flight) before it counts as answered then.
	openStale = time.Minute
	// openPoll is how often a request waiting only on unanswered ones looks
	// again.
	openPoll = 200 * time.Millisecond
	// learnedTTL forgets what the service taught when it has not said it again
	// for this long (a sandbox restarted with other limits, a changed plan).
	learnedTTL = time.Hour
	// maxLog is the most requests the log holds: a larger budget is kept as
	// the same rate over a shorter window (slots).
	maxLog = 600
)

// Where a budget's Limit and Window come from.
const (
	fromProfile = ""        // the profile's rate_per_minute over a minute
	fromService = "service" // announced (X-RateLimit-Limit), or the window a 429 showed
	fromCounted = "counted" // counted: requests that went before a 429
	fromGuess   = "guess"   // the window of a limit the service announced: a second, until a 429 shows more
)

// budget is the pacer's picture of the key's request budget: Limit requests
// in any Window. It is plain data, so that processes on the same key can
// share it through a state file, and pure logic on times given to it.
//
// It keeps a log of the key's requests that the service may still count:
// each from its grant until it is answered, then from its answer (the
// latest it can have reached the service). A request is granted while fewer
// than Limit of them were answered within the last Window or are still
// unanswered. So the request that follows Limit others reaches the service
// at least a Window after the first of them did, and no window of the
// service holds more than Limit of the key's requests, however it counts
// them: fixed windows turning at whole seconds (Laravel), fixed windows
// opened by their first request (most gateways) or a sliding log. A
// window's budget may go at once; nothing models the service's clock.
//
// The service's X-RateLimit-Remaining corrects the log on every answer:
// requests it counts that the log does not have (another client's) are
// added, and the log's oldest that it no longer counts (its window turned)
// are dropped. Its window is not announced: a service that announces its
// limit is taken to count it over a second until a 429 shows a longer
// window (learnFrom429).
type budget struct {
	Limit      int           `json:"limit"`       // requests per window; 0: no budget known, nothing paced
	Window     time.Duration `json:"window"`      // the window's length
	LimitFrom  string        `json:"limit_from"`  // fromProfile, fromService or fromCounted
	WindowFrom string        `json:"window_from"` // fromProfile, fromGuess or fromService
	LearnedAt  time.Time     `json:"learned_at"`  // when the service last taught Limit or Window

	Taken int64   `json:"taken"` // requests granted so far; a request's ticket is Taken after its grant
	Log   []stamp `json:"log,omitempty"`

	// Opened is the answer to the first request known to be in the
	// service's current window, and Counted the requests answered in it
	// since: what a 429 teaches the window and (from a service that does
	// not announce it) the limit from.
	Opened  time.Time `json:"opened,omitzero"`
	Counted int       `json:"counted,omitempty"`

	Hold    time.Time `json:"hold,omitzero"` // no request starts before this (a 429's Retry-After, a Reset)
	HoldWhy string    `json:"hold_why,omitempty"`
}

// stamp is one request in the log.
type stamp struct {
	Ticket int64     `json:"t,omitempty"` // 0: another client's request, counted by the service
	At     time.Time `json:"at"`          // when it was answered; while Open, when it was granted
	Open   bool      `json:"open,omitempty"`
}

// newBudget is the profile's budget: perMinute requests a minute.
func newBudget(perMinute int, now time.Time) budget {
	b := budget{}
	b.reset(perMinute, now)
	return b
}

// reset forgets everything learned and starts over from the profile.
func (b *budget) reset(perMinute int, _ time.Time) {
	*b = budget{Limit: max(perMinute, 0), Window: time.Minute, Taken: b.Taken}
}

// reconcile adopts the profile's figure when nothing learned is fresh (a state
// file written by an earlier run, or a fresh one).
func (b *budget) reconcile(perMinute int, now time.Time) {
	learned := b.LimitFrom != fromProfile || b.WindowFrom != fromProfile
	if b.Window <= 0 || (learned && now.Sub(b.LearnedAt) > learnedTTL) || (!learned && b.Limit != perMinute) {
		b.reset(perMinute, now)
	}
}

// windowKnown reports whether the window's length came from the service.
func (b *budget) windowKnown() bool { return b.WindowFrom == fromService }

// slots is the budget the log keeps: Limit per Window, or for a budget past
// maxLog the same rate over a shorter window (a window of the service's
// length, made of those, then holds no more than Limit either).
func (b *budget) slots() (int, time.Duration) {
	if b.Limit <= maxLog {
		return b.Limit, b.Window
	}
	k := (b.Limit + maxLog - 1) / maxLog
	return b.Limit / k, b.Window / time.Duration(k)
}

// take grants one request at now and returns 0, or says how long to wait
// before asking again and why.
func (b *budget) take(now time.Time) (time.Duration, string) {
	if now.Before(b.Hold) {
		return b.Hold.Sub(now), b.HoldWhy
	}
	if b.Limit > 0 {
		limit, window := b.slots()
		b.prune(now, window)
		if len(b.Log) >= limit {
			return b.freeIn(now, limit, window), reasonRateLimit
		}
	}
	b.Taken++
	if b.Limit > 0 {
		b.Log = append(b.Log, stamp{Ticket: b.Taken, At: now, Open: true})
	}
	return 0, ""
}

// expiry is when s stops counting against a window's budget.
func (s stamp) expiry(window time.Duration) time.Time {
	if s.Open {
		return s.At.Add(openStale + window)
	}
	return s.At.Add(window)
}

// prune drops the log's requests that no longer count at now.
func (b *budget) prune(now time.Time, window time.Duration) {
	b.Log = slices.DeleteFunc(b.Log, func(s stamp) bool { return !s.expiry(window).After(now) })
}

// freeIn is how long until fewer than limit of the log count: until the
// one that makes the log full expires, or, while some are unanswered (their
// answers move them), openPoll.
func (b *budget) freeIn(now time.Time, limit int, window time.Duration) time.Duration {
	ends := make([]time.Time, 0, len(b.Log))
	open := false
	for _, s := range b.Log {
		ends = append(ends, s.expiry(window))
		open = open || s.Open
	}
	slices.SortFunc(ends, time.Time.Compare)
	wait := ends[len(ends)-limit].Sub(now)
	if open {
		wait = min(wait, openPoll)
	}
	return wait
}

// settle moves ticket's request to its answer (or the moment it certainly
// ended) at.
func (b *budget) settle(ticket int64, at time.Time) {
	for i := range b.Log {
		if s := &b.Log[i]; s.Ticket == ticket && s.Open {
			s.At, s.Open = at, false
			return
		}
	}
}

// forget drops ticket's request: it never reached the service.
func (b *budget) forget(ticket int64) {
	b.Log = slices.DeleteFunc(b.Log, func(s stamp) bool { return s.Ticket == ticket })
}

// answer is what one answer said about the budget. ticket is the request's
// Taken count at its grant; sentAt when it was written.
type answer struct {
	sentAt, now  time.Time
	ticket       int64
	status       int
	limit        int // X-RateLimit-Limit; 0: not said
	remaining    int // X-RateLimit-Remaining; -1: not said
	reset        time.Time
	hasRemaining bool
}

// observe corrects the budget from a (not 429) answer's headers.
func (b *budget) observe(a answer) {
	b.learnLimit(a)
	b.settle(a.ticket, a.now)
	if b.Limit <= 0 {
		return
	}
	turned := false
	if limit, _ := b.slots(); a.hasRemaining && limit == b.Limit {
		turned = b.countAsService(a)
	}
	b.noteOpened(a, turned)
	if a.hasRemaining && a.remaining == 0 && a.reset.After(a.now) && a.reset.After(b.Hold) {
		// A spent window whose end the service said: nothing goes before it.
		b.Hold, b.HoldWhy = earlier(a.reset, a.now.Add(maxServerWait)), reasonRateLimit
	}
}

// learnLimit takes the service's X-RateLimit-Limit as the budget. Its
// window is not said: it is taken as a second (the shortest window a
// service counts) until a 429 shows a longer one.
func (b *budget) learnLimit(a answer) {
	if a.limit <= 0 {
		return
	}
	b.Limit, b.LimitFrom, b.LearnedAt = a.limit, fromService, a.now
	if b.WindowFrom == fromProfile {
		b.Window, b.WindowFrom = time.Second, fromGuess
	}
}

// countAsService makes the log count what the service counts: Limit −
// Remaining requests up to this one (those granted after it may or may not
// have reached the service yet). Requests it counts that the log does not
// have (another client's) are added as answered now; the log's oldest that
// it no longer counts are dropped. It reports whether any were dropped: the
// service's window turned.
func (b *budget) countAsService(a answer) bool {
	used := max(b.Limit-a.remaining, 1)
	mine, answered := 0, 0
	for _, s := range b.Log {
		if s.Ticket <= a.ticket {
			mine++
			if !s.Open {
				answered++
			}
		}
	}
	switch {
	case mine < used:
		for range used - mine {
			b.Log = append(b.Log, stamp{At: a.now})
		}
	case answered > used:
		slices.SortStableFunc(b.Log, func(x, y stamp) int { return x.At.Compare(y.At) })
		drop := answered - used
		b.Log = slices.DeleteFunc(b.Log, func(s stamp) bool {
			if drop > 0 && !s.Open && s.Ticket <= a.ticket {
				drop--
				return true
			}
			return false
		})
		return true
	}
	return false
}

// noteOpened keeps Opened, the answer to the first request known to be in
// the service's current window: this one when the service says it opened a
// window (all but one of its budget left) or turned (turned), or, from a
// service that does not say, when it went a Window after Opened.
func (b *budget) noteOpened(a answer, turned bool) {
	fresh := b.Opened.IsZero() || turned
	if a.hasRemaining {
		fresh = fresh || a.remaining >= b.Limit-1
	} else {
		fresh = fresh || !a.sentAt.Before(b.Opened.Add(b.Window))
	}
	if fresh {
		b.Opened, b.Counted = a.now, 0
	}
	b.Counted++
}

// refused records a 429 answered at a.now, whose Retry-After was ra (0: not
// said): nothing starts before until, the refused request counts for
// nothing, and the window it closes teaches what it can (learnFrom429).
func (b *budget) refused(a answer, ra time.Duration, until time.Time) {
	b.learnLimit(a)
	b.forget(a.ticket)
	until = earlier(until, a.now.Add(maxServerWait))
	if until.After(b.Hold) {
		b.Hold, b.HoldWhy = until, reasonServer429
	}
	if b.Limit > 0 {
		b.learnFrom429(a, ra)
	}
	b.Opened, b.Counted = time.Time{}, 0
}

// learnFrom429 learns from a 429 how long the service's window is at
// least. The window was open when the refused request reached it (after
// a.sentAt), and had been since the first request known in it (Opened,
// when that is within a Window and a second before); it ends later than
// a second before the end the service said: a Retry-After of whole
// seconds is the rest of the window rounded up, or counted from the
// service's whole second, and a Reset is a whole second at or after the
// end. Windows are whole seconds, so the window is at least the next whole
// second past the span from that start to that end, and never shorter than
// a Retry-After. When the limit was never announced, the requests answered
// in the window before the refusal are the limit.
func (b *budget) learnFrom429(a answer, ra time.Duration) {
	var end time.Time
	if ra > 0 {
		end = a.sentAt.Add(ra - time.Second)
	}
	if r := a.reset.Add(-time.Second); !a.reset.IsZero() && r.After(end) {
		end = r
	}
	if end.IsZero() {
		return
	}
	from, ours := a.sentAt, !b.Opened.IsZero() && a.sentAt.Sub(b.Opened) < b.Window+time.Second
	if ours {
		from = b.Opened
	}
	w := time.Second
	if span := end.Sub(from); span >= 0 {
		w = span.Truncate(time.Second) + time.Second
	}
	if b.windowKnown() {
		w = max(w, b.Window)
	}
	b.Window, b.WindowFrom, b.LearnedAt = min(w, maxServerWait), fromService, a.now
	if ours && b.LimitFrom != fromService && b.Counted > 0 && b.Counted < b.Limit {
		b.Limit, b.LimitFrom = b.Counted, fromCounted
	}
}

// remaining is how many requests may start at now without waiting (-1: no
// budget known).
func (b *budget) remaining(now time.Time) int {
	if now.Before(b.Hold) {
		return 0
	}
	if b.Limit <= 0 {
		return -1
	}
	limit, window := b.slots()
	n := 0
	for _, s := range b.Log {
		if s.expiry(window).After(now) {
			n++
		}
	}
	return max(limit-n, 0) * (b.Limit / limit)
}

// earlier is the earlier of x and y.
func earlier(x, y time.Time) time.Time {
	if y.Before(x) {
		return y
	}
	return x
}
