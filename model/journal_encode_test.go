package model

import (
	"bytes"
	"testing"
	"time"
)

// awkward holds strings every escape rule of encoding/json applies to.
var awkward = []string{
	"", "plain", "سلام ۱۲۳", "quote \" backslash \\ slash /", "<b>&amp;</b>", "tab\tnl\nret\rbs\bff\f",
	"\x00\x01\x1f\x7f", "bad \xff\xfe utf8", "line\u2028sep\u2029", "emoji 😀", "\u200f\u202e",
}

// encodeCases are records covering every field, empty and set.
func encodeCases() []JournalRecord {
	zone := time.FixedZone("IRST", 3*3600+1800)
	times := []time.Time{{}, t0, time.Date(2026, 3, 4, 5, 6, 7, 891011121, zone)}
	var recs []JournalRecord
	for i, s := range awkward {
		tm := times[i%len(times)]
		recs = append(recs,
			&JournalIntent{Time: tm, Chunk: i, Indexes: []int{i, -i, 1 << 40}, Key: s, Attempt: i % 2},
			&JournalOutcome{Time: tm, Chunk: -i, BatchID: s, Status: 429 * (i % 2), Code: s, Error: s, Retry: i%2 == 0, Split: i%3 == 0,
				Results: []JournalResult{{Index: i, State: StateAccepted, MessageID: s}, {Index: 7, State: ItemState(s), Code: s, Error: s}}},
			&JournalPlan{ID: s, Time: tm, Profile: s, Sender: s, Source: s, ChunkSize: i,
				Items: []JournalItem{{Index: i, Recipient: s, Message: s, Parts: i, Line: i * 3}, {}}},
		)
	}
	recs = append(recs, &JournalIntent{}, &JournalIntent{Indexes: []int{}}, &JournalOutcome{}, &JournalOutcome{Results: []JournalResult{}},
		&JournalPlan{}, &JournalPlan{Items: []JournalItem{}}, &JournalEnd{Time: t0, Interrupted: true, Error: "x"},
		&JournalResume{Time: t0, Indexes: []int{1}}, &JournalDelivery{Time: t0, Updates: []DeliveryUpdate{{Index: 1, MessageID: "m", State: "delivered"}}})
	return recs
}

// TestAppendJournalRecord_SameBytes: the hand encoders write exactly what
// encoding/json writes, and the lines read back to the same records.
func TestAppendJournalRecord_SameBytes(t *testing.T) {
	buf := []byte("previous line\n")
	for _, rec := range encodeCases() {
		want, err := marshalJournalRecordReflect(rec)
		if err != nil {
			t.Fatal(err)
		}
		got, err := MarshalJournalRecord(rec)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%T:\ngot  %s\nwant %s", rec, got, want)
		}
		n := len(buf)
		buf, err = AppendJournalRecord(buf, rec)
		if err != nil || !bytes.Equal(buf[n:], want) || string(buf[:14]) != "previous line\n" {
			t.Errorf("AppendJournalRecord(%T) = %q, %v", rec, buf[n:], err)
		}
		if _, err := UnmarshalJournalRecord(got); err != nil {
			t.Errorf("%T does not read back: %v", rec, err)
		}
	}
}

// TestAppendJournalRecord_BadTime: a time encoding/json refuses is refused.
func TestAppendJournalRecord_BadTime(t *testing.T) {
	bad := time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, rec := range []JournalRecord{&JournalIntent{Time: bad}, &JournalOutcome{Time: bad}, &JournalPlan{Time: bad}} {
		if _, err := MarshalJournalRecord(rec); err == nil {
			t.Errorf("%T with year 10000 encoded without error", rec)
		}
	}
}

// FuzzAppendJournalString: any string encodes as encoding/json encodes it.
func FuzzAppendJournalString(f *testing.F) {
	for _, s := range awkward {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		rec := &JournalOutcome{Time: t0, Chunk: n, Error: s, Results: []JournalResult{{Index: n, State: ItemState(s), MessageID: s}}}
		want, _ := marshalJournalRecordReflect(rec)
		got, err := MarshalJournalRecord(rec)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("got %q, %v\nwant %q", got, err, want)
		}
	})
}

// BenchmarkJournalOutcome100 encodes one chunk's outcome (100 results) into a
// reused buffer.
func BenchmarkJournalOutcome100(b *testing.B) {
	rec := &JournalOutcome{Time: t0, Chunk: 3, BatchID: "batch_12"}
	for i := range 100 {
		rec.Results = append(rec.Results, JournalResult{Index: i, State: StateAccepted, MessageID: "msg_123456"})
	}
	b.Run("append", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			buf, _ = AppendJournalRecord(buf[:0], rec)
		}
	})
	b.Run("reflect", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = marshalJournalRecordReflect(rec)
		}
	})
}
