package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

func ids(list []KnownGroup) string {
	var s []string
	for _, g := range list {
		s = append(s, fmt.Sprintf("%s:%s:%d", g.ID, g.Name, g.Contacts))
	}
	return strings.Join(s, ",")
}

func TestTrackGroupUpsertKeepsOrder(t *testing.T) {
	p := testPaths(t)
	steps := []struct {
		do   func() error
		want string
	}{
		{func() error { return TrackGroup(p, "work", model.Group{ID: "12", Name: "staff"}) }, "12:staff:-1"},
		{func() error { return TrackGroup(p, "work", model.Group{ID: "7", Name: "vip"}) }, "12:staff:-1,7:vip:-1"},
		{func() error { return TrackGroup(p, "work", model.Group{ID: "12"}) }, "12:staff:-1,7:vip:-1"},
		{func() error { return TrackGroup(p, "work", model.Group{ID: "12", Name: "team"}) }, "12:team:-1,7:vip:-1"},
		{func() error { _, err := SetGroupContacts(p, "work", "7", 40); return err }, "12:team:-1,7:vip:40"},
		{func() error { _, err := SetGroupContacts(p, "work", "7", 0); return err }, "12:team:-1,7:vip:0"},
		{func() error { return TrackGroup(p, "work", model.Group{ID: "abc-9", Name: "str id"}) }, "12:team:-1,7:vip:0,abc-9:str id:-1"},
		{func() error { _, err := UntrackGroup(p, "work", "7"); return err }, "12:team:-1,abc-9:str id:-1"},
	}
	for i, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		list, err := LoadGroups(p, "work")
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if got := ids(list); got != s.want {
			t.Fatalf("step %d: got %s, want %s", i, got, s.want)
		}
	}
	list, _ := LoadGroups(p, "work")
	if list[0].AddedAt.IsZero() || time.Since(list[0].AddedAt) > time.Minute {
		t.Errorf("AddedAt %v", list[0].AddedAt)
	}
	if found, err := UntrackGroup(p, "work", "999"); found || err != nil {
		t.Errorf("untrack unknown: %v %v", found, err)
	}
	if found, err := SetGroupContacts(p, "work", "999", 3); found || err != nil {
		t.Errorf("contacts of unknown: %v %v", found, err)
	}
	if err := TrackGroup(p, "work", model.Group{Name: "no id"}); err == nil {
		t.Error("a group without id was tracked")
	}
	path, _ := p.GroupsFile("work")
	assertMode(t, path, 0o600)
	assertMode(t, p.GroupsDir(), 0o700|os.ModeDir)
	assertNoTemps(t, p.GroupsDir())
}

func TestGroupsMissingFileIsEmpty(t *testing.T) {
	list, err := LoadGroups(testPaths(t), "default")
	if err != nil || len(list) != 0 {
		t.Fatalf("got %v %v", list, err)
	}
}

func TestGroupsCorruptFileCostsOnlyItsProfile(t *testing.T) {
	bodies := []struct {
		name, body string
		line       int
	}{
		{"half written", "{\"version\":1,\"groups\":[{\"id\":1,\"name\":\"a\"},\n{\"id\":2,\"na", 2},
		{"empty", "", 0},
		{"wrong type", "{\"version\":1,\n\"groups\":{\"id\":1}}", 2},
		{"newer version", `{"version":9,"groups":[]}`, 0},
		{"missing id", `{"version":1,"groups":[{"name":"x"}]}`, 0},
	}
	for _, tt := range bodies {
		t.Run(tt.name, func(t *testing.T) {
			p := testPaths(t)
			if err := TrackGroup(p, "good", model.Group{ID: "5", Name: "kept"}); err != nil {
				t.Fatal(err)
			}
			bad, _ := p.GroupsFile("bad")
			if err := WriteFileAtomic(bad, []byte(tt.body), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := LoadGroups(p, "bad")
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("want *FileError, got %v", err)
			}
			msg := err.Error()
			for _, want := range []string{bad, "move it aside", "smsdesk groups track ID"} {
				if !strings.Contains(msg, want) {
					t.Errorf("message lacks %q: %s", want, msg)
				}
			}
			if tt.line > 0 && fe.Line != tt.line {
				t.Errorf("line %d, want %d", fe.Line, tt.line)
			}
			// Writes refuse to overwrite the corrupt file: nothing is lost.
			if err := TrackGroup(p, "bad", model.Group{ID: "9"}); !errors.Is(err, ErrCorruptFile) {
				t.Errorf("track on a corrupt file: %v", err)
			}
			if got, _ := os.ReadFile(bad); string(got) != tt.body {
				t.Errorf("corrupt file was rewritten: %q", got)
			}
			// The other profile is untouched and still writable.
			if err := TrackGroup(p, "good", model.Group{ID: "6", Name: "new"}); err != nil {
				t.Fatal(err)
			}
			list, err := LoadGroups(p, "good")
			if err != nil || ids(list) != "5:kept:-1,6:new:-1" {
				t.Fatalf("other profile: %s %v", ids(list), err)
			}
		})
	}
}

