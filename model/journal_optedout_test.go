package model

import (
	"bytes"
	"testing"
	"time"
)

// TestJournalOptedOutReplays: the record a running send writes for items
// it left out as opted out (a reply «۱۱» meanwhile) reads back by either
// reader and replays them as opted out, never sent nor unknown; an item
// it names that was already accepted stays accepted.
func TestJournalOptedOutReplays(t *testing.T) {
	at := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	plan := &JournalPlan{ID: "s", Time: at, Sender: "3000", ChunkSize: 1}
	for i, r := range []string{"09120000000", "09120000001", "09120000002"} {
		plan.Items = append(plan.Items, JournalItem{Index: i, Recipient: r, Message: "hi"})
	}
	rec := &JournalOptedOut{Time: at.Add(time.Minute), Indexes: []int{0, 2}}
	var buf bytes.Buffer
	for _, r := range []JournalRecord{plan,
		&JournalIntent{Time: at, Chunk: 0, Indexes: []int{0}, Key: "k0"},
		&JournalOutcome{Time: at, Chunk: 0, Results: []JournalResult{{Index: 0, State: StateAccepted, MessageID: "m0"}}},
		rec,
		&JournalIntent{Time: at, Chunk: 1, Indexes: []int{1}, Key: "k1"},
		&JournalOutcome{Time: at, Chunk: 1, Results: []JournalResult{{Index: 1, State: StateAccepted, MessageID: "m1"}}},
		&JournalEnd{Time: at}} {
		if err := WriteJournalRecord(&buf, r); err != nil {
			t.Fatal(err)
		}
	}
	line, err := MarshalJournalRecord(rec)
	if err != nil {
		t.Fatal(err)
	}
	for name, read := range map[string]func() (JournalRecord, error){
		"by its type": func() (JournalRecord, error) { return UnmarshalJournalRecordOf(RecordOptedOut, line) },
		"by its line": func() (JournalRecord, error) { return UnmarshalJournalRecord(line) },
	} {
		got, err := read()
		if o, ok := got.(*JournalOptedOut); err != nil || !ok || len(o.Indexes) != 2 || !o.Time.Equal(rec.Time) {
			t.Errorf("%s: %#v %v", name, got, err)
		}
	}
	st, err := ReplayJournal(&buf)
	if err != nil || st.Damaged > 0 {
		t.Fatal(err, st.Damaged)
	}
	want := []ItemState{StateAccepted, StateAccepted, StateOptedOut}
	for i, w := range want {
		if it, _ := st.Item(i); it.State != w {
			t.Errorf("item %d replays %s, want %s", i, it.State, w)
		}
	}
	if c := st.Counts(); c.Accepted != 2 || c.OptedOut != 1 || c.Unknown != 0 || c.NotSent != 0 {
		t.Errorf("counts %+v", c)
	}
}
