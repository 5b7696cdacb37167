package sandbox

import (
	"strconv"
	"testing"
	"time"
)

// TestRateLimit: Laravel's fixed windows. The clock starts at 12:00:00.000; the
// first request, at 12:00:00.400, opens a 3 s window ending at 12:00:03 (the
// start of its second plus 3 s); refused requests are not counted.
func TestRateLimit(t *testing.T) {
	clk := newClock()
	e := setup(t, Options{RatePerMinute: 3, RateWindow: 3 * time.Second, Now: clk.Now})
	end := clk.Now().Add(3 * time.Second).Unix()
	type step struct {
		advance       time.Duration
		wantStatus    int
		wantRemaining int
		wantRetry     int // 0: a success, no Retry-After or Reset expected
		wantReset     int64
	}
	steps := []step{
		{400 * time.Millisecond, 201, 2, 0, 0},
		{time.Second, 201, 1, 0, 0},
		{100 * time.Millisecond, 201, 0, 0, 0},
		{0, 429, 0, 2, end},                       // at 12:00:01.500: 3 − 1 whole seconds
		{1400 * time.Millisecond, 429, 0, 1, end}, // 12:00:02.900
		{100 * time.Millisecond, 201, 2, 0, 0},    // 12:00:03.000: a new window, to 12:00:06
		{2999 * time.Millisecond, 201, 1, 0, 0},
		{time.Millisecond, 201, 2, 0, 0}, // 12:00:06.000: the next
	}
	for i, st := range steps {
		clk.Advance(st.advance)
		r := e.do("POST", "/contact-groups", map[string]any{"name": "g"})
		if r.status != st.wantStatus {
			t.Fatalf("step %d: status %d, want %d: %s", i, r.status, st.wantStatus, r.raw)
		}
		h := r.header
		if h.Get("X-RateLimit-Limit") != "3" || h.Get("X-RateLimit-Remaining") != strconv.Itoa(st.wantRemaining) {
			t.Errorf("step %d: limit %q remaining %q, want 3 and %d", i, h.Get("X-RateLimit-Limit"), h.Get("X-RateLimit-Remaining"), st.wantRemaining)
		}
		if st.wantRetry == 0 {
			if h.Get("Retry-After") != "" || h.Get("X-RateLimit-Reset") != "" {
				t.Errorf("step %d: Retry-After %q, Reset %q on a %d", i, h.Get("Retry-After"), h.Get("X-RateLimit-Reset"), r.status)
			}
			continue
		}
		r.wantError(t, 429, "rate_limited")
		if h.Get("Retry-After") != strconv.Itoa(st.wantRetry) || h.Get("X-RateLimit-Reset") != strconv.FormatInt(st.wantReset, 10) {
			t.Errorf("step %d: Retry-After %q, Reset %q; want %d and %d", i, h.Get("Retry-After"), h.Get("X-RateLimit-Reset"), st.wantRetry, st.wantReset)
		}
	}
	// Refused requests did nothing: 6 groups were made (ids 1..6), not 8.
	if id := e.mkGroup("after"); id != 7 {
		t.Errorf("next group id %d, want 7", id)
	}
}

