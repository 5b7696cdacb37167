package sandbox

import (
	"strconv"
	"testing"
	"time"
)

func TestRateLimit(t *testing.T) {
	clk := newClock()
	e := setup(t, Options{RatePerMinute: 3, Now: clk.Now})
	type step struct {
		advance       time.Duration
		wantStatus    int
		wantRemaining int
		wantRetry     int // 0: no Retry-After expected
	}
	steps := []step{
		{0, 201, 2, 0},
		{10 * time.Second, 201, 1, 0},
		{10 * time.Second, 201, 0, 0},
		{0, 429, 0, 40},
		{39*time.Second + 500*time.Millisecond, 429, 0, 1}, // 0.5 s left rounds up to 1
		{500 * time.Millisecond, 201, 2, 0},                // a new window
	}
	windowStart := clk.Now()
	for i, st := range steps {
		clk.Advance(st.advance)
		if st.wantRemaining == 2 && st.wantStatus == 201 {
			windowStart = clk.Now()
		}
		r := e.do("POST", "/contact-groups", map[string]any{"name": "g"})
		if r.status != st.wantStatus {
			t.Fatalf("step %d: status %d, want %d: %s", i, r.status, st.wantStatus, r.raw)
		}
		h := r.header
		if h.Get("X-RateLimit-Limit") != "3" || h.Get("X-RateLimit-Remaining") != strconv.Itoa(st.wantRemaining) {
			t.Errorf("step %d: limit %q remaining %q, want 3 and %d", i, h.Get("X-RateLimit-Limit"), h.Get("X-RateLimit-Remaining"), st.wantRemaining)
		}
		if want := strconv.FormatInt(windowStart.Add(time.Minute).Unix(), 10); h.Get("X-RateLimit-Reset") != want {
			t.Errorf("step %d: reset %q, want %s", i, h.Get("X-RateLimit-Reset"), want)
		}
		if st.wantRetry == 0 {
			if h.Get("Retry-After") != "" {
				t.Errorf("step %d: Retry-After on a %d", i, r.status)
			}
			continue
		}
		r.wantError(t, 429, "rate_limited")
		if h.Get("Retry-After") != strconv.Itoa(st.wantRetry) {
			t.Errorf("step %d: Retry-After %q, want %d", i, h.Get("Retry-After"), st.wantRetry)
		}
	}
	// Refused requests did nothing: 4 groups were made (ids 1..4), not 6.
	if id := e.mkGroup("after"); id != 5 {
		t.Errorf("next group id %d, want 5", id)
	}
}

func TestNoRateLimitByDefault(t *testing.T) {
	e := setup(t, Options{})
	for i := 0; i < 100; i++ {
		r := e.do("GET", "/sms/x/status", nil)
		if r.status != 404 {
			t.Fatalf("request %d: %d", i, r.status)
		}
		if r.header.Get("X-RateLimit-Limit") != "" {
			t.Fatal("rate headers without a limit")
		}
	}
}