func TestGroupsRejectUnsafeProfileNames(t *testing.T) {
	p := testPaths(t)
	for _, name := range []string{"", "..", "../x", "a/b", `a\b`, ".hidden", "a b"} {
		if _, err := LoadGroups(p, name); err == nil {
			t.Errorf("LoadGroups(%q) accepted", name)
		}
		if err := TrackGroup(p, name, model.Group{ID: "1"}); err == nil {
			t.Errorf("TrackGroup(%q) accepted", name)
		}
	}
	if _, err := os.Stat(p.StateDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("state dir written for rejected names: %v", err)
	}
}

// Concurrent writers (goroutines here, processes in real use) serialise on the
// lock file, so no tracked group is lost to a last-writer-wins race.
func TestTrackGroupConcurrentWritersLoseNothing(t *testing.T) {
	p := testPaths(t)
	const n = 16
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- TrackGroup(p, "work", model.Group{ID: model.ID(fmt.Sprint(i)), Name: "g"})
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	list, err := LoadGroups(p, "work")
	if err != nil || len(list) != n {
		t.Fatalf("got %d groups (%v), want %d", len(list), err, n)
	}
	if fi, err := os.Stat(filepath.Join(p.GroupsDir(), "work.json.lock")); err != nil || fi.Mode().Perm() != 0o600 || fi.Size() != 0 {
		t.Errorf("the lock file: %v (%v)", fi, err)
	}
}

// TestLockIsTheKernels: a state file's lock is the kernel's, held by an
// open file, not by the lock file's existence: a lock file left by a
// process that died is no lock (the next update goes at once), and a lock
// held however long is never taken for stale (the O_EXCL lock files broke
// one older than 30 s, so a process stopped mid-update lost its update).
func TestLockIsTheKernels(t *testing.T) {
	p := testPaths(t)
	path, _ := p.GroupsFile("work")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	lock := path + ".lock"
	old := time.Now().Add(-time.Hour)
	if err := os.WriteFile(lock, []byte("99999\n"), 0o600); err != nil { // a dead process's
		t.Fatal(err)
	}
	if err := os.Chtimes(lock, old, old); err != nil {
		t.Fatal(err)
	}
	unlock, ok, err := tryLock(lock)
	if err != nil || !ok {
		t.Fatalf("a lock file nobody holds: ok %v, %v", ok, err)
	}
	if err := os.Chtimes(lock, old, old); err != nil { // held for an hour
		t.Fatal(err)
	}
	if _, ok, err := tryLock(lock); ok || err != nil {
		t.Fatalf("a held lock was taken again: ok %v, %v", ok, err)
	}
	unlock()
	if err := TrackGroup(p, "work", model.Group{ID: "1"}); err != nil {
		t.Fatalf("after the release: %v", err)
	}
}

func TestGroupsCrashLeavesOldFile(t *testing.T) {
	p := testPaths(t)
	if err := TrackGroup(p, "work", model.Group{ID: "1", Name: "one"}); err != nil {
		t.Fatal(err)
	}
	path, _ := p.GroupsFile("work")
	w := atomicWriter{beforeRename: func(string) error { return errCrash }}
	if err := w.write(path, []byte(`{"version":1,"gro`), 0o600); !errors.Is(err, errCrash) {
		t.Fatal(err)
	}
	list, err := LoadGroups(p, "work")
	if err != nil || ids(list) != "1:one:-1" {
		t.Fatalf("after crash: %s %v", ids(list), err)
	}
	if err := TrackGroup(p, "work", model.Group{ID: "2", Name: "two"}); err != nil {
		t.Fatal(err)
	}
	if list, _ := LoadGroups(p, "work"); ids(list) != "1:one:-1,2:two:-1" {
		t.Fatalf("after recovery: %s", ids(list))
	}
}

// TestServiceNameOfAGroup: a group created here keeps the service's name
// beside the one shown; a track with another name changes only the one
// shown, and LocalName says so.
func TestServiceNameOfAGroup(t *testing.T) {
	p := testPaths(t)
	if err := RememberCreatedGroup(p, "work", model.Group{ID: "12", Name: "Support desk"}); err != nil {
		t.Fatal(err)
	}
	if err := TrackGroup(p, "work", model.Group{ID: "7", Name: "vip"}); err != nil {
		t.Fatal(err)
	}
	list, _ := LoadGroups(p, "work")
	if list[0].ServiceName != "Support desk" || list[0].LocalName() || list[1].ServiceName != "" || !list[1].LocalName() {
		t.Fatalf("after create and track: %+v", list)
	}
	if err := TrackGroup(p, "work", model.Group{ID: "12", Name: "Support"}); err != nil {
		t.Fatal(err)
	}
	list, _ = LoadGroups(p, "work")
	if g := list[0]; g.Name != "Support" || g.ServiceName != "Support desk" || !g.LocalName() {
		t.Fatalf("after track --name: %+v", g)
	}
}
