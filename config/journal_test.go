package config

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/model"
)

func journalPlan(id string, at time.Time) *model.JournalPlan {
	return &model.JournalPlan{ID: id, Time: at, Sender: "3000505", Items: []model.JournalItem{
		{Index: 0, Recipient: "09120000000", Message: "a"}, {Index: 1, Recipient: "09120000001", Message: "b"}}}
}

func TestJournalFileLifecycle(t *testing.T) {
	p := testPaths(t)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	j, err := CreateJournal(t.Context(), p, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append(&model.JournalIntent{Chunk: 0, Indexes: []int{0}, Key: "k"}); err == nil {
		t.Error("a record before the plan was written")
	}
	if err := j.Append(journalPlan("s1", t0)); err != nil {
		t.Fatal(err)
	}
	if err := j.Append(&model.JournalIntent{Chunk: 0, Indexes: []int{0, 1}, Key: "k"}); err != nil {
		t.Fatal(err)
	}
	if err := j.Sync(); err != nil {
		t.Fatal(err)
	}
	// While open, nobody else may write it, and history sees it running.
	if _, err := OpenJournal(t.Context(), p, "s1"); !errors.Is(err, ErrJournalInUse) {
		t.Errorf("second writer: err = %v, want ErrJournalInUse", err)
	}
	if !JournalInUse(t.Context(), p, "s1") {
		t.Error("JournalInUse = false while open")
	}
	if _, err := CreateJournal(t.Context(), p, "s1"); err == nil {
		t.Error("CreateJournal over an existing send succeeded")
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if JournalInUse(t.Context(), p, "s1") {
		t.Error("JournalInUse = true after Close")
	}
	if err := j.Append(&model.JournalEnd{}); err == nil {
		t.Error("Append after Close succeeded")
	}
	loc, _ := p.LedgerLocation()
	if fi, err := os.Stat(loc); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("ledger %s: mode %v (%v), want 0600", loc, fi.Mode().Perm(), err)
	}
	st, err := ReadJournal(t.Context(), p, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if st.Items[0].State != model.StateUnknown {
		t.Errorf("an intent without outcome: %v, want unknown", st.Items[0].State)
	}
	j2, err := OpenJournal(t.Context(), p, "s1")
	if err != nil {
		t.Fatal(err)
	}
	j2.Append(&model.JournalResume{Indexes: []int{}})
	j2.Append(&model.JournalEnd{})
	j2.Close()
	st, err = ReadJournal(t.Context(), p, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if !st.Ended || st.Runs != 2 {
		t.Errorf("after reopen: ended=%v runs=%d", st.Ended, st.Runs)
	}
}

func TestDiscardLeavesNoSend(t *testing.T) {
	p := testPaths(t)
	j, err := CreateJournal(t.Context(), p, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append(journalPlan("s1", time.Now())); err != nil {
		t.Fatal(err)
	}
	if err := j.Discard(); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadJournal(t.Context(), p, "s1"); !errors.Is(err, ErrNoSuchSend) {
		t.Errorf("a discarded send reads: %v", err)
	}
}

func TestListJournalsNewestFirst(t *testing.T) {
	p := testPaths(t)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i, id := range []string{"b", "a", "c"} {
		j, err := CreateJournal(t.Context(), p, id)
		if err != nil {
			t.Fatal(err)
		}
		j.Append(journalPlan(id, t0.Add(time.Duration(i)*time.Hour)))
		j.Close()
	}
	list, err := ListJournals(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, l := range list {
		ids = append(ids, l.ID)
	}
	if got := ids; len(got) != 3 || got[0] != "c" || got[1] != "a" || got[2] != "b" {
		t.Errorf("order = %v, want c a b", got)
	}
	page, err := ListJournalsPage(t.Context(), p, ledger.SendQuery{Limit: 1, Offset: 1})
	if err != nil || len(page) != 1 || page[0].ID != "a" || page[0].State == nil {
		t.Errorf("page 2 of 1: %+v %v", page, err)
	}
}

func TestJournalRefusesOddIDs(t *testing.T) {
	p := testPaths(t)
	for _, id := range []string{"", "../x", ".hidden", "a/b", "a b", "x\x1b[31m"} {
		if _, err := CreateJournal(t.Context(), p, id); err == nil {
			t.Errorf("CreateJournal(%q) accepted", id)
		}
	}
	if _, err := ReadJournal(t.Context(), p, "nosuch"); !errors.Is(err, ErrNoSuchSend) {
		t.Errorf("ReadJournal(missing) = %v, want ErrNoSuchSend", err)
	}
}

// A state directory of the file store is not started over with an empty
// ledger: its opt-out list would be forgotten.
func TestLedgerNotMadeOverOldState(t *testing.T) {
	p := testPaths(t)
	old := filepath.Join(p.StateDir, "accounts", "abc", "optouts.json")
	if err := os.MkdirAll(filepath.Dir(old), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(old, []byte(`{"version":1,"optouts":[{"mobile":"09120000000"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	// The old list is imported (config/legacy.Upgrade), never left behind
	// an empty ledger.
	got, err := LookupOptOuts(t.Context(), p, []string{"09120000000"})
	if err != nil || got.Len() != 1 {
		t.Fatalf("an old opt-out list under a new ledger: %+v, %v", got, err)
	}
	if _, blocked := got.Blocks("09120000000", "3000505"); !blocked {
		t.Error("the old list's number is not blocked")
	}
}

// Several smsdesk processes starting at once on a new state directory all
// open the one ledger one of them made (none finds it half made).
func TestFirstOpensAtOnce(t *testing.T) {
	dir := t.TempDir()
	ids := make([]string, 8)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := PathsIn(filepath.Join(dir, "config"), filepath.Join(dir, "state"))
			defer p.CloseLedger()
			l, err := p.Ledger(t.Context())
			if err != nil {
				t.Error(err)
				return
			}
			ids[i] = l.ID()
		}()
	}
	wg.Wait()
	for _, id := range ids {
		if id != ids[0] {
			t.Fatalf("ledgers %v: want one", ids)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "state", ".smsdesk.db.new-*")); len(m) > 0 {
		t.Errorf("left behind: %v", m)
	}
}

// A journal its owner drops without closing it stops renewing its lease
// once nothing holds it (its heartbeat ends), so that the send is not kept
// leased for the life of the process: the lease then lapses within its
// time and another run may take the send. Without an end tied to the
// journal, the heartbeat renewed the lease until the process exited.
func TestJournalDroppedStopsItsHeartbeat(t *testing.T) {
	p := testPaths(t)
	j, err := CreateJournal(t.Context(), p, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append(journalPlan("s1", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))); err != nil {
		t.Fatal(err)
	}
	done := j.done
	j = nil // dropped, never closed
	_ = j
	for range 500 { // GC cycles, not time: the heartbeat ends at the first that finds the journal unreachable
		runtime.GC()
		select {
		case <-done:
			if !JournalInUse(t.Context(), p, "s1") {
				t.Error("the lease was let go: a dropped journal's send stays leased until its lease lapses (its run may have a chunk in flight)")
			}
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatal("the heartbeat of a journal nothing holds is still renewing its lease after 500 collections")
}
