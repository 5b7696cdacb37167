package ledger

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
	"github.com/smsdesk/smsdesk/model"
)

func TestOptOuts(t *testing.T) {
	ctx := context.Background()
	each(t, func(t *testing.T, l *Ledger, loc string) {
		op := &model.Operator{Name: "sara", Role: model.RoleSender}
		ch, err := l.AddOptOuts(ctx, []model.OptOut{
			{Mobile: "09120000001", Added: t0, Note: "asked", Operator: op},
			{Mobile: "09120000002", Sender: "3000", Added: t0},
		})
		if err != nil || len(ch.Changed) != 2 {
			t.Fatalf("Add: %+v %v", ch, err)
		}
		// Every line's entry covers one line's; one line's does not cover another.
		ch, err = l.AddOptOuts(ctx, []model.OptOut{
			{Mobile: "09120000001", Sender: "3000", Added: t0},
			{Mobile: "09120000002", Sender: "3000", Added: t0},
			{Mobile: "09120000002", Sender: "4000", Added: t0},
		})
		if err != nil || len(ch.Already) != 2 || len(ch.Changed) != 1 || ch.Changed[0].Sender != "4000" {
			t.Fatalf("Add again: %+v %v", ch, err)
		}
		got, err := reopen(t, loc).LookupOptOuts(ctx, []string{"09120000001", "09120000002", "09129999999", "09120000001"})
		if err != nil || len(got) != 3 {
			t.Fatalf("Lookup: %+v %v", got, err)
		}
		list := model.NewOptOutList(got)
		if o, ok := list.Blocks("+989120000001", "5000"); !ok || o.Note != "asked" || o.Operator == nil || o.Operator.Name != "sara" || !o.Added.Equal(t0) {
			t.Errorf("Blocks every line: %+v %v", o, ok)
		}
		if _, ok := list.Blocks("09120000002", "5000"); ok {
			t.Error("a one-line entry blocked another line")
		}
		ch, err = l.RemoveOptOuts(ctx, []string{"09120000002", "09120000003"}, "3000")
		if err != nil || len(ch.Changed) != 1 || len(ch.Already) != 1 {
			t.Fatalf("Remove: %+v %v", ch, err)
		}
		if n, err := l.CountOptOuts(ctx); err != nil || n != 2 {
			t.Errorf("Count: %d %v", n, err)
		}
		page, err := l.ListOptOuts(ctx, 1, 1)
		if err != nil || len(page) != 1 || page[0].Mobile != "09120000002" || page[0].Sender != "4000" {
			t.Errorf("List page: %+v %v", page, err)
		}
	})
}

// numbers yields n entries 0912xxxxxxx.
func numbers(n int) iter.Seq2[model.OptOut, error] {
	return func(yield func(model.OptOut, error) bool) {
		for i := range n {
			if !yield(model.OptOut{Mobile: fmt.Sprintf("0912%07d", i), Added: t0, Note: "import"}, nil) {
				return
			}
		}
	}
}

