package legacy_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/config/legacy"
	"github.com/smsdesk/smsdesk/config/legacy/legacytest"
	"github.com/smsdesk/smsdesk/model"
)

// The fixture's sends (testdata/state-before-ledger/README.txt says how each
// was made).
const (
	sendComplete  = "20261127-000113-95c2c8"
	sendUnknown   = "20261127-000113-1f66f0"
	sendScheduled = "20261127-000113-b3848d"
	sendCancelled = "20261127-000113-141c6d"
	sendOnce      = "20261127-000124-c47d41"
)

func readFixture(t *testing.T) *legacy.Snapshot {
	t.Helper()
	s, err := legacy.Read(legacytest.Fixture(t))
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return s
}

func recordTypes(recs []model.JournalRecord) string {
	var types []string
	for _, r := range recs {
		types = append(types, r.RecordType())
	}
	return strings.Join(types, " ")
}

func countStates(st *model.JournalState) map[model.ItemState]int {
	n := map[model.ItemState]int{}
	for _, it := range st.Items {
		n[it.State]++
	}
	return n
}

func TestReadSends(t *testing.T) {
	s := readFixture(t)
	tests := []struct {
		id, records string
		states      map[model.ItemState]int
		waiting     bool
		cancel      string
		pairs       int // the repeat guard's pairs
	}{
		{id: sendCancelled, records: "plan cancel", states: map[model.ItemState]int{model.StateQueued: 1}, cancel: model.CancelCancelled},
		{id: sendUnknown, records: "plan intent outcome intent outcome intent outcome intent outcome end",
			states: map[model.ItemState]int{model.StateAccepted: 2, model.StateUnknown: 2}, pairs: 4},
		{id: sendComplete, records: "plan intent outcome end delivery delivery",
			states: map[model.ItemState]int{model.StateAccepted: 2, model.StateOptedOut: 1}, pairs: 2},
		{id: sendScheduled, records: "plan", states: map[model.ItemState]int{model.StateQueued: 2}, waiting: true, pairs: 2},
		{id: sendOnce, records: "plan intent outcome end", states: map[model.ItemState]int{model.StateAccepted: 1}, pairs: 1},
	}
	if len(s.Sends) != len(tests) {
		t.Fatalf("%d sends, want %d", len(s.Sends), len(tests))
	}
	for i, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			got := s.Sends[i]
			if got.ID != tt.id || got.Path != filepath.Join("sends", tt.id+".jsonl") {
				t.Fatalf("send %d is %s at %s, want %s", i, got.ID, got.Path, tt.id)
			}
			if r := recordTypes(got.Records); r != tt.records {
				t.Errorf("records %q, want %q", r, tt.records)
			}
			if plan := got.Records[0].(*model.JournalPlan); plan.ID != tt.id || got.State.Plan.ID != tt.id {
				t.Errorf("plan of %s, state of %s", plan.ID, got.State.Plan.ID)
			}
			if n := countStates(got.State); !mapsEqual(n, tt.states) {
				t.Errorf("items %v, want %v", n, tt.states)
			}
			if got.State.Waiting() != tt.waiting {
				t.Errorf("waiting %v, want %v", got.State.Waiting(), tt.waiting)
			}
			if cause := cancelCause(got.State); cause != tt.cancel {
				t.Errorf("cancel %q, want %q", cause, tt.cancel)
			}
			if p := got.Pairs(); len(p.Keys) != tt.pairs || p.SendID != tt.id || p.Scheduled != tt.waiting {
				t.Errorf("pairs: %d (scheduled %v), want %d (scheduled %v)", len(p.Keys), p.Scheduled, tt.pairs, tt.waiting)
			}
			if got.CutTail {
				t.Error("CutTail on a whole journal")
			}
		})
	}
	if len(s.Notes) > 0 {
		t.Errorf("notes on the fixture: %q", s.Notes)
	}
}

