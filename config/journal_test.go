package config

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

func journalPlan(id string, at time.Time) *model.JournalPlan {
	return &model.JournalPlan{ID: id, Time: at, Sender: "3000505", Items: []model.JournalItem{
		{Index: 0, Recipient: "09120000000", Message: "a"}, {Index: 1, Recipient: "09120000001", Message: "b"}}}
}

func TestJournalFileLifecycle(t *testing.T) {
	p := PathsIn(t.TempDir(), filepath.Join(t.TempDir(), "state"))
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	j, err := CreateJournal(p, "s1")
	if err != nil {
		t.Fatal(err)
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
	if _, err := OpenJournal(p, "s1"); !errors.Is(err, ErrJournalInUse) {
		t.Errorf("second writer: err = %v, want ErrJournalInUse", err)
	}
	if !JournalInUse(p, "s1") {
		t.Error("JournalInUse = false while open")
	}
	if _, err := CreateJournal(p, "s1"); err == nil {
		t.Error("CreateJournal over an existing send succeeded")
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]os.FileMode{j.Path(): 0o600, p.SendsDir(): 0o700 | os.ModeDir} {
		if fi, err := os.Stat(path); err != nil || fi.Mode() != want {
			t.Errorf("%s: mode %v (%v), want %v", path, fi.Mode(), err, want)
		}
	}
	// Simulate a kill mid-write: a partial outcome line at the end.
	f, _ := os.OpenFile(j.Path(), os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"type":"outcome","chunk":0,"res`)
	f.Close()
	st, err := ReadJournal(p, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if !st.TruncatedTail || st.Items[0].State != model.StateUnknown {
		t.Errorf("replay: truncated=%v state=%v, want true unknown", st.TruncatedTail, st.Items[0].State)
	}
	// Reopening cuts the partial line, so appended records stay readable.
	j2, err := OpenJournal(p, "s1")
	if err != nil {
		t.Fatal(err)
	}
	j2.Append(&model.JournalResume{Indexes: []int{}})
	j2.Append(&model.JournalEnd{})
	j2.Close()
	st, err = ReadJournal(p, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if st.TruncatedTail || st.Damaged != 0 || !st.Ended || st.Runs != 2 {
		t.Errorf("after reopen: truncated=%v damaged=%d ended=%v runs=%d", st.TruncatedTail, st.Damaged, st.Ended, st.Runs)
	}
}

func TestListJournalsNewestFirst(t *testing.T) {
	p := PathsIn(t.TempDir(), t.TempDir())
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i, id := range []string{"b", "a", "c"} {
		j, err := CreateJournal(p, id)
		if err != nil {
			t.Fatal(err)
		}
		j.Append(journalPlan(id, t0.Add(time.Duration(i)*time.Hour)))
		j.Close()
	}
	os.WriteFile(filepath.Join(p.SendsDir(), "junk.jsonl"), []byte("nope\n"), 0o600)
	list, err := ListJournals(p)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, l := range list {
		ids = append(ids, l.ID)
		if l.ID == "junk" && l.Err == nil {
			t.Error("junk journal read without error")
		}
	}
	if got := ids; len(got) != 4 || got[0] != "c" || got[1] != "a" || got[2] != "b" {
		t.Errorf("order = %v, want c a b then junk", got)
	}
}

func TestJournalPathRefusesOddIDs(t *testing.T) {
	p := PathsIn("/c", "/s")
	for _, id := range []string{"", "../x", ".hidden", "a/b", "a b", "x\x1b[31m"} {
		if _, err := p.JournalPath(id); err == nil {
			t.Errorf("JournalPath(%q) accepted", id)
		}
	}
	if _, err := ReadJournal(p, "nosuch"); !errors.Is(err, ErrNoSuchSend) {
		t.Errorf("ReadJournal(missing) = %v, want ErrNoSuchSend", err)
	}
}
