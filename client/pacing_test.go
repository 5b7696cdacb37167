package client

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/model/fakeclock"
)

// paceCase is a service's windows, how it says so, a profile and a number
// of requests one after another (a send's chunks, an import's rows).
type paceCase struct {
	name    string
	limit   int
	window  time.Duration
	headers string
	profile int
	n       int
	// at is the clock's fraction of a second at the start (default .3);
	// latency how long each answer takes (default 5 ms).
	at, latency time.Duration
	// max429 is the 429s allowed (default 1).
	max429 int64
}

// paceCases are windows of 1 s, 10 s and 60 s, announced the Laravel way
// (Limit and Remaining; Retry-After and Reset on a 429) or only by a 429's
// Retry-After (then the profile's budget is above the service's, or no 429
// would ever teach it).
var paceCases = []paceCase{
	{name: "1s/laravel", limit: 10, window: time.Second, headers: sandbox.RateHeadersLaravel, profile: 60, n: 50},
	{name: "1s/60 a second", limit: 60, window: time.Second, headers: sandbox.RateHeadersLaravel, profile: 60, n: 600},
	{name: "1s/retry-after only", limit: 10, window: time.Second, headers: sandbox.RateHeadersNone, profile: 60, n: 50},
	// The first window's requests straddle a second's turn: at a service
	// whose windows turn at whole seconds they fill two of its windows
	// before the first 429, and nothing the service says (it says nothing
	// but Retry-After) tells that from one window of 13: the next window
	// shows the limit with a second 429.
	{name: "1s/retry-after only, across a second's turn", limit: 10, window: time.Second, headers: sandbox.RateHeadersNone, profile: 60, n: 50,
		at: 950 * time.Millisecond, latency: 20 * time.Millisecond, max429: 2},
	{name: "10s/laravel", limit: 100, window: 10 * time.Second, headers: sandbox.RateHeadersLaravel, profile: 60, n: 300},
	{name: "10s/retry-after only", limit: 100, window: 10 * time.Second, headers: sandbox.RateHeadersNone, profile: 6000, n: 300},
	{name: "60s/laravel", limit: 60, window: time.Minute, headers: sandbox.RateHeadersLaravel, profile: 60, n: 200},
	{name: "60s/retry-after only", limit: 60, window: time.Minute, headers: sandbox.RateHeadersNone, profile: 600, n: 200},
}

// pace runs tc's requests against a sandbox counting windows as kind says,
// on a fake clock (each answer tc.latency after its request), and returns
// how long they took, the even-pacing floor ((n − 1) × window / limit) and
// the 429s.
func (tc paceCase) pace(tb testing.TB, kind string) (took, floor time.Duration, n429 int64) {
	at, latency := cmp.Or(tc.at, 300*time.Millisecond), cmp.Or(tc.latency, 5*time.Millisecond)
	fc := fakeclock.New(time.Date(2026, 3, 20, 12, 0, 0, 0, time.UTC).Add(at))
	base, count := slowSandbox(tb, fc, sandbox.Options{RatePerMinute: tc.limit, RateWindow: tc.window, RateHeaders: tc.headers,
		RateWindowStart: kind}, latency)
	c, err := New(base, testKey, WithRatePerMinute(tc.profile), withClock(fc))
	if err != nil {
		tb.Fatal(err)
	}
	start := fc.Now()
	for i := range tc.n {
		if _, err := c.Credit(context.Background()); err != nil {
			tb.Fatalf("request %d: %v", i, err)
		}
	}
	return fc.Now().Sub(start), time.Duration(tc.n-1) * tc.window / time.Duration(tc.limit), count.Load()
}