// The pairs a send counts are its accepted ones, and its unknown ones as
// maybe: the file store's digest held the same.
func TestSendPairs(t *testing.T) {
	s := readFixture(t)
	i := slices.IndexFunc(s.Sends, func(x legacy.Send) bool { return x.ID == sendUnknown })
	p := s.Sends[i].Pairs()
	want := map[uint64]bool{ // pair → maybe
		model.PairKey("09121110020", "m1"): false, model.PairKey("09121110021", "m2"): true,
		model.PairKey("09121110022", "m3"): false, model.PairKey("09121110023", "m4"): true,
	}
	for j, k := range p.Keys {
		maybe, ok := want[k]
		if !ok || maybe != (p.Maybe != nil && p.Maybe[j]) {
			t.Errorf("pair %d: key %x maybe %v not as sent", j, k, p.Maybe != nil && p.Maybe[j])
		}
	}
	sched := s.Sends[slices.IndexFunc(s.Sends, func(x legacy.Send) bool { return x.ID == sendScheduled })]
	at := sched.State.Plan.ScheduledFor.Unix()
	if p := sched.Pairs(); len(p.At) != 2 || p.At[0] != at || p.At[1] != at || !p.Maybe[0] {
		t.Errorf("a waiting send's pairs: %+v, want 2 maybe at its time %d", p, at)
	}
}

func cancelCause(st *model.JournalState) string {
	if st.Cancel == nil {
		return ""
	}
	return st.Cancel.Cause
}

func mapsEqual(a, b map[model.ItemState]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestReadOptOutsMerged(t *testing.T) {
	s := readFixture(t)
	want := []struct{ mobile, sender, note, added string }{
		// on both accounts' lists: the earlier entry (main's, with its note)
		{"09121110001", "", "asked by phone", "2026-11-27T00:01:10.431072934Z"},
		{"09121110002", "3000505", "", "2026-11-27T00:01:10.555019355Z"},
		{"09121110003", "", "", "2026-11-27T00:01:10.683308536Z"},
	}
	if s.OptOutsRead != 4 || len(s.OptOuts) != len(want) {
		t.Fatalf("%d opt-outs read, %d kept: %+v; want 4 and %d", s.OptOutsRead, len(s.OptOuts), s.OptOuts, len(want))
	}
	for i, w := range want {
		o := s.OptOuts[i]
		if o.Mobile != w.mobile || o.Sender != w.sender || o.Note != w.note || o.Added.Format(time.RFC3339Nano) != w.added {
			t.Errorf("opt-out %d: %+v, want %+v", i, o, w)
		}
	}
}

func TestMergeKeepsTheEarliest(t *testing.T) {
	day := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name  string
		lists [2]string // the two accounts' optouts, as JSON
		want  []model.OptOut
	}{
		{"one number on both lists, the later first",
			[2]string{`[{"mobile":"09121110001","added":"2026-11-02T00:00:00Z"}]`, `[{"mobile":"09121110001","note":"first","added":"2026-11-01T00:00:00Z"}]`},
			[]model.OptOut{{Mobile: "09121110001", Note: "first", Added: day}}},
		{"every line and one line: both kept",
			[2]string{`[{"mobile":"09121110001","added":"2026-11-01T00:00:00Z"}]`, `[{"mobile":"09121110001","sender":"3000505","added":"2026-11-01T00:00:00Z"}]`},
			[]model.OptOut{{Mobile: "09121110001", Added: day}, {Mobile: "09121110001", Sender: "3000505", Added: day}}},
		{"two lines: both kept",
			[2]string{`[{"mobile":"09121110001","sender":"2000","added":"2026-11-01T00:00:00Z"}]`, `[{"mobile":"09121110001","sender":"1000","added":"2026-11-01T00:00:00Z"}]`},
			[]model.OptOut{{Mobile: "09121110001", Sender: "1000", Added: day}, {Mobile: "09121110001", Sender: "2000", Added: day}}},
		{"empty lists",
			[2]string{`[]`, `[]`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for i, l := range tt.lists {
				writeFile(t, filepath.Join(dir, "accounts", string(rune('a'+i)), "optouts.json"), `{"version":1,"optouts":`+l+`}`)
			}
			s, err := legacy.Read(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.OptOuts) != len(tt.want) {
				t.Fatalf("got %+v, want %+v", s.OptOuts, tt.want)
			}
			for i := range tt.want {
				g, w := s.OptOuts[i], tt.want[i]
				if g.Mobile != w.Mobile || g.Sender != w.Sender || g.Note != w.Note || !g.Added.Equal(w.Added) {
					t.Errorf("entry %d: %+v, want %+v", i, g, w)
				}
			}
		})
	}
}

