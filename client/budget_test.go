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

func TestBudget_Reconcile(t *testing.T) {
	learned := newBudget(60, t0)
	learned.observe(answer{sentAt: t0, now: t0, status: 200, limit: 20, remaining: 19, hasRemaining: true, reset: t0.Add(2 * time.Second)})
	for _, tc := range []struct {
		name       string
		b          budget
		perMinute  int
		at         time.Time
		wantLimit  int
		wantWindow time.Duration
	}{
		{"fresh learned figures stay", learned, 600, t0.Add(time.Minute), 20, 2 * time.Second},
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

// TestBudget_ProbeWhenTheEndIsUnknown: the service said Remaining 0 without
// a Reset and the window's length is not known yet: one request goes at the
// next whole second (the earliest a window of whole seconds turns) to ask,
// the others wait for its answer, and its 429 teaches the window.
func TestBudget_ProbeWhenTheEndIsUnknown(t *testing.T) {
	b := newBudget(600, t0)
	for i := range 3 {
		tk := grant(t, &b, t0)
		b.observe(answer{sentAt: t0, now: t0, ticket: tk, status: 200, limit: 3, remaining: 2 - i, hasRemaining: true})
	}
	turn := t0.Truncate(time.Second).Add(time.Second)
	if d, why := b.take(t0.Add(time.Millisecond)); d != turn.Sub(t0.Add(time.Millisecond)) || why != reasonRateLimit {
		t.Fatalf("the spent window's next request: wait %v (%s), want until the next whole second", d, why)
	}
	probe := grant(t, &b, turn) // the probe
	if d, why := b.take(turn.Add(time.Millisecond)); d != probeWait || why != reasonRateLimit {
		t.Fatalf("a second request while the probe is out: wait %v (%s), want %v", d, why, probeWait)
	}
	end := t0.Truncate(time.Second).Add(5 * time.Second)
	a := answer{sentAt: turn, now: turn.Add(10 * time.Millisecond), ticket: probe, status: 429, limit: 3, remaining: 0, hasRemaining: true}
	b.refused(a, end, false)
	if d, why := b.take(a.now); d != end.Sub(a.now) || why != reasonServer429 {
		t.Fatalf("after the 429: wait %v (%s), want until the window's end", d, why)
	}
	if !b.windowKnown() || b.Window != 5*time.Second {
		t.Fatalf("window %v (from %q), want 5 s learned", b.Window, b.WindowFrom)
	}
	// The next window: 3 at once, then wait its 5 s out.
	for range 3 {
		grant(t, &b, end)
	}
	if d, _ := b.take(end); d != 5*time.Second {
		t.Errorf("the fourth in the new window waits %v, want 5 s", d)
	}
}

// TestBudget_ProbeForgotten: a probe whose answer never came does not hold
// the budget for ever.
func TestBudget_ProbeForgotten(t *testing.T) {
	b := newBudget(600, t0)
	tk := grant(t, &b, t0)
	b.observe(answer{sentAt: t0, now: t0, ticket: tk, status: 200, limit: 1, remaining: 0, hasRemaining: true})
	turn := t0.Truncate(time.Second).Add(time.Second)
	grant(t, &b, turn) // the probe, never answered
	if d, _ := b.take(turn.Add(probeStale)); d != probeWait {
		t.Fatalf("wait %v, want %v while the probe may still answer", d, probeWait)
	}
	grant(t, &b, turn.Add(probeStale+time.Millisecond))
}

// TestBudget_ProbeFindsTheWindowTurned: the probe sent at the whole second
// after the spent window's last grant is answered by a fresh window: the
// window this client opened was one second long, learned without a 429,
// and the new window ends at the next whole second, not a second after its
// first request.
func TestBudget_ProbeFindsTheWindowTurned(t *testing.T) {
	b := newBudget(600, t0)
	for i := range 3 {
		tk := grant(t, &b, t0)
		b.observe(answer{sentAt: t0, now: t0, ticket: tk, status: 200, limit: 3, remaining: 2 - i, hasRemaining: true})
	}
	turn := t0.Truncate(time.Second).Add(time.Second)
	sent := turn.Add(40 * time.Millisecond) // it waited a little past the turn
	probe := grant(t, &b, sent)
	b.observe(answer{sentAt: sent, now: sent.Add(5 * time.Millisecond), ticket: probe, status: 200, limit: 3, remaining: 2, hasRemaining: true})
	if !b.windowKnown() || b.Window != time.Second {
		t.Fatalf("window %v (from %q), want 1 s learned", b.Window, b.WindowFrom)
	}
	at := sent.Add(5 * time.Millisecond)
	grant(t, &b, at)
	grant(t, &b, at)
	if d, _ := b.take(at); d != turn.Add(time.Second).Sub(at) {
		t.Errorf("the fourth in the new window waits %v, want until %v (the next whole second)", d, turn.Add(time.Second))
	}
}

// TestBudget_CountsAQuietLimit: a service that sends no rate headers refuses
// the 21st request of a window the client opened: its budget is 20.
func TestBudget_CountsAQuietLimit(t *testing.T) {
	b := newBudget(600, t0)
	tk := grant(t, &b, t0)
	end := t0.Truncate(time.Second).Add(2 * time.Second)
	b.refused(answer{sentAt: t0, now: t0, ticket: tk, status: 429, remaining: -1}, end, false) // the first 429: the window was not ours
	if b.Limit != 600 || b.windowKnown() {
		t.Fatalf("learned %d per %v from a window it did not open", b.Limit, b.Window)
	}
	var last int64
	for range 21 {
		last = grant(t, &b, end)
	}
	b.refused(answer{sentAt: end, now: end, ticket: last, status: 429, remaining: -1}, end.Add(2*time.Second), false)
	if b.Limit != 20 || b.LimitFrom != fromCounted || b.Window != 2*time.Second {
		t.Errorf("learned %d per %v (%s), want 20 per 2 s counted", b.Limit, b.Window, b.LimitFrom)
	}
}

// TestBudget_LateAnswerFromAnOldWindow: an answer to a request of a window
// already over changes nothing in the current one.
func TestBudget_LateAnswerFromAnOldWindow(t *testing.T) {
	b := newBudget(600, t0)
	old := grant(t, &b, t0)
	b.observe(answer{sentAt: t0, now: t0, ticket: old, status: 200, limit: 10, remaining: 9, hasRemaining: true, reset: t0.Add(time.Second)})
	next := t0.Add(time.Second)
	tk := grant(t, &b, next)
	b.observe(answer{sentAt: next, now: next, ticket: tk, status: 200, limit: 10, remaining: 9, hasRemaining: true})
	b.observe(answer{sentAt: t0, now: next, ticket: old, status: 200, limit: 10, remaining: 0, hasRemaining: true})
	if got := b.remaining(next); got != 9 {
		t.Errorf("remaining %d after a late answer from the old window, want 9", got)
	}
}

func TestBudget_JSONRoundTrip(t *testing.T) {
	b := newBudget(60, t0)
	tk := grant(t, &b, t0)
	b.refused(answer{sentAt: t0, now: t0, ticket: tk, status: 429, limit: 30, remaining: 0, hasRemaining: true}, t0.Add(7*time.Second), false)
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
	for _, p := range []*time.Time{&b.LearnedAt, &b.At, &b.Start, &b.End, &b.Probe, &b.Hold} {
		*p = p.Round(0).UTC()
	}
	return b
}
