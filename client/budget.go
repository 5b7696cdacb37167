package client

import (
	"math"
	"time"
)

// Timings of the budget's guesses.
const (
	// maxServerWait caps how long one Reset or Retry-After may hold requests.
	maxServerWait = 2 * time.Minute
	// probeWait is how often requests waiting on a probe look for its answer.
	probeWait = 200 * time.Millisecond
	// probeStale forgets a probe that never got an answer.
	probeStale = 30 * time.Second
	// learnedTTL forgets what the service taught when it has not said it again
	// for this long (a sandbox restarted with other limits, a changed plan).
	learnedTTL = time.Hour
)

// Where a budget's Limit and Window come from.
const (
	fromProfile = ""        // the profile's rate_per_minute over a minute
	fromService = "service" // announced: X-RateLimit-Limit, Reset, Retry-After
	fromCounted = "counted" // counted: requests that went before a 429
)

// budget is the pacer's picture of the service's request budget for one key:
// Limit requests per Window. It is plain data, so that processes on the same
// key can share it through a state file, and pure logic on times given to it.
//
// Until the service says anything it is a token bucket of Limit (a full
// window's budget may go at once) refilled evenly over Window. Once the service
// shows that it counts fixed windows (X-RateLimit-Remaining, or a 429) it keeps
// the service's windows instead: Limit requests from a window's first request
// until its end, then a fresh window; when the end is not known, one request
// goes to ask, and the 429's Retry-After tells it.
type budget struct {
	Limit      int           `json:"limit"`       // requests per window; 0: no budget known, nothing paced
	Window     time.Duration `json:"window"`      // the window's length
	LimitFrom  string        `json:"limit_from"`  // fromProfile, fromService or fromCounted
	WindowFrom string        `json:"window_from"` // fromProfile or fromService
	LearnedAt  time.Time     `json:"learned_at"`  // when the service last taught Limit or Window

	Taken int64 `json:"taken"` // requests granted so far; a request's ticket is Taken after its grant
	// GrantSec is the whole second of the latest grant and InSec the
	// grants in it: a first 429 in the second before its window's end
	// counts only those (refused).
	GrantSec time.Time `json:"grant_sec,omitzero"`
	InSec    int       `json:"in_sec,omitempty"`

	// The token bucket, until the service shows its windows.
	Tokens float64   `json:"tokens"`
	At     time.Time `json:"at"` // when Tokens was counted

	// The service's windows.
	Fixed     bool      `json:"fixed"`
	Start     time.Time `json:"start"`      // the current window's first request; zero: none open
	StartSure bool      `json:"start_sure"` // Start opened the window at the service (not a guess)
	End       time.Time `json:"end"`        // when the current window ends; zero: not known
	Used      int       `json:"used"`       // requests counted in the current window
	Probe     time.Time `json:"probe"`      // a request sent to learn when a spent window ends
	// ProbeAt is when the probe may go: the whole second after the spent
	// window's last grant, the earliest a window of whole seconds turns;
	// ProbeTicket is the probe's ticket, to know its answer.
	ProbeAt     time.Time `json:"probe_at,omitzero"`
	ProbeTicket int64     `json:"probe_ticket,omitempty"`

	Hold    time.Time `json:"hold"` // no request starts before this (a 429's Retry-After)
	HoldWhy string    `json:"hold_why"`
	// Aligned is the end of the latest hold taken from a Retry-After counted
	// from the service's whole second (retryAfterEnd); NotAligned is set
	// when a 429 came soon after such a hold ended: this service counts
	// Retry-After some other way, and it is waited out in full from then on.
	Aligned    time.Time `json:"aligned,omitzero"`
	NotAligned bool      `json:"not_aligned,omitempty"`
}

// newBudget is the profile's budget: perMinute requests a minute, all of it
// available at once.
func newBudget(perMinute int, now time.Time) budget {
	b := budget{}
	b.reset(perMinute, now)
	return b
}