// TestClient_UsesEveryWindow: windows of 1 s, 10 s and 60 s, counted each
// way (whole seconds, from the first request, sliding), are used to within
// 1.10× the even-pacing floor, with at most one 429 (issue 27 item 11: a
// window learned from a Retry-After of 1 was rounded up to two seconds:
// 5,000 pairs at 10 a second took 9.2 s, not 4.9; issue 39 §6: windows
// from the first request took 1.5-2×). The clock is the test's: no real
// second passes.
func TestClient_UsesEveryWindow(t *testing.T) {
	for _, kind := range windowKinds {
		for _, tc := range paceCases {
			t.Run(kind+"/"+tc.name, func(t *testing.T) {
				took, floor, n429 := tc.pace(t, kind)
				t.Logf("%d requests in %v (floor %v, %.2f×), %d × 429", tc.n, took, floor, float64(took)/float64(floor), n429)
				if max429 := cmp.Or(tc.max429, 1); took > floor*110/100 || n429 > max429 {
					t.Errorf("%d requests took %v with %d × 429; want ≤ 1.10× the floor %v and at most %d × 429", tc.n, took, n429, floor, max429)
				}
			})
		}
	}
}

// BenchmarkPacing is the time each window's requests take, on the
// benchmark's own clock, as a multiple of the even-pacing floor (x-even),
// with its 429s, for each way of counting a window (BENCHMARKS.md, "rate
// budget").
func BenchmarkPacing(b *testing.B) {
	for _, kind := range windowKinds {
		for _, tc := range paceCases {
			b.Run(kind+"/"+tc.name, func(b *testing.B) {
				var even float64
				var n429 int64
				for b.Loop() {
					took, floor, n := tc.pace(b, kind)
					even, n429 = float64(took)/float64(floor), n
				}
				b.ReportMetric(even, "x-even")
				b.ReportMetric(float64(n429), "429s")
			})
		}
	}
}

// BenchmarkPacingLoopback sends chunks of 100 pairs to a sandbox on
// loopback keeping real fixed windows of 1 s, 10 s and 60 s (Laravel's
// headers, and Retry-After alone), on the real clock: each op takes the
// windows' real seconds (about 4 s, 20 s and 2 min). It reports the time as a
// multiple of the fixed windows' own floor (x-floor, fixedFloor: the first
// request opens a window that ends at a whole second, then every window is
// used to its last request; the requests' own time is not in it) and the
// 429s. The even-pacing floor ((n-1) × window / limit) it reported before
// is above what fixed windows allow: 0.81× on it was 1.0× of this one. The
// whole process (the built binary against smsdesk sandbox) is measured by
// hand: BENCHMARKS.md. Run it alone:
//
//	go test -run '^$' -bench PacingLoopback -benchtime 1x ./client
func BenchmarkPacingLoopback(b *testing.B) {
	for _, tc := range []paceCase{
		{name: "1s/laravel", limit: 10, window: time.Second, headers: sandbox.RateHeadersLaravel, profile: 60, n: 50},
		{name: "1s/retry-after only", limit: 10, window: time.Second, headers: sandbox.RateHeadersNone, profile: 60, n: 50},
		{name: "10s/laravel", limit: 100, window: 10 * time.Second, headers: sandbox.RateHeadersLaravel, profile: 60, n: 300},
		{name: "60s/laravel", limit: 60, window: time.Minute, headers: sandbox.RateHeadersLaravel, profile: 60, n: 150},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var ratio float64
			var n429 int64
			for b.Loop() {
				srv, err := sandbox.New(sandbox.Options{Key: testKey, RatePerMinute: tc.limit, RateWindow: tc.window, RateHeaders: tc.headers,
					MaxItems: 100, Credit: new(int64(1 << 40))})
				if err != nil {
					b.Fatal(err)
				}
				var count atomic.Int64
				h := srv.Handler()
				ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					rec := &statusRecorder{ResponseWriter: w}
					h.ServeHTTP(rec, r)
					if rec.status == http.StatusTooManyRequests {
						count.Add(1)
					}
				}))
				c, err := New(ts.URL+"/api/v1", testKey, WithRatePerMinute(tc.profile))
				if err != nil {
					b.Fatal(err)
				}
				pairs := make([]model.Pair, 100)
				start := time.Now()
				for i := range tc.n {
					for j := range pairs {
						pairs[j] = model.Pair{Recipient: fmt.Sprintf("0912%07d", i*100+j+1), Message: "Your code is 4821"}
					}
					if _, err := c.SendPair(context.Background(), SendPairRequest{Sender: sandbox.DefaultSender, Items: pairs}); err != nil {
						b.Fatalf("request %d: %v", i, err)
					}
				}
				took := time.Since(start)
				ts.Close()
				floor := fixedFloor(tc.n, tc.limit, tc.limit, tc.window, 0, start, start.Truncate(time.Second).Add(tc.window))
				ratio, n429 = float64(took)/float64(floor), count.Load()
			}
			b.ReportMetric(ratio, "x-floor")
			b.ReportMetric(float64(n429), "429s")
		})
	}
}