func TestImportOptOuts(t *testing.T) {
	ctx := context.Background()
	each(t, func(t *testing.T, l *Ledger, loc string) {
		if _, err := l.AddOptOuts(ctx, []model.OptOut{{Mobile: fmt.Sprintf("0912%07d", 7), Added: t0}}); err != nil {
			t.Fatal(err)
		}
		audit := func(r ImportResult) AuditEntry {
			return AuditEntry{Time: t0, Action: "optout_import", Body: fmt.Appendf(nil, `{"added":%d}`, r.Added)}
		}
		res, err := l.ImportOptOuts(ctx, numbers(2500), audit)
		if err != nil || res.Read != 2500 || res.Added != 2499 || res.Already != 1 {
			t.Fatalf("Import: %+v %v", res, err)
		}
		if n, _ := l.CountOptOuts(ctx); n != 2500 {
			t.Errorf("Count after import: %d", n)
		}
		// Each entry says where it came from: the one added by hand is
		// the operator's, the import's are the import's.
		list, err := l.ListOptOuts(ctx, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		sources := map[string]int{}
		for _, o := range list {
			sources[o.Source]++
		}
		if sources[model.OptOutOperator] != 1 || sources[model.OptOutImport] != 2499 || len(sources) != 2 || list[7].Source != model.OptOutOperator {
			t.Errorf("sources %v (entry 7: %q), want 1 operator and 2499 import", sources, list[7].Source)
		}
		recs, err := l.ListAudit(ctx, 0, 0)
		if err != nil || len(recs) != 1 || string(recs[0].Body) != `{"added":2499}` {
			t.Errorf("one audit record for the import: %+v %v", recs, err)
		}
		// A failure part way rolls all of it back.
		boom := errors.New("the file went away")
		failing := func(yield func(model.OptOut, error) bool) {
			for o := range numbers(1500) {
				if !yield(model.OptOut{Mobile: "0935" + o.Mobile[4:], Added: t0}, nil) {
					return
				}
			}
			yield(model.OptOut{}, boom)
		}
		if _, err := l.ImportOptOuts(ctx, failing, audit); !errors.Is(err, boom) {
			t.Errorf("Import that fails: %v", err)
		}
		if n, _ := l.CountOptOuts(ctx); n != 2500 {
			t.Errorf("a failed import left %d entries, want 2500", n)
		}
	})
}

// BenchmarkImportOptOuts1M imports 1,000,000 numbers into a new ledger
// (issue 36: at most 60 s and 300 MB RSS).
func BenchmarkImportOptOuts1M(b *testing.B) {
	ctx := context.Background()
	for _, be := range ledgertest.Backends() {
		b.Run(be.Name, func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				l, err := Create(ctx, be.Location(b))
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if _, err := l.ImportOptOuts(ctx, numbers(1_000_000), nil); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				l.Close()
			}
		})
	}
}

