package client

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/model/fakeclock"
)

// rateSandbox starts a sandbox keeping fixed windows of limit per window on
// fc, and counts its 429s.
func rateSandbox(t testing.TB, fc *fakeclock.Clock, limit int, window time.Duration, headers string) (string, *atomic.Int64) {
	t.Helper()
	srv, err := sandbox.New(sandbox.Options{Key: testKey, RatePerMinute: limit, RateWindow: window, RateHeaders: headers, Now: fc.Now})
	if err != nil {
		t.Fatal(err)
	}
	var n429 atomic.Int64
	h := srv.Handler()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w}
		h.ServeHTTP(rec, r)
		if rec.status == http.StatusTooManyRequests {
			n429.Add(1)
		}
	}))
	t.Cleanup(ts.Close)
	return ts.URL + "/api/v1", &n429
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

// TestClient_LearnsTheServiceBudget: 300 requests one after another against
// fixed windows of 20 per 2 s (10 a second), on a fake clock. Whatever the
// profile believes, the client learns the service's budget from its headers (or
// from its 429s when it sends none) and keeps within 1.10× the even-pacing
// floor of 29.9 s. A service that says when each spent window ends (Reset
// on every answer) is waited for to that end, with no 429 to show the
// window's length: it stays "a second at least".
func TestClient_LearnsTheServiceBudget(t *testing.T) {
	const n, limit, window = 300, 20, 2 * time.Second
	floor := time.Duration(n-1) * window / limit
	for _, tc := range []struct {
		name    string
		headers string
		profile int
		max429  int64
		window  time.Duration // the window the client has at the end
	}{
		{"Laravel headers, profile 60 a minute", sandbox.RateHeadersLaravel, 60, 1, window},
		{"Laravel headers, profile 600 a minute", sandbox.RateHeadersLaravel, 600, 1, window},
		{"Laravel headers, no profile budget", sandbox.RateHeadersLaravel, 0, 1, window},
		{"Reset on every answer, profile 600 a minute", sandbox.RateHeadersFull, 600, 0, time.Second},
		{"only Retry-After, profile 600 a minute", sandbox.RateHeadersNone, 600, 1, window},
		{"only Retry-After, profile 60 a minute", sandbox.RateHeadersNone, 60, 1, window},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fc := fakeclock.New(time.Date(2026, 3, 20, 12, 0, 0, 300e6, time.UTC))
			base, n429 := rateSandbox(t, fc, limit, window, tc.headers)
			c, err := New(base, testKey, WithRatePerMinute(tc.profile), withClock(fc))
			if err != nil {
				t.Fatal(err)
			}
			start := fc.Now()
			for i := range n {
				if _, err := c.Credit(context.Background()); err != nil { // one request each
					t.Fatalf("request %d: %v", i, err)
				}
			}
			took := fc.Now().Sub(start)
			t.Logf("%d requests in %v (floor %v, %.2f×), %d × 429", n, took, floor, float64(took)/float64(floor), n429.Load())
			if n429.Load() > tc.max429 {
				t.Errorf("%d answers were 429, want at most %d", n429.Load(), tc.max429)
			}
			if took > floor*110/100 {
				t.Errorf("took %v, more than 1.10× the floor %v", took, floor)
			}
			if st := c.RateStatus(); st.Limit != limit || st.Window != tc.window || !st.Learned || st.WindowLearned != (tc.window == window) {
				t.Errorf("RateStatus = %+v (%q), want the service's 20 per %v, learned", st, st.Budget(), tc.window)
			}
		})
	}
}