// reset forgets everything learned and starts over from the profile.
func (b *budget) reset(perMinute int, now time.Time) {
	*b = budget{Limit: max(perMinute, 0), Window: time.Minute, Tokens: float64(max(perMinute, 0)), At: now, Taken: b.Taken}
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

// take grants one request at now and returns 0, or says how long to wait
// before asking again and why.
func (b *budget) take(now time.Time) (time.Duration, string) {
	if now.Before(b.Hold) {
		return b.Hold.Sub(now), b.HoldWhy
	}
	if b.Limit <= 0 {
		b.Taken++
		b.countSecond(now)
		return 0, ""
	}
	if !b.Fixed {
		b.refill(now)
		if b.Tokens < 1-1e-9 {
			need := (1 - b.Tokens) * float64(b.Window) / float64(b.Limit)
			return time.Duration(math.Ceil(need)), reasonRateLimit
		}
		if b.Tokens >= float64(b.Limit)-1e-9 {
			// A full bucket: nothing went for a while, so the service's
			// window (if it keeps any) opens with this request; a 429 in
			// it teaches the window and the limit at once.
			b.Start, b.StartSure, b.Used = now, true, 0
		}
		b.Tokens = max(b.Tokens-1, 0)
		b.Used++
		b.Taken++
		b.countSecond(now)
		return 0, ""
	}
	b.roll(now)
	if b.Start.IsZero() {
		// A new window opens with this request; at a service keeping fixed
		// windows, it opens the service's window too.
		b.Start, b.StartSure, b.Used = now, true, 0
		if b.windowKnown() {
			b.End = b.windowEnd(now, time.Time{})
		}
	}
	if b.Used < b.Limit {
		b.Used++
		b.Taken++
		b.countSecond(now)
		return 0, ""
	}
	if !b.End.IsZero() {
		return b.End.Sub(now), reasonRateLimit
	}
	return b.probe(now)
}

// probe decides about a request once the window is spent and its end is not
// known. The service's windows turn at whole seconds, so the earliest this
// one ends is the whole second after its last grant: one request goes then
// to see (a fresh X-RateLimit-Remaining says the window turned, and when it
// was this client's, how long it is; a 429 says when it ends), and the others
// wait for its answer. Sending it at once cost a 429 for every window whose
// length was not known yet: two for a process that began in a window another
// client had opened.
func (b *budget) probe(now time.Time) (time.Duration, string) {
	if b.ProbeAt.IsZero() {
		b.ProbeAt = b.GrantSec.Add(time.Second)
	}
	if now.Before(b.ProbeAt) {
		return b.ProbeAt.Sub(now), reasonRateLimit
	}
	if b.Probe.IsZero() || now.Sub(b.Probe) > probeStale {
		b.Probe = now
		b.Used++
		b.Taken++
		b.ProbeTicket = b.Taken
		b.countSecond(now)
		return 0, ""
	}
	return probeWait, reasonRateLimit
}

// windowEnd is when a window of the known length opened by a request sent at
// sent ends. The service counts whole seconds (Laravel's window, as the
// sandbox's, ends a whole number of seconds after the start of its first
// request's second): the second of sent, or the service's own second (date,
// its Date header) when that is the next one (the request crossed a second
// on its way). Counting from sent itself ended every window late by the
// time its first request waited to go, and the lateness added up, window
// after window. A service whose Retry-After proved not to be counted so
// (NotAligned) keeps sent + Window.
func (b *budget) windowEnd(sent, date time.Time) time.Time {
	if b.NotAligned {
		return sent.Add(b.Window)
	}
	start := sent.Truncate(time.Second)
	if date.After(start) && !date.After(start.Add(time.Second)) {
		start = date
	}
	return start.Add(b.Window)
}

// countSecond counts a grant at now in its whole second.
func (b *budget) countSecond(now time.Time) {
	if sec := now.Truncate(time.Second); !sec.Equal(b.GrantSec) {
		b.GrantSec, b.InSec = sec, 0
	}
	b.InSec++
}

// refill adds the tokens earned since At.
func (b *budget) refill(now time.Time) {
	if d := now.Sub(b.At); d > 0 && b.Window > 0 {
		b.Tokens = min(float64(b.Limit), b.Tokens+float64(b.Limit)*float64(d)/float64(b.Window))
	}
	b.At = now
}

// roll closes the current window once its end has passed.
func (b *budget) roll(now time.Time) {
	if !b.End.IsZero() && !now.Before(b.End) {
		b.Start, b.StartSure, b.End, b.Used = time.Time{}, false, time.Time{}, 0
		b.clearProbe()
	}
}

// clearProbe forgets the probe of a window that is over.
func (b *budget) clearProbe() {
	b.Probe, b.ProbeAt, b.ProbeTicket = time.Time{}, time.Time{}, 0
}

// answer is what one answer said about the budget. ticket is the request's
// Taken count at its grant; sentAt when it was sent.
type answer struct {
	sentAt, now  time.Time
	ticket       int64
	status       int
	limit        int // X-RateLimit-Limit; 0: not said
	remaining    int // X-RateLimit-Remaining; -1: not said
	reset        time.Time
	date         time.Time // the service's Date header: its whole second
	hasRemaining bool
}

// observe corrects the budget from an answer's X-RateLimit-* headers.
func (b *budget) observe(a answer) {
	b.learnLimit(a)
	if !a.reset.IsZero() && a.reset.After(a.now.Add(maxServerWait)) {
		a.reset = a.now.Add(maxServerWait)
	}
	if !a.hasRemaining || b.Limit <= 0 {
		return
	}
	if !b.Fixed {
		b.Fixed, b.Start, b.End, b.Used = true, time.Time{}, time.Time{}, 0
	}
	b.roll(a.now)
	after := int(max(b.Taken-a.ticket, 0)) // granted since this request
	switch {
	case b.opensWindow(a):
		b.openWindow(a, after)
	case !b.Start.IsZero() && a.sentAt.Before(b.Start):
		// an answer from a window already over
	default:
		b.countIn(a, after)
	}
}

// learnLimit takes the service's X-RateLimit-Limit as the budget.
func (b *budget) learnLimit(a answer) {
	if a.limit <= 0 {
		return
	}
	if a.limit != b.Limit {
		b.Limit = a.limit
		b.Tokens = min(b.Tokens, float64(a.limit))
		b.Used = min(b.Used, a.limit)
	}
	b.LimitFrom, b.LearnedAt = fromService, a.now
}

// opensWindow reports whether the answer's request was the first of the
// service's window: all of the budget but this request left, sent no
// earlier than the window we know.
func (b *budget) opensWindow(a answer) bool {
	return a.status != 429 && a.remaining >= b.Limit-1 && (b.Start.IsZero() || !a.sentAt.Before(b.Start))
}

// openWindow starts a window at the answer's request.
func (b *budget) openWindow(a answer, after int) {
	b.learnFromProbe(a)
	b.Start, b.StartSure, b.Used = a.sentAt, true, 1+after
	b.clearProbe()
	b.End = time.Time{}
	switch {
	case !a.reset.IsZero():
		b.learnWindow(wholeSeconds(a.sentAt, a.reset), a.now)
		b.End = a.reset
	case b.windowKnown():
		b.End = b.windowEnd(a.sentAt, a.date)
	}
}

// learnFromProbe learns the window's length from a probe that found a fresh
// window: the window this client opened ended at the whole second the probe
// waited for (its last grant was in the second before, still inside it), so
// it was as long as the whole seconds from its first request's second.
func (b *budget) learnFromProbe(a answer) {
	if b.ProbeTicket == 0 || a.ticket != b.ProbeTicket || !b.StartSure || b.Start.IsZero() {
		return
	}
	if a.sentAt.Before(b.ProbeAt) || !a.sentAt.Before(b.ProbeAt.Add(time.Second)) {
		return // it did not go in the second the window was expected to turn
	}
	b.learnWindow(wholeSeconds(b.Start, b.ProbeAt), a.now)
}

// countIn counts the answer's request (and those granted since) in the
// current window.
func (b *budget) countIn(a answer, after int) {
	if b.Start.IsZero() {
		b.Start, b.StartSure = a.sentAt, false
	}
	b.Used = max(b.Used, b.Limit-a.remaining+after)
	if !a.reset.IsZero() {
		b.End = a.reset
	} else if b.End.IsZero() && b.StartSure && b.windowKnown() {
		b.End = b.Start.Add(b.Window)
	}
}

// refused records a 429: nothing starts before until, and the window it
// closes teaches the window's length (and, when the service never said, its
// budget: the requests that went before it).
//
// aligned says until came from a Retry-After counted from the service's
// whole second; a 429 for a request sent within a second after the previous
// such hold ended says the service does not count so (NotAligned).
func (b *budget) refused(a answer, until time.Time, aligned bool) {
	if a.ticket == 0 || a.ticket != b.ProbeTicket {
		// A probe's 429 says the window had not turned yet, not that a
		// Retry-After is counted some other way.
		b.noteAlignment(a, until, aligned)
	}
	if until.After(a.now.Add(maxServerWait)) {
		until = a.now.Add(maxServerWait)
	}
	if until.After(b.Hold) {
		b.Hold, b.HoldWhy = until, reasonServer429
	}
	b.clearProbe()
	// The bucket's count since it was last full is the window's so far
	// (take keeps Start, StartSure and Used while it is a bucket).
	b.Fixed = true
	b.learnFrom429(a, until, aligned)
	if b.Start.IsZero() {
		b.Start = a.sentAt
	}
	b.Used, b.End = max(b.Used, b.Limit), until
}

// noteAlignment keeps until when it came from a Retry-After counted from
// the service's whole second (aligned), and says NotAligned when a 429
// came for a request sent within a second after the previous such hold
// ended.
func (b *budget) noteAlignment(a answer, until time.Time, aligned bool) {
	if !b.Aligned.IsZero() && !a.sentAt.Before(b.Aligned) && a.sentAt.Before(b.Aligned.Add(time.Second)) {
		b.NotAligned = true
	}
	b.Aligned = time.Time{}
	if aligned && !b.NotAligned {
		b.Aligned = until
	}
}

// learnFrom429 learns the window (and, when the service never said, its
// budget) that a 429 closing at until ends.
func (b *budget) learnFrom429(a answer, until time.Time, aligned bool) {
	later := int(max(b.Taken-a.ticket, 0)) // granted after this one
	before := b.Used - later - 1           // went in this window before this one
	window := wholeSeconds(b.Start, until)
	if b.burstAcrossASecond(a, until, aligned, window) {
		// The first 429 of a service that says nothing came in the second
		// before its window's end, and this client's requests began in an
		// earlier second: they may well have filled two windows of a
		// second (a burst across a second's turn). The smallest window
		// that fits is taken, with the requests of its second; a longer
		// one, if that is what the service keeps, shows at its next 429.
		window, before = time.Second, b.InSec-later-1
	}
	if !b.StartSure || a.sentAt.Before(b.Start) || before < 1 {
		return // a 429 on this client's first request says another client's window was open
	}
	// A window this client opened: it ends at until.
	b.learnWindow(window, a.now)
	if b.LimitFrom != fromService && b.Limit > 0 && before < b.Limit {
		b.Limit, b.LimitFrom, b.LearnedAt = before, fromCounted, a.now
	}
}

// burstAcrossASecond reports whether a 429 (aligned, closing a window
// longer than a second at until) came in the second before the window's
// end, for requests this client began in an earlier second, from a service
// that has said neither its window nor its limit.
func (b *budget) burstAcrossASecond(a answer, until time.Time, aligned bool, window time.Duration) bool {
	last := until.Add(-time.Second)
	return aligned && window > time.Second && a.sentAt.Truncate(time.Second).Equal(last) &&
		b.GrantSec.Equal(last) && b.WindowFrom != fromService && b.LimitFrom != fromService
}

// wholeSeconds is a window's length from its first request (start) to its
// end as the service stated it: services count whole seconds (Laravel's
// window opens at the second of its first request and ends a whole number
// of seconds later), so it is the seconds from start's second to end's,
// never less than one. Rounding end - start up instead made a one-second
// window opened at .3 and told to end after a Retry-After of 1 at .35 two
// seconds long: bursts two seconds apart, half the service's pace.
//
// An end that is not a whole second (a Reset given as seconds from now) is
// no whole second of the service's: the length is end - start, rounded up.
func wholeSeconds(start, end time.Time) time.Duration {
	d := end.Sub(start)
	if end.Equal(end.Truncate(time.Second)) {
		d = end.Sub(start.Truncate(time.Second))
	}
	return max(((d+time.Second-1)/time.Second)*time.Second, time.Second)
}

// learnWindow takes d, a window's length in whole seconds (wholeSeconds),
// as the service's.
func (b *budget) learnWindow(d time.Duration, now time.Time) {
	if d <= 0 {
		return
	}
	w := min(d, maxServerWait)
	if b.Window != w || b.WindowFrom != fromService {
		b.Window = w
	}
	b.WindowFrom, b.LearnedAt = fromService, now
}

// remaining is how many requests may start at now without waiting.
func (b *budget) remaining(now time.Time) int {
	if now.Before(b.Hold) {
		return 0
	}
	if b.Limit <= 0 {
		return -1
	}
	if !b.Fixed {
		t := b.Tokens
		if d := now.Sub(b.At); d > 0 {
			t = min(float64(b.Limit), t+float64(b.Limit)*float64(d)/float64(b.Window))
		}
		return max(int(math.Floor(t)), 0)
	}
	if !b.End.IsZero() && !now.Before(b.End) {
		return b.Limit
	}
	return max(b.Limit-b.Used, 0)
}
