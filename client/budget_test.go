package client

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 20, 12, 0, 0, 300e6, time.UTC)

// grant takes one request at now and fails unless it may go at once; it
// returns the request's ticket.
func grant(t *testing.T, b *budget, now time.Time) int64 {
	t.Helper()
	if d, why := b.take(now); d != 0 {
		t.Fatalf("take at %v: wait %v (%s), want at once", now.Sub(t0), d, why)
	}
	return b.Taken
}

// answered is a 200 to ticket sent at sent and answered 5 ms later, saying
// limit and remaining (-1: not said).
func answered(ticket int64, sent time.Time, limit, remaining int) answer {
	return answer{sentAt: sent, now: sent.Add(5 * time.Millisecond), ticket: ticket, status: 200, limit: limit,
		remaining: remaining, hasRemaining: remaining >= 0}
}

// waitAt is how long a request asked for at now waits.
func waitAt(b *budget, now time.Time) time.Duration {
	d, _ := b.take(now)
	if d == 0 {
		b.forget(b.Taken)
	}
	return d
}

func TestBudget_Reconcile(t *testing.T) {
	learned := newBudget(60, t0)
	learned.observe(answered(0, t0, 20, 19))
	for _, tc := range []struct {
		name       string
		b          budget
		perMinute  int
		at         time.Time
		wantLimit  int
		wantWindow time.Duration
	}{
		{"fresh learned figures stay", learned, 600, t0.Add(time.Minute), 20, time.Second},
		{"learned an hour ago: back to the profile", learned, 600, t0.Add(61 * time.Minute), 600, time.Minute},
		{"the profile changed, nothing learned", newBudget(60, t0), 120, t0, 120, time.Minute},
		{"an unreadable window", budget{Limit: 5}, 60, t0, 60, time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.b
			b.reconcile(tc.perMinute, tc.at)
			if b.Limit != tc.wantLimit || b.Window != tc.wantWindow {
				t.Errorf("after reconcile: %d per %v, want %d per %v", b.Limit, b.Window, tc.wantLimit, tc.wantWindow)
			}
		})
	}
}

// TestBudget_NoWindowHoldsMore: a budget of 3 a second goes at once; the
// fourth request waits until the first's answer is a second old, whatever
// second of the clock that is, and the log's requests free one by one.
func TestBudget_NoWindowHoldsMore(t *testing.T) {
	b := newBudget(60, t0)
	b.Limit, b.Window = 3, time.Second
	for i := range 3 {
		sent := t0.Add(time.Duration(i) * 10 * time.Millisecond)
		b.observe(answered(grant(t, &b, sent), sent, -1, -1))
	}
	at := t0.Add(30 * time.Millisecond)
	if d := waitAt(&b, at); d != t0.Add(5*time.Millisecond+time.Second).Sub(at) {
		t.Fatalf("the fourth waits %v, want until the first's answer is a second old", d)
	}
	free := t0.Add(5*time.Millisecond + time.Second)
	grant(t, &b, free)
	if d := waitAt(&b, free); d != 10*time.Millisecond {
		t.Errorf("the fifth waits %v, want 10 ms (the second's answer a second old)", d)
	}
	if got := b.remaining(free); got != 0 {
		t.Errorf("remaining %d, want 0", got)
	}
}

// TestBudget_UnansweredRequests: a request granted and not answered holds
// its place (the others poll for its answer), one that never reached the
// service gives it back, and one whose answer never comes (its process
// died) stops counting after openStale.
func TestBudget_UnansweredRequests(t *testing.T) {
	b := newBudget(1, t0)
	tk := grant(t, &b, t0)
	if d := waitAt(&b, t0.Add(10*time.Second)); d != openPoll {
		t.Fatalf("wait %v behind an unanswered request, want %v", d, openPoll)
	}
	b.forget(tk) // not written
	grant(t, &b, t0.Add(time.Second))
	late := t0.Add(time.Second + openStale + time.Minute)
	if d := waitAt(&b, late.Add(-time.Second)); d != openPoll {
		t.Fatalf("wait %v before the unanswered one is stale, want %v", d, openPoll)
	}
	grant(t, &b, late)
}

// TestBudget_CountsAsTheServiceDoes: X-RateLimit-Remaining below what the
// log knows adds the other clients' requests; above, the service's window
// turned and the log's oldest are dropped.
func TestBudget_CountsAsTheServiceDoes(t *testing.T) {
	b := newBudget(60, t0)
	b.observe(answered(grant(t, &b, t0), t0, 10, 4)) // another client spent 5
	if got := b.remaining(t0.Add(5 * time.Millisecond)); got != 4 {
		t.Fatalf("remaining %d after Remaining 4, want 4", got)
	}
	for i := range 4 {
		b.observe(answered(grant(t, &b, t0.Add(10*time.Millisecond)), t0.Add(10*time.Millisecond), 10, 3-i))
	}
	if d := waitAt(&b, t0.Add(20*time.Millisecond)); d != time.Second-15*time.Millisecond {
		t.Fatalf("the request past the spent budget waits %v, want until the first answer is a second old", d)
	}

	b = newBudget(60, t0)
	for i := range 5 {
		b.observe(answered(grant(t, &b, t0), t0, 10, 9-i))
	}
	next := t0.Add(800 * time.Millisecond) // the service's window turned at 12:00:01
	b.observe(answered(grant(t, &b, next), next, 10, 9))
	if got := b.remaining(next.Add(5 * time.Millisecond)); got != 9 {
		t.Errorf("remaining %d after the window turned (Remaining 9), want 9", got)
	}
	if !b.Opened.Equal(next.Add(5 * time.Millisecond)) {
		t.Errorf("the window opened at %v, want at the answer that said so", b.Opened.Sub(t0))
	}
}

