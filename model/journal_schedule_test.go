package model

import (
	"bytes"
	"testing"
	"time"
)

// TestReplayScheduled: a scheduled send waits (no run, not interrupted)
// until a runner's resume record starts it or a cancel record ends it; a
// cancel after the start is not heeded, and a damaged line after the plan
// (perhaps its start) means no runner may start it.
func TestReplayScheduled(t *testing.T) {
	at := t0.Add(10 * time.Hour)
	sched := func() *JournalPlan {
		p := plan(2)
		p.ScheduledFor = at
		p.Operator = &Operator{Name: "sara", Fingerprint: "SHA256:x"}
		return p
	}
	start := &JournalResume{Time: at, Indexes: []int{0, 1}, Runner: RunnerScheduler}
	cancel := &JournalCancel{Time: t0.Add(time.Hour), Cause: CancelCancelled, Operator: &Operator{Name: "reza"}}
	for _, tc := range []struct {
		name        string
		journal     []byte
		waiting     bool
		interrupted bool
		runs        int
		startedBy   string
		cancel      string
	}{
		{"scheduled", encode(t, sched()), true, false, 0, "", ""},
		{"cancelled", encode(t, sched(), cancel), false, false, 0, "", CancelCancelled},
		{"missed", encode(t, sched(), &JournalCancel{Time: at.Add(2 * time.Hour), Cause: CancelMissed, Runner: RunnerCron}), false, false, 0, "", CancelMissed},
		{"started", encode(t, sched(), start), false, true, 1, RunnerScheduler, ""},
		{"started and done", encode(t, sched(), start, &JournalIntent{Chunk: 0, Indexes: []int{0, 1}, Key: "k"}, accepted(0, 0, 1), &JournalEnd{Time: at}),
			false, false, 1, RunnerScheduler, ""},
		{"a cancel after the start is not heeded", encode(t, sched(), start, cancel), false, true, 1, RunnerScheduler, ""},
		{"a damaged line after the plan", append(encode(t, sched()), []byte("{\"type\":\"res\x00\n")...), false, true, 0, "", ""},
		{"an intent without its start", encode(t, sched(), &JournalIntent{Chunk: 0, Indexes: []int{0}, Key: "k"}), false, true, 0, "", ""},
		{"not scheduled", encode(t, plan(2)), false, true, 1, "", ""},
	} {
		st, err := ReplayJournal(bytes.NewReader(tc.journal))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		cause := ""
		if st.Cancel != nil {
			cause = st.Cancel.Cause
		}
		if st.Waiting() != tc.waiting || st.Interrupted != tc.interrupted || st.Runs != tc.runs || st.StartedBy != tc.startedBy || cause != tc.cancel {
			t.Errorf("%s: waiting %v interrupted %v runs %d started by %q cancel %q; want %v %v %d %q %q", tc.name,
				st.Waiting(), st.Interrupted, st.Runs, st.StartedBy, cause, tc.waiting, tc.interrupted, tc.runs, tc.startedBy, tc.cancel)
		}
		if st.Complete() && tc.name != "started and done" {
			t.Errorf("%s: complete", tc.name)
		}
	}
}

// TestJournalCancelRoundTrip: the cancel record is written and read back
// whole.
func TestJournalCancelRoundTrip(t *testing.T) {
	in := &JournalCancel{Time: t0, Cause: CancelMissed, Reason: "no runner ran", Runner: RunnerCron, Operator: &Operator{Name: "sara"}}
	b, err := MarshalJournalRecord(in)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := UnmarshalJournalRecord(bytes.TrimSpace(b))
	if err != nil {
		t.Fatal(err)
	}
	out, ok := rec.(*JournalCancel)
	if !ok || out.Cause != in.Cause || out.Reason != in.Reason || out.Runner != in.Runner || out.Operator.Name != "sara" || !out.Time.Equal(t0) {
		t.Fatalf("round trip: %#v", rec)
	}
}