func TestReadOnce(t *testing.T) {
	s := readFixture(t)
	// fixture-sale was freed when its send was cancelled.
	want := []struct{ id, send string }{{"fixture-reminders-1220", sendScheduled}, {"fixture-invoice-7", sendOnce}}
	if s.OnceRead != 2 || len(s.Once) != len(want) {
		t.Fatalf("once: %d read, %+v", s.OnceRead, s.Once)
	}
	for i, w := range want {
		if o := s.Once[i]; o.ID != w.id || o.SendID != w.send || o.Profile != "main" || o.Count == 0 || len(o.Pairs) != 64 || o.Account != "e58cc07961ac44b88b4df371" {
			t.Errorf("once %d: %+v, want %s by %s", i, o, w.id, w.send)
		}
	}
}

func TestReadAudit(t *testing.T) {
	s := readFixture(t)
	want := "create_group add_contact optout_add optout_add optout_add optout_remove optout_add optout_add cancel_scheduled"
	var got []string
	for _, r := range s.Audit {
		got = append(got, r.Action)
		if r.Time.IsZero() || len(r.Raw) == 0 || r.Raw[0] != '{' {
			t.Errorf("record %+v: no time or no line", r)
		}
	}
	if strings.Join(got, " ") != want {
		t.Errorf("actions %q, want %q", got, want)
	}
	if r := s.Audit[3]; r.Mobile != "09121110002" || r.Sender != "3000505" || r.Profile != "main" {
		t.Errorf("a one-line opt-out's record: %+v", r)
	}
}

// Files lists what an import moves aside: the file store's, not the groups,
// caches or request budget that stay files.
func TestReadFiles(t *testing.T) {
	s := readFixture(t)
	for _, f := range []string{
		"audit.jsonl", "sends/.start.lock", "sends/" + sendComplete + ".jsonl", "sends/" + sendComplete + ".pairs",
		"accounts/e58cc07961ac44b88b4df371/optouts.json", "accounts/e58cc07961ac44b88b4df371/optouts.json.lock",
		"accounts/e58cc07961ac44b88b4df371/once.json", "accounts/3c2f3728fb980ea77aab2f67/optouts.json",
	} {
		if !slices.Contains(s.Files, filepath.FromSlash(f)) {
			t.Errorf("Files lacks %s: %q", f, s.Files)
		}
	}
	for _, f := range s.Files {
		if strings.HasPrefix(f, "groups") || f == "README.txt" {
			t.Errorf("Files holds %s, which is not the file store's", f)
		}
	}
	if s.Empty() {
		t.Error("Empty on the fixture")
	}
}

func TestFound(t *testing.T) {
	tests := []struct {
		name  string
		files []string
		want  bool
	}{
		{"nothing", nil, false},
		{"only groups and rate", []string{"groups/main.json", "rate/x.json", "debug.log"}, false},
		{"only the start lock", []string{"sends/.start.lock"}, false},
		{"a journal", []string{"sends/x.jsonl"}, true},
		{"an opt-out list", []string{"accounts/a/optouts.json"}, true},
		{"once-only ids", []string{"accounts/a/once.json"}, true},
		{"the audit file", []string{"audit.jsonl"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tt.files {
				writeFile(t, filepath.Join(dir, f), "")
			}
			if got, err := legacy.Found(dir); err != nil || got != tt.want {
				t.Errorf("Found = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
	if got, err := legacy.Found(filepath.Join(t.TempDir(), "none")); err != nil || got {
		t.Errorf("Found of no directory = %v, %v", got, err)
	}
	s, err := legacy.Read(filepath.Join(t.TempDir(), "none"))
	if err != nil || !s.Empty() || len(s.Sends)+len(s.OptOuts)+len(s.Once)+len(s.Audit) != 0 {
		t.Errorf("Read of no directory = %+v, %v", s, err)
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// errorIs checks that err is a *legacy.Error for file (relative to dir) at
// line, saying problem.
func errorIs(t *testing.T, err error, dir, file string, line int, problem string) {
	t.Helper()
	var le *legacy.Error
	if !errors.As(err, &le) {
		t.Fatalf("err = %v (%T), want a *legacy.Error", err, err)
	}
	if le.Path != filepath.Join(dir, file) || le.Line != line || !strings.Contains(le.Error(), problem) {
		t.Errorf("err = %q (path %s, line %d); want %s line %d saying %q", le, le.Path, le.Line, file, line, problem)
	}
	if !strings.Contains(le.Error(), model.SanitizeLine(le.Path)) {
		t.Errorf("err = %q does not name the file", le)
	}
}
