package legacy

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/smsdesk/smsdesk/model"
)

const fixture = "testdata/state-before-ledger"

// fuzzSeeds are the fixture's files of one kind, whole and damaged as a
// crash or a hand would damage them.
func fuzzSeeds(f *testing.F, pattern string) {
	paths, err := filepath.Glob(filepath.Join(fixture, pattern))
	if err != nil || len(paths) == 0 {
		f.Fatalf("no seeds %s: %v", pattern, err)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(data[:len(data)-1])    // no last newline
		f.Add(data[:len(data)*2/3])  // cut mid-line
		f.Add(append(data, data...)) // twice over
		f.Add(bytes.ReplaceAll(data, []byte(`"`), []byte(`'`)))
		f.Add(bytes.Replace(data, []byte("\n"), []byte("\n#\n"), 1))
	}
	f.Add([]byte(""))
	f.Add([]byte("\n\n"))
	f.Add([]byte("{}\n"))
	f.Add([]byte(`{"type":"plan"`))
	f.Add([]byte("null\n"))
	f.Add([]byte("\xff\xfe\n"))
}

// Whatever a journal holds, the line parser does not panic, and what it
// takes replay reads alike: no line replay would skip as damaged, and a cut
// last line where replay finds one.
func FuzzParseJournal(f *testing.F) {
	fuzzSeeds(f, "sends/*.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, cut, err := parseJournal(data)
		var le *lineError
		switch {
		case errors.Is(err, errNoPlan):
			if len(recs) != 0 {
				t.Fatalf("no plan, and %d records", len(recs))
			}
			return
		case errors.As(err, &le):
			if le.line < 1 || le.line > bytes.Count(data, []byte{'\n'})+1 {
				t.Fatalf("line %d of a %d-line journal", le.line, bytes.Count(data, []byte{'\n'})+1)
			}
			return
		case err != nil:
			t.Fatalf("an error of no kind: %v", err)
		}
		if _, ok := recs[0].(*model.JournalPlan); !ok {
			t.Fatalf("first record %s", recs[0].RecordType())
		}
		for i, r := range recs {
			if _, plan := r.(*model.JournalPlan); plan && i > 0 {
				t.Fatalf("a second plan at record %d", i+1)
			}
			b, err := model.MarshalJournalRecord(r)
			if err != nil {
				t.Fatalf("record %d does not encode: %v", i+1, err)
			}
			if back, err := model.UnmarshalJournalRecord(b); err != nil || back.RecordType() != r.RecordType() {
				t.Fatalf("record %d does not read back: %v", i+1, err)
			}
		}
		st, err := model.ReplayJournal(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("taken, but replay fails: %v", err)
		}
		if st.Damaged != 0 || st.TruncatedTail != cut {
			t.Fatalf("taken, but replay finds %d damaged lines (%v) and a cut tail %v (parser: %v)", st.Damaged, st.DamagedLines, st.TruncatedTail, cut)
		}
		if cut && (len(data) == 0 || data[len(data)-1] == '\n') {
			t.Fatal("a cut tail in a journal ending in a newline")
		}
	})
}

// Whatever the audit file holds, the parser does not panic, and every record
// it takes has an action, a time and its line.
func FuzzParseAudit(f *testing.F) {
	fuzzSeeds(f, "audit.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, cut, err := parseAudit(data)
		var le *lineError
		if errors.As(err, &le) {
			return
		}
		if err != nil {
			t.Fatalf("an error of no kind: %v", err)
		}
		for i, r := range recs {
			if r.Action == "" || r.Time.IsZero() || !json.Valid(r.Raw) {
				t.Fatalf("record %d: %+v", i+1, r)
			}
		}
		if cut && (len(data) == 0 || data[len(data)-1] == '\n') {
			t.Fatal("a cut tail in a file ending in a newline")
		}
	})
}
