package config

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// BenchmarkJournalSync measures what the engine pays per chunk for the safety
// rule: one intent line appended and made durable before the request. It
// compares the journal's Sync (fdatasync on Linux) with a full fsync and with
// no sync at all. Figures: BENCHMARKS.md, "send engine".
func BenchmarkJournalSync(b *testing.B) {
	idx := make([]int, 100)
	for i := range idx {
		idx[i] = 1000 + i
	}
	rec := &model.JournalIntent{Time: time.Now(), Chunk: 10, Indexes: idx, Key: "smsdesk-20260102-150405-3fa9c1-10"}
	for _, mode := range []string{"datasync", "fsync", "none"} {
		b.Run(mode, func(b *testing.B) {
			p := PathsIn(b.TempDir(), filepath.Join(b.TempDir(), "state"))
			j, err := CreateJournal(p, "bench")
			if err != nil {
				b.Fatal(err)
			}
			defer j.Close()
			for b.Loop() {
				if err := j.Append(rec); err != nil {
					b.Fatal(err)
				}
				switch mode {
				case "datasync":
					err = j.Sync()
				case "fsync":
					err = j.f.Sync()
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