// TestBudget_SpentWindowWithAReset: Remaining 0 with the window's end holds
// every request to it.
func TestBudget_SpentWindowWithAReset(t *testing.T) {
	b := newBudget(60, t0)
	a := answered(grant(t, &b, t0), t0, 60, 0)
	a.reset = t0.Add(7 * time.Second)
	b.observe(a)
	if d, why := b.take(a.now); d != a.reset.Sub(a.now) || why != reasonRateLimit {
		t.Errorf("wait %v (%s), want until the Reset", d, why)
	}
}

// TestBudget_429TeachesTheWindow: what a 429 shows of the window and, when
// the service never said it, of the limit. A window known only as "its
// limit, announced" is a second until a 429 shows more.
func TestBudget_429TeachesTheWindow(t *testing.T) {
	for _, tc := range []struct {
		name       string
		limit      int // announced; 0: the service says nothing
		burst      int // requests answered before the refused one
		refusedAt  time.Duration
		ra         time.Duration // Retry-After
		reset      time.Duration // X-RateLimit-Reset from t0's second; 0: none
		wantWindow time.Duration
		wantLimit  int
	}{
		// The budget spent at .3, the next a second after (the guess)
		// refused: the rest of a 2 s window (whole seconds or not).
		{"2 s from the first request", 20, 20, time.Second, time.Second, 3 * time.Second, 2 * time.Second, 20},
		{"2 s at whole seconds", 20, 20, time.Second, time.Second, 2 * time.Second, 2 * time.Second, 20},
		{"a minute", 20, 20, time.Second, 59 * time.Second, 0, time.Minute, 20},
		// Another client had spent the window: the first request refused.
		{"another's window: its rest", 20, 0, 0, 2 * time.Second, 0, 2 * time.Second, 20},
		// A service that says nothing refuses the 11th at once.
		{"a quiet service", 0, 10, 50 * time.Millisecond, time.Second, 0, time.Second, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBudget(600, t0)
			remaining := -1
			for i := range tc.burst {
				if tc.limit > 0 {
					remaining = tc.limit - 1 - i
				}
				sent := t0.Add(time.Duration(i) * time.Millisecond)
				b.observe(answered(grant(t, &b, sent), sent, tc.limit, remaining))
			}
			sent := t0.Add(tc.refusedAt)
			if b.Window == time.Second { // the guess lets it go a second after the first answer
				sent = sent.Add(5 * time.Millisecond)
			}
			a := answered(grant(t, &b, sent), sent, tc.limit, min(remaining, 0))
			a.status = 429
			if tc.reset > 0 {
				a.reset = t0.Truncate(time.Second).Add(tc.reset)
			}
			b.refused(a, tc.ra, a.now.Add(tc.ra))
			if b.Window != tc.wantWindow || !b.windowKnown() || b.Limit != tc.wantLimit {
				t.Errorf("learned %d per %v (window from %q), want %d per %v", b.Limit, b.Window, b.WindowFrom, tc.wantLimit, tc.wantWindow)
			}
			if d, why := b.take(a.now); d != tc.ra || why != reasonServer429 {
				t.Errorf("after the 429: wait %v (%s), want the Retry-After", d, why)
			}
		})
	}
}

// TestBudget_BigBudget: a budget past maxLog is kept as the same rate over a
// shorter window, so no minute holds more than 6,000 and the log stays small.
func TestBudget_BigBudget(t *testing.T) {
	b := newBudget(6000, t0)
	if l, w := b.slots(); l != 600 || w != 6*time.Second {
		t.Fatalf("slots %d per %v, want 600 per 6 s", l, w)
	}
	n := 0
	for at := t0; at.Before(t0.Add(time.Minute)); {
		if d, _ := b.take(at); d > 0 {
			at = at.Add(d)
			continue
		}
		b.settle(b.Taken, at)
		n++
	}
	if n != 6000 || len(b.Log) > maxLog {
		t.Errorf("%d requests in a minute with a log of %d, want 6000 and at most %d", n, len(b.Log), maxLog)
	}
}

func TestBudget_JSONRoundTrip(t *testing.T) {
	b := newBudget(60, t0)
	tk := grant(t, &b, t0)
	b.observe(answered(tk, t0, 30, 20))
	grant(t, &b, t0.Add(time.Millisecond))
	b.refused(answer{sentAt: t0, now: t0, ticket: b.Taken, status: 429, remaining: -1}, 7*time.Second, t0.Add(7*time.Second))
	data, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	var back budget
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(normalize(back), normalize(b)) {
		t.Errorf("round trip:\n got %+v\nwant %+v", back, b)
	}
}

// normalize drops monotonic clock readings so that times compare by value.
func normalize(b budget) budget {
	for _, p := range []*time.Time{&b.LearnedAt, &b.Opened, &b.Hold} {
		*p = p.Round(0).UTC()
	}
	b.Log = append([]stamp(nil), b.Log...)
	for i := range b.Log {
		b.Log[i].At = b.Log[i].At.Round(0).UTC()
	}
	return b
}