// fixedFloor is the least time n requests one after another can take
// against fixed windows of limit per window that turn at whole seconds (the
// sandbox's and Laravel's), starting at start with left requests left in the
// window then open (which ends at end): every window used to its last
// request, each answer latency after its request. The windows after the
// first are whole; the last one's requests are sent one after another.
func fixedFloor(n, limit, left int, window, latency time.Duration, start, end time.Time) time.Duration {
	if latency > 0 { // the first window holds only those sent before it ends
		left = min(left, int((end.Sub(start)+latency-1)/latency))
	}
	if n <= left {
		return time.Duration(n) * latency
	}
	rest := n - left
	windows := (rest + limit - 1) / limit // whole windows after the first
	last := rest - (windows-1)*limit      // requests in the last of them
	return end.Sub(start) + time.Duration(windows-1)*window + time.Duration(last)*latency
}

// TestClient_OneWindowAfterAnother: a process's requests against fixed
// windows of 10 a second (Laravel's headers: Limit and Remaining, Reset and
// Retry-After on a 429) over thirty windows, on the test's clock: at most
// one 429 in all, and within 1.10× the fixed windows' own floor. Issue 35
// item 13: a process that began in a window another client had opened (a
// run just before it on the same key) drew two 429s (a request sent at once
// to ask when a spent window ends, in that window and again in its own), and
// one a fresh process's first window. Now no request goes until the one a
// budget before it was answered a window ago, and Remaining counts the
// other client's requests.
func TestClient_OneWindowAfterAnother(t *testing.T) {
	const limit, n = 10, 300
	for _, tc := range []struct {
		name    string
		others  int           // requests another client made in the open window first
		at      time.Duration // the clock's fraction of a second at the start
		latency time.Duration
		max429  int64
	}{
		{"a fresh window", 0, 300 * time.Millisecond, 5 * time.Millisecond, 0},
		{"another client spent 4 of the window", 4, 300 * time.Millisecond, 5 * time.Millisecond, 0},
		{"another client spent it all", 10, 600 * time.Millisecond, 5 * time.Millisecond, 1},
		{"slow answers, late in the second", 3, 900 * time.Millisecond, 30 * time.Millisecond, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fc := fakeclock.New(time.Date(2026, 3, 20, 12, 0, 0, 0, time.UTC).Add(tc.at))
			base, n429 := rateSandbox(t, fc, limit, time.Second, sandbox.RateHeadersLaravel)
			other, err := New(base, testKey, WithRatePerMinute(0), withClock(fc))
			if err != nil {
				t.Fatal(err)
			}
			for range tc.others {
				if _, err := other.Credit(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			c, err := New(base, testKey, WithRatePerMinute(600), withClock(fc))
			if err != nil {
				t.Fatal(err)
			}
			start := fc.Now()
			for i := range n {
				if _, err := c.Credit(context.Background()); err != nil {
					t.Fatalf("request %d: %v", i, err)
				}
				fc.Advance(tc.latency)
			}
			took := fc.Now().Sub(start)
			floor := fixedFloor(n, limit, limit-tc.others, time.Second, tc.latency, start, start.Truncate(time.Second).Add(time.Second))
			t.Logf("%d requests in %v (fixed-window floor %v, %.3f×), %d × 429", n, took, floor, float64(took)/float64(floor), n429.Load())
			if n429.Load() > tc.max429 {
				t.Errorf("%d answers were 429, want at most %d", n429.Load(), tc.max429)
			}
			if took > floor*110/100 {
				t.Errorf("took %v, more than 1.10× the floor %v", took, floor)
			}
		})
	}
}
