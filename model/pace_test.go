package model

import (
	"testing"
	"time"
)

// TestPaceEstimate: a send's time at a service's fixed windows (a window's
// budget at its start), at its limit alone (a lower bound, the window taken
// as a second) and at the profile's budget (a lower bound too), and how it
// reads (issue 27 item 11: a limit of 5 announced without its window was
// read as 5 a minute, "about 60 min" for a send that took one).
func TestPaceEstimate(t *testing.T) {
	for _, tc := range []struct {
		name        string
		pace        Pace
		items, size int
		requests    int
		d           time.Duration
		text        string
	}{
		{"the issue's send, the window known", Pace{5, time.Second, PaceService}, 30000, 100, 300, 59 * time.Second,
			"about 59 s (300 requests, 5 per 1 s as the service said)"},
		{"the issue's send, the limit alone", Pace{5, time.Second, PaceLimit}, 30000, 100, 300, 59 * time.Second,
			"at least 59 s (300 requests, 5 per window; the service has not said its window)"},
		{"10 a second", Pace{10, time.Second, PaceService}, 5000, 100, 50, 4 * time.Second, "about 4 s (50 requests, 10 per 1 s as the service said)"},
		{"100 per 10 s", Pace{100, 10 * time.Second, PaceService}, 300, 1, 300, 20 * time.Second, "about 20 s (300 requests, 100 per 10 s as the service said)"},
		{"60 per minute", Pace{60, time.Minute, PaceService}, 200, 1, 200, 3 * time.Minute, "about 3 min (200 requests, 60 per minute as the service said)"},
		{"the profile", ProfilePace(60), 300, 1, 300, 4 * time.Minute, "at least 4 min (300 requests at the profile's 60 per minute; the service has not said its limit)"},
		{"one window's worth", Pace{10, time.Second, PaceService}, 1000, 100, 10, 0, "under a second (10 requests, 10 per 1 s as the service said)"},
		{"within the profile's budget, the service silent", ProfilePace(6000), 30000, 100, 300, 0,
			"not known: under a second at the profile's 6000 per minute (300 requests), but the service has not said its limit"},
	} {
		s := PlanSummary{Pace: tc.pace}
		s.Requests, s.Duration = tc.pace.Estimate(tc.items, tc.size)
		if s.Requests != tc.requests || s.Duration != tc.d || s.DurationText() != tc.text {
			t.Errorf("%s: %d requests in %v, %q; want %d in %v, %q", tc.name, s.Requests, s.Duration, s.DurationText(), tc.requests, tc.d, tc.text)
		}
	}
}
