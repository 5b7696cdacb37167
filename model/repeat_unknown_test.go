package model

import (
	"strings"
	"testing"
	"time"
)

// TestRepeatsOfPairsThatMayHaveGone: a pair of unknown outcome in an earlier
// send is a repeat like an accepted one, counted and named apart.
func TestRepeatsOfPairsThatMayHaveGone(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	plan := BuildPlan("3000", []PairRow{{Line: 2, Recipient: "09121110001", Message: "a"}, {Line: 3, Recipient: "09121110002", Message: "b"},
		{Line: 4, Recipient: "09121110003", Message: "c"}}, PlanOptions{})
	var h SentPairs
	h.SendID = "s1"
	h.Add("09121110001", "a", now.Add(-time.Hour))
	h.AddMaybe("09121110002", "b", now.Add(-time.Hour))
	h.AddMaybe("09121110003", "other text", now.Add(-time.Hour)) // another text: no repeat
	reps := FindRepeats(plan, []SentPairs{h}, now.Add(-24*time.Hour))
	if len(reps) != 1 || reps[0].Pairs != 2 || reps[0].Unknown != 1 {
		t.Fatalf("repeats %+v, want one send with 2 pairs, 1 of them unknown", reps)
	}
	for _, tt := range []struct {
		r    Repeat
		want string
	}{
		{reps[0], "1 of these pairs (same recipient, same text) may already have gone: send s1 at"},
		{reps[0], "left their outcome unknown; 1 more was accepted"},
		{Repeat{SendID: "s2", At: now, Pairs: 3, Unknown: 3}, "3 of these pairs (same recipient, same text) may already have gone: send s2"},
		{Repeat{SendID: "s3", At: now, Pairs: 2}, "2 of these pairs (same recipient, same text) were already accepted by send s3"},
		{Repeat{SendID: "s4", At: now, Pairs: 5, Unknown: 3, Running: true}, "5 of these pairs (same recipient, same text) are in send s4, which is still running (last recorded"},
		{Repeat{SendID: "s4", At: now, Pairs: 5, Unknown: 3, Running: true}, "; 2 accepted so far)"},
	} {
		if got := tt.r.Problem(now, time.UTC); !strings.Contains(got, tt.want) {
			t.Errorf("Problem: %q lacks %q", got, tt.want)
		}
	}
}
