package model

import (
	"strings"
	"testing"
	"time"
)

// TestRepeatTimesInTheProfilesZone: a repeat names the earlier send's time
// in the zone it is given (the profile's), not the machine's: a server in
// UTC said "scheduled for 2026-11-26 04:30" of a send its Tehran operators
// had scheduled for 08:00.
func TestRepeatTimesInTheProfilesZone(t *testing.T) {
	tehran, err := LoadTimezone("Asia/Tehran")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 25, 23, 39, 0, 0, time.UTC) // 03:09 in Tehran
	at := time.Date(2026, 11, 26, 4, 30, 0, 0, time.UTC)   // 08:00 in Tehran
	for _, tt := range []struct {
		name string
		r    Repeat
		want string
	}{
		{"scheduled", Repeat{SendID: "s1", At: at, Pairs: 2, Scheduled: true}, "scheduled for 2026-11-26 08:00 Asia/Tehran (in 4h 51m)"},
		{"accepted", Repeat{SendID: "s2", At: now.Add(-time.Hour), Pairs: 2}, "by send s2 at 2026-11-26 02:09 (1h ago)"},
		{"running", Repeat{SendID: "s3", At: now.Add(-time.Minute), Pairs: 2, Running: true}, "last recorded at 2026-11-26 03:08 (1 min ago)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.r.Problem(now, tehran); !strings.Contains(got, tt.want) {
				t.Errorf("Problem = %q, want it to contain %q", got, tt.want)
			}
		})
	}
}