// BenchmarkLookupPlan10k looks up a 10,000-number plan in a list of one
// number and in one of 1,000,000 (issue 36: at most 2x; an empty list is
// answered at once, without a lookup).
func BenchmarkLookupPlan10k(b *testing.B) {
	ctx := context.Background()
	// Numbers spread over the list's range, one in a hundred on it (a
	// plan whose every recipient opted out is not what costs).
	plan := make([]string, 10_000)
	for i := range plan {
		plan[i] = fmt.Sprintf("0912%07d", i*97)
		if i%100 != 0 {
			plan[i] = fmt.Sprintf("0913%07d", i*97)
		}
	}
	for _, size := range []int{1, 1_000_000} {
		b.Run(fmt.Sprintf("sqlite/list=%d", size), func(b *testing.B) {
			l, err := Create(ctx, filepath.Join(b.TempDir(), "smsdesk.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			if _, err := l.ImportOptOuts(ctx, numbers(size), nil); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				if _, err := l.LookupOptOuts(ctx, plan); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestOnceIDs(t *testing.T) {
	ctx := context.Background()
	each(t, func(t *testing.T, l *Ledger, loc string) {
		o := OnceSend{ID: "nightly-2026-03-01", SendID: "s1", Pairs: "abc", Count: 3, Source: "p.csv", Time: t0, Profile: "work"}
		if err := l.RecordOnce(ctx, o); err != nil {
			t.Fatal(err)
		}
		if err := l.RecordOnce(ctx, OnceSend{ID: o.ID, SendID: "s2", Time: t0}); !errors.Is(err, ErrOnceUsed) {
			t.Errorf("RecordOnce again: %v, want ErrOnceUsed", err)
		}
		got, ok, err := reopen(t, loc).FindOnce(ctx, o.ID)
		if err != nil || !ok || got.SendID != "s1" || got.Count != 3 || !got.Time.Equal(t0) {
			t.Errorf("FindOnce: %+v %v %v", got, ok, err)
		}
		if err := l.ForgetOnce(ctx, o.ID, "other"); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := l.FindOnce(ctx, o.ID); !ok {
			t.Error("ForgetOnce of another send's id forgot it")
		}
		if err := l.RecordOnce(ctx, OnceSend{ID: "b", SendID: "s1", Time: t0}); err != nil {
			t.Fatal(err)
		}
		freed, err := l.FreeOnceSend(ctx, "s1")
		if err != nil || len(freed) != 2 {
			t.Errorf("FreeOnceSend: %v %v", freed, err)
		}
		if _, ok, _ := l.FindOnce(ctx, o.ID); ok {
			t.Error("a freed id is still there")
		}
	})
}

func TestRecentPairs(t *testing.T) {
	ctx := context.Background()
	each(t, func(t *testing.T, l *Ledger, loc string) {
		lease, err := l.CreateSend(ctx, "s1", plan("s1", 2, time.Time{}), "t", 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, rec := range []model.JournalRecord{
			&model.JournalIntent{Time: t0, Chunk: 0, Indexes: []int{0, 1}, Key: "k"},
			&model.JournalOutcome{Time: t0, Chunk: 0, Results: []model.JournalResult{{Index: 0, State: model.StateAccepted}, {Index: 1, State: model.StateRejected}}},
			&model.JournalEnd{Time: t0},
		} {
			if err := lease.Append(ctx, rec); err != nil {
				t.Fatal(err)
			}
		}
		scope := RepeatScope{Account: "acct1", Profile: "work", Host: "sms.example.com:443"}
		running, err := l.RecentPairs(ctx, scope, t0.Add(-time.Hour))
		if err != nil || len(running) != 1 || !running[0].Running {
			t.Fatalf("RecentPairs while leased: %+v %v", running, err)
		}
		_ = lease.Release(ctx)
		for range 2 { // built, then from the digest kept
			got, err := l.RecentPairs(ctx, scope, t0.Add(-time.Hour))
			if err != nil || len(got) != 1 || len(got[0].Keys) != 1 || got[0].Running || got[0].Keys[0] != model.PairKey("09120000000", "hi") {
				t.Fatalf("RecentPairs: %+v %v", got, err)
			}
		}
		if got, _ := l.RecentPairs(ctx, scope, t0.Add(time.Hour)); len(got) != 0 {
			t.Errorf("pairs before the window: %+v", got)
		}
		if got, _ := l.RecentPairs(ctx, RepeatScope{Account: "other", Profile: "home"}, t0.Add(-time.Hour)); len(got) != 0 {
			t.Errorf("another account's pairs: %+v", got)
		}
	})
}

func TestStatusAndBackup(t *testing.T) {
	ctx := context.Background()
	each(t, func(t *testing.T, l *Ledger, loc string) {
		if _, err := l.AddOptOuts(ctx, []model.OptOut{{Mobile: "09120000001", Added: t0}}); err != nil {
			t.Fatal(err)
		}
		st, err := l.Status(ctx)
		if err != nil || st.OptOuts != 1 || st.Integrity != "ok" || st.SchemaVersion != SchemaVersion || st.Size == 0 {
			t.Fatalf("Status: %+v %v", st, err)
		}
		file := filepath.Join(t.TempDir(), "backup.db")
		err = l.Backup(ctx, file)
		if l.Backend() == Postgres {
			if err == nil || !strings.Contains(err.Error(), "pg_dump") {
				t.Errorf("Backup of PostgreSQL: %v", err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		b := reopen(t, file)
		if b.ID() != l.ID() {
			t.Error("the backup is another ledger")
		}
		if err := l.Backup(ctx, file); err == nil {
			t.Error("Backup over an existing file")
		}
	})
}

// TestOptOutSourceKept: an entry's source and reply id are kept as given;
// one given none is the operator's.
func TestOptOutSourceKept(t *testing.T) {
	ctx := context.Background()
	each(t, func(t *testing.T, l *Ledger, loc string) {
		add := []model.OptOut{
			{Mobile: "09120000001", Sender: "3000", Added: t0, Source: model.OptOutReply, MessageID: "msg-7"},
			{Mobile: "09120000002", Added: t0},
		}
		if _, err := l.AddOptOuts(ctx, add); err != nil {
			t.Fatal(err)
		}
		got, err := l.LookupOptOuts(ctx, []string{"09120000001", "09120000002"})
		if err != nil || len(got) != 2 {
			t.Fatalf("lookup: %+v %v", got, err)
		}
		slices.SortFunc(got, func(a, b model.OptOut) int { return strings.Compare(a.Mobile, b.Mobile) })
		if got[0].Source != model.OptOutReply || got[0].MessageID != "msg-7" || got[1].Source != model.OptOutOperator || got[1].MessageID != "" {
			t.Errorf("read back %+v", got)
		}
	})
}
