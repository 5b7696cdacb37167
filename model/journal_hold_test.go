package model

import (
	"bytes"
	"testing"
	"time"
)

// TestReplayKeepsTheHold: a send held at quiet hours keeps its hold in the
// replay after a run goes on with it and completes: until when, and who
// went on (a runner, or an operator's resume). Both were lost as the
// continuing run's resume record cleared HeldUntil (issue 35 item 8:
// history --json said held_until null once the send was complete).
func TestReplayKeepsTheHold(t *testing.T) {
	until := t0.Add(10 * time.Hour)
	held := &JournalEnd{Time: t0.Add(time.Minute), Stopped: "quiet hours", StopCause: "quiet_hours", HeldUntil: until}
	first := []JournalRecord{plan(2), &JournalIntent{Chunk: 0, Indexes: []int{0}, Key: "k0"}, accepted(0, 0), held}
	sara := &Operator{Name: "sara", Fingerprint: "SHA256:x"}
	goOn := func(runner string, op *Operator) []JournalRecord {
		return []JournalRecord{&JournalResume{Time: until.Add(time.Second), Indexes: []int{1}, Runner: runner, Operator: op},
			&JournalIntent{Chunk: 1, Indexes: []int{1}, Key: "k1"}, accepted(1, 1), &JournalEnd{Time: until.Add(2 * time.Second)}}
	}
	for _, tc := range []struct {
		name      string
		records   []JournalRecord
		hold      bool // a hold is kept
		continued bool
		runner    string
		operator  string
		held      bool // held now
		complete  bool
	}{
		{"never held", []JournalRecord{plan(1), &JournalIntent{Chunk: 0, Indexes: []int{0}, Key: "k0"}, accepted(0, 0), &JournalEnd{Time: t0}}, false, false, "", "", false, true},
		{"held", first, true, false, "", "", true, false},
		{"continued by cron, complete", append(append([]JournalRecord{}, first...), goOn(RunnerCron, nil)...), true, true, RunnerCron, "", false, true},
		{"continued by serve, running", append(append([]JournalRecord{}, first...), goOn(RunnerServe, nil)[:2]...), true, true, RunnerServe, "", false, false},
		{"resumed by an operator, complete", append(append([]JournalRecord{}, first...), goOn("", sara)...), true, true, "", "sara", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := ReplayJournal(bytes.NewReader(encode(t, tc.records...)))
			if err != nil {
				t.Fatal(err)
			}
			h := st.Hold
			if (h != nil) != tc.hold || st.Held() != tc.held || st.Complete() != tc.complete || h.Continued() != tc.continued {
				t.Fatalf("hold %+v, held %v, complete %v; want hold %v, held %v, complete %v, continued %v", h, st.Held(), st.Complete(), tc.hold, tc.held, tc.complete, tc.continued)
			}
			if h == nil {
				return
			}
			op := ""
			if h.Operator != nil {
				op = h.Operator.Name
			}
			if !h.Until.Equal(until) || h.Runner != tc.runner || op != tc.operator {
				t.Errorf("hold until %v by %q (%q); want %v by %q (%q)", h.Until, h.Runner, op, until, tc.runner, tc.operator)
			}
		})
	}
}