// TestRateWindowKinds: 3 requests per 3 s counted the three ways, from a
// first request at 12:00:00.400. From the first request, the window ends
// at 12:00:03.400 and Retry-After rounds the rest up; a sliding window
// takes a request once the one three requests before it is 3 s old.
func TestRateWindowKinds(t *testing.T) {
	type step struct {
		advance   time.Duration
		status    int
		remaining int
		retry     int    // on a 429
		reset     string // on a 429: X-RateLimit-Reset as a time of day
	}
	ok := func(advance time.Duration, remaining int) step { return step{advance, 201, remaining, 0, ""} }
	for _, tc := range []struct {
		start string
		steps []step
	}{
		{WindowStartFirst, []step{
			ok(400*time.Millisecond, 2), ok(time.Second, 1), ok(100*time.Millisecond, 0), // 00.4, 01.4, 01.5
			{1400 * time.Millisecond, 429, 0, 1, "12:00:04"}, // 02.9: 0.5 s left
			{400 * time.Millisecond, 429, 0, 1, "12:00:04"},  // 03.3
			ok(100*time.Millisecond, 2),                      // 03.4: a new window, to 06.4
			ok(2999*time.Millisecond, 1),                     // 06.399
			ok(time.Millisecond, 2),                          // 06.4: the next
		}},
		{WindowSliding, []step{
			ok(400*time.Millisecond, 2), ok(time.Second, 1), ok(100*time.Millisecond, 0), // 00.4, 01.4, 01.5
			{1400 * time.Millisecond, 429, 0, 1, "12:00:04"}, // 02.9: 00.4 leaves at 03.4
			ok(500*time.Millisecond, 0),                      // 03.4: 01.4, 01.5, 03.4
			ok(1050*time.Millisecond, 0),                     // 04.45: 01.4 has left
			{10 * time.Millisecond, 429, 0, 1, "12:00:05"},   // 04.46: 01.5 leaves at 04.5
		}},
	} {
		t.Run(tc.start, func(t *testing.T) {
			clk := newClock()
			e := setup(t, Options{RatePerMinute: 3, RateWindow: 3 * time.Second, RateWindowStart: tc.start, Now: clk.Now})
			for i, st := range tc.steps {
				clk.Advance(st.advance)
				r := e.do("POST", "/contact-groups", map[string]any{"name": "g"})
				h := r.header
				if r.status != st.status || h.Get("X-RateLimit-Remaining") != strconv.Itoa(st.remaining) {
					t.Fatalf("step %d at %s: status %d, remaining %q; want %d and %d: %s", i, clk.Now().Format("05.000"), r.status, h.Get("X-RateLimit-Remaining"), st.status, st.remaining, r.raw)
				}
				if st.status != 429 {
					continue
				}
				reset, _ := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64)
				if h.Get("Retry-After") != strconv.Itoa(st.retry) || time.Unix(reset, 0).UTC().Format("15:04:05") != st.reset {
					t.Errorf("step %d: Retry-After %q, Reset %s; want %d and %s", i, h.Get("Retry-After"), time.Unix(reset, 0).UTC().Format("15:04:05"), st.retry, st.reset)
				}
			}
		})
	}
}

func TestRateHeaderStyles(t *testing.T) {
	for _, tc := range []struct {
		style                string
		limitOK, resetOK, ra bool // on a success: Limit/Remaining, Reset; on a 429: Retry-After
		limit429, reset429   bool
	}{
		{RateHeadersLaravel, true, false, true, true, true},
		{RateHeadersFull, true, true, true, true, true},
		{RateHeadersNone, false, false, true, false, false},
	} {
		t.Run(tc.style, func(t *testing.T) {
			clk := newClock()
			e := setup(t, Options{RatePerMinute: 1, RateHeaders: tc.style, Now: clk.Now})
			ok := e.do("GET", "/contact-groups/1/contacts", nil)
			no := e.do("GET", "/contact-groups/1/contacts", nil)
			if no.status != 429 {
				t.Fatalf("second request: %d, want 429", no.status)
			}
			has := func(r response, k string) bool { return r.header.Get(k) != "" }
			if has(ok, "X-RateLimit-Limit") != tc.limitOK || has(ok, "X-RateLimit-Remaining") != tc.limitOK || has(ok, "X-RateLimit-Reset") != tc.resetOK {
				t.Errorf("success headers: %v", ok.header)
			}
			if has(no, "Retry-After") != tc.ra || has(no, "X-RateLimit-Limit") != tc.limit429 || has(no, "X-RateLimit-Reset") != tc.reset429 {
				t.Errorf("429 headers: %v", no.header)
			}
		})
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
