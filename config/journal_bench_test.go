package config

import (
	"fmt"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// BenchmarkJournalAppend measures what the engine pays per chunk for the
// safety rule: one intent recorded durably (a committed transaction,
// synchronous=FULL) before the request. Figures: BENCHMARKS.md, "send
// engine".
func BenchmarkJournalAppend(b *testing.B) {
	idx := make([]int, 100)
	for i := range idx {
		idx[i] = 1000 + i
	}
	p := testPaths(b)
	j, err := CreateJournal(b.Context(), p, "bench")
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	plan := journalPlan("bench", time.Now())
	for i := range 1100 {
		plan.Items = append(plan.Items, model.JournalItem{Index: i + 2, Recipient: fmt.Sprintf("0912%07d", i), Message: "m"})
	}
	if err := j.Append(plan); err != nil {
		b.Fatal(err)
	}
	rec := &model.JournalIntent{Time: time.Now(), Chunk: 10, Indexes: idx, Key: "smsdesk-20260102-150405-3fa9c1-10"}
	for b.Loop() {
		if err := j.Append(rec); err != nil {
			b.Fatal(err)
		}
	}
}
