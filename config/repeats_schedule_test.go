package config

import (
	"fmt"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// TestRecentPairsOfAScheduledSend: a scheduled send that has not started
// counts every pair it will send as may-go at its time, marked scheduled,
// however long ago it was scheduled (its journal is dated its time); read
// from a digest too. Cancelled, it counts nothing.
func TestRecentPairsOfAScheduledSend(t *testing.T) {
	p := testPaths(t)
	now := time.Now().Truncate(time.Second)
	scheduledAt, at := now.Add(-30*24*time.Hour), now.Add(2*time.Hour)
	j, err := CreateJournal(t.Context(), p, "s")
	if err != nil {
		t.Fatal(err)
	}
	plan := &model.JournalPlan{ID: "s", Time: scheduledAt, Profile: "default", Sender: "3000", ScheduledFor: at}
	for i := range 3 {
		plan.Items = append(plan.Items, model.JournalItem{Index: i, Recipient: fmt.Sprintf("0912%07d", i), Message: "hi", OptedOut: i == 2})
	}
	if err := j.Append(plan); err != nil {
		t.Fatal(err)
	}
	if err := j.CloseScheduled(at); err != nil {
		t.Fatal(err)
	}
	since := now.Add(-24 * time.Hour) // a day's window: the journal was written a month ago
	for _, pass := range []string{"replayed", "from its digest"} {
		got, err := RecentPairs(t.Context(), p, RepeatScope{Profile: "default"}, since)
		if err != nil || len(got) != 1 {
			t.Fatalf("%s: %v, %v; want the scheduled send", pass, got, err)
		}
		sp := got[0]
		if !sp.Scheduled || sp.Running || len(sp.Keys) != 2 || sp.At[0] != at.Unix() || !sp.Maybe[0] || !sp.Maybe[1] {
			t.Errorf("%s: %+v; want its 2 pairs (not the opted-out one) may-go at its time, scheduled", pass, sp)
		}
	}
	j, err = OpenJournal(t.Context(), p, "s")
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append(&model.JournalCancel{Time: now, Cause: model.CancelCancelled}); err != nil {
		t.Fatal(err)
	}
	j.Close()
	if got, err := RecentPairs(t.Context(), p, RepeatScope{Profile: "default"}, since); err != nil || len(got) != 0 {
		t.Errorf("cancelled: %+v, %v; want nothing", got, err)
	}
}
