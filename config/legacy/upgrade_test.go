package legacy_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
	"github.com/smsdesk/smsdesk/config/legacy"
	"github.com/smsdesk/smsdesk/config/legacy/legacytest"
	"github.com/smsdesk/smsdesk/model"
)

// ledgerIn is where a test's ledger goes on backend: the state directory's
// smsdesk.db for SQLite (where config keeps it), a new database for
// PostgreSQL (skipped, saying why, without SMSDESK_TEST_POSTGRES).
func ledgerIn(t *testing.T, b ledgertest.Backend, stateDir string) string {
	t.Helper()
	if b.Name == "sqlite" {
		return filepath.Join(stateDir, ledger.FileName)
	}
	return b.Location(t)
}

func openLedger(t *testing.T, location string) *ledger.Ledger {
	t.Helper()
	l, err := ledger.Open(context.Background(), location)
	if err != nil {
		t.Fatalf("opening the ledger: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// The upgrade test (issue 36): a state directory written by the version
// before the ledger (the checked-in fixture, made by main's binary at
// 6faebd1) is imported whole, read back as the file store read it, and its
// files moved aside; on both backends.
func TestUpgrade(t *testing.T) {
	for _, b := range ledgertest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			dir := legacytest.Fixture(t)
			location := ledgerIn(t, b, dir)
			snap, err := legacy.Read(dir) // what the file store held, to compare with
			if err != nil {
				t.Fatal(err)
			}
			rep, err := legacy.Upgrade(ctx, dir, location)
			if err != nil {
				t.Fatalf("Upgrade: %v", err)
			}
			want := legacy.Report{Sends: 5, Records: 23, OptOuts: 3, OptOutsRead: 4, OnceIDs: 2, Audit: 9, Created: true,
				MovedTo: filepath.Join(dir, "before-ledger")}
			if rep.Sends != want.Sends || rep.Records != want.Records || rep.OptOuts != want.OptOuts || rep.OptOutsRead != want.OptOutsRead ||
				rep.OnceIDs != want.OnceIDs || rep.Audit != want.Audit || rep.Created != want.Created || rep.MovedTo != want.MovedTo || rep.Finished {
				t.Errorf("report %+v, want %+v", rep, want)
			}
			say := rep.String()
			for _, w := range []string{"smsdesk moved its memory into the ledger", "5 sends, 3 opt-outs, 2 once-only ids, 9 audit records",
				"the old files are in " + filepath.Join(dir, "before-ledger"), "merged: 1 opt-out found on more than one account's list, each kept once (the earliest)"} {
				if !strings.Contains(say, w) {
					t.Errorf("the report says %q, not %q", say, w)
				}
			}
			l := openLedger(t, location)
			if rep.LedgerID != l.ID() {
				t.Errorf("report's ledger id %q, the ledger's %q", rep.LedgerID, l.ID())
			}
			checkSends(t, l, snap)
			checkOptOutsAndOnce(t, l)
			checkAudit(t, l, snap)
			checkMovedAside(t, dir, snap)
			if b.Name == "sqlite" {
				checkMode(t, location, 0o600)
			}
			// Once is all: the next start finds nothing to import.
			if rep, err := legacy.Upgrade(ctx, dir, location); rep != nil || err != nil {
				t.Errorf("a second Upgrade: %+v, %v", rep, err)
			}
		})
	}
}

// checkSends: every send keeps its id, and the ledger reads it as its
// journal read; history's summary and the repeat guard see them.
func checkSends(t *testing.T, l *ledger.Ledger, snap *legacy.Snapshot) {
	t.Helper()
	ctx := context.Background()
	states := map[string]ledger.State{
		sendComplete: ledger.StateEnded, sendUnknown: ledger.StateEnded, sendOnce: ledger.StateEnded,
		sendScheduled: ledger.StateWaiting, sendCancelled: ledger.StateCancelled,
	}
	list, err := l.ListSends(ctx, ledger.SendQuery{})
	if err != nil || len(list) != len(states) {
		t.Fatalf("ListSends: %d sends, %v", len(list), err)
	}
	for _, s := range list {
		if states[s.ID] != s.State || s.Leased {
			t.Errorf("send %s: %s (leased %v), want %s", s.ID, s.State, s.Leased, states[s.ID])
		}
	}
	for _, s := range snap.Sends {
		st, err := l.ReadSend(ctx, s.ID)
		if err != nil {
			t.Fatalf("ReadSend %s: %v", s.ID, err)
		}
		if countStates(st) == nil || !mapsEqual(countStates(st), countStates(s.State)) || st.Ended != s.State.Ended || st.Waiting() != s.State.Waiting() {
			t.Errorf("send %s reads %v, its journal %v", s.ID, countStates(st), countStates(s.State))
		}
	}
	due, err := l.Due(ctx, time.Date(2026, 12, 20, 10, 0, 0, 0, time.FixedZone("IRST", 12600)), 10)
	if err != nil || len(due) != 1 || due[0].ID != sendScheduled {
		t.Errorf("due at the scheduled send's time: %+v, %v", due, err)
	}
	scope := ledger.RepeatScope{Account: "e58cc07961ac44b88b4df371", Profile: "main", Host: "127.0.0.1:27080"}
	pairs, err := l.RecentPairs(ctx, scope, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, p := range pairs {
		ids = append(ids, p.SendID)
		if p.SendID == sendComplete && len(p.Keys) != 2 {
			t.Errorf("the complete send's pairs: %d, want its 2 accepted", len(p.Keys))
		}
	}
	slices.Sort(ids)
	if want := []string{sendComplete, sendScheduled, sendOnce}; !slices.Equal(ids, want) {
		t.Errorf("the repeat guard sees sends %v, want %v", ids, want)
	}
}

func checkOptOutsAndOnce(t *testing.T, l *ledger.Ledger) {
	t.Helper()
	ctx := context.Background()
	got, err := l.LookupOptOuts(ctx, []string{"09121110001", "09121110002", "09121110003", "09121110004"})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(got, func(a, b model.OptOut) int { return strings.Compare(a.Mobile, b.Mobile) })
	if len(got) != 3 || got[0].Note != "asked by phone" || got[1].Sender != "3000505" || got[2].Mobile != "09121110003" ||
		got[0].Added.Format(time.RFC3339Nano) != "2026-11-27T00:01:10.431072934Z" {
		t.Errorf("opt-outs %+v", got)
	}
	for id, send := range map[string]string{"fixture-reminders-1220": sendScheduled, "fixture-invoice-7": sendOnce} {
		o, ok, err := l.FindOnce(ctx, id)
		if err != nil || !ok || o.SendID != send || o.Count == 0 || o.Profile != "main" {
			t.Errorf("once-only id %s: %+v, %v, %v", id, o, ok, err)
		}
	}
	if _, ok, err := l.FindOnce(ctx, "fixture-sale"); ok || err != nil {
		t.Errorf("the freed once-only id is used: %v, %v", ok, err)
	}
}

func checkAudit(t *testing.T, l *ledger.Ledger, snap *legacy.Snapshot) {
	t.Helper()
	got, err := l.ListAudit(context.Background(), 0, 0)
	if err != nil || len(got) != len(snap.Audit)+1 {
		t.Fatalf("ListAudit: %d records, %v", len(got), err)
	}
	// The upgrade's own record comes last: what came from where, and where
	// the old files went.
	last := got[len(got)-1]
	var r legacy.AuditRecord
	if err := json.Unmarshal(last.Body, &r); err != nil || r.Action != "upgrade_to_ledger" || last.Action != r.Action ||
		!strings.Contains(r.Note, "the old files are in "+filepath.Join(snap.Dir, "before-ledger")) || r.Counts["sends"] != 5 || r.Counts["optouts"] != 3 {
		t.Errorf("the upgrade's audit record: %s, %v", last.Body, err)
	}
	for i, e := range got[:len(snap.Audit)] {
		r := snap.Audit[i]
		if e.Action != r.Action || !e.Time.Equal(r.Time) || string(e.Body) != string(r.Raw) {
			t.Errorf("audit %d: %s %s %s, want %s %s %s", i, e.Time, e.Action, e.Body, r.Time, r.Action, r.Raw)
		}
	}
}

// checkMovedAside: every file the file store kept is in before-ledger/ as
// it was (its content and mode), the groups stay, and where sends/ and
// accounts/ were a file says where they went.
func checkMovedAside(t *testing.T, dir string, snap *legacy.Snapshot) {
	t.Helper()
	fixture := legacytest.Fixture(t)
	for _, rel := range snap.Files {
		moved := filepath.Join(dir, "before-ledger", rel)
		if digest(t, moved) != digest(t, filepath.Join(fixture, rel)) {
			t.Errorf("%s moved aside is not as it was", rel)
		}
		checkMode(t, moved, 0o600)
		checkMode(t, filepath.Dir(moved), 0o700|fs.ModeDir)
		if name := filepath.Base(rel); name == "optouts.json" || name == "once.json" {
			continue // replaced by a note (below)
		}
		if _, err := os.Lstat(filepath.Join(dir, rel)); err == nil {
			t.Errorf("%s is still in the state directory", rel)
		}
	}
	checkMode(t, filepath.Join(dir, "before-ledger"), 0o700|fs.ModeDir)
	if _, err := os.Stat(filepath.Join(dir, "groups", "main.json")); err != nil {
		t.Errorf("the known groups went: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "sends"))
	if err != nil || !strings.Contains(string(b), "smsdesk keeps its memory in the ledger now") || !strings.Contains(string(b), filepath.Join(dir, "before-ledger", "sends")) {
		t.Errorf("sends: %q, %v", b, err)
	}
	checkMode(t, filepath.Join(dir, "sends"), 0o600)
	// What the file store did with its files fails now: an older smsdesk
	// never reads an empty opt-out list or once-only ids (it reads a
	// version it refuses), nor starts a journal.
	for _, list := range []string{mainOptOuts, flakyOptOuts, mainOnce} {
		path := filepath.Join(dir, filepath.FromSlash(list))
		b, err := os.ReadFile(path)
		var f struct {
			Version int             `json:"version"`
			List    json.RawMessage `json:"optouts"`
		}
		if err != nil || json.Unmarshal(b, &f) != nil || f.Version == 1 || !strings.Contains(string(b), filepath.Join(dir, "before-ledger", filepath.FromSlash(list))) {
			t.Errorf("%s, as an older smsdesk would read it: %q, %v", list, b, err)
		}
		checkMode(t, path, 0o600)
	}
	if err := os.MkdirAll(filepath.Join(dir, "sends"), 0o700); err == nil {
		t.Error("an older smsdesk could make its send history again")
	}
	if s, err := legacy.Read(dir); err != nil || !s.Empty() {
		t.Errorf("after the upgrade Read finds %+v, %v", s, err)
	}
}

func digest(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func checkMode(t *testing.T, path string, want fs.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode() & (fs.ModePerm | fs.ModeDir); got != want {
		t.Errorf("%s: mode %v, want %v", path, got, want)
	}
}

// tree is every file under dir with its content's digest and mode.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "before-ledger.lock" { // the upgrade's, empty, left as the file store's were
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		out[strings.TrimPrefix(path, dir)] = fi.Mode().String() + " " + digest(t, path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// An import that fails leaves the files as they were and no ledger behind,
// and says why; the next start tries again (and succeeds once it is fixed).
func TestUpgradeFails(t *testing.T) {
	longID := strings.Repeat("a", 201) // a name the file store took and the ledger refuses
	tests := []struct {
		name    string
		damage  func(t *testing.T, dir string)
		fix     func(t *testing.T, dir string)
		problem string
	}{
		{"a damaged journal line",
			func(t *testing.T, dir string) {
				path := filepath.Join(dir, "sends", sendUnknown+".jsonl")
				b, _ := os.ReadFile(path)
				os.WriteFile(path, []byte(strings.Replace(string(b), `{"type":"intent"`, `{"type":"intent",,`, 1)), 0o600)
			},
			func(t *testing.T, dir string) {
				os.WriteFile(filepath.Join(dir, "sends", sendUnknown+".jsonl"), []byte(readFixtureFile(t, journal(sendUnknown))), 0o600)
			},
			"line 2: not a journal record"},
		{"a send the ledger refuses, after others went in",
			func(t *testing.T, dir string) {
				b := strings.ReplaceAll(readFixtureFile(t, journal(sendCancelled)), sendCancelled, longID)
				writeFile(t, filepath.Join(dir, "sends", longID+".jsonl"), b)
			},
			func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "sends", longID+".jsonl")) },
			"use the id `smsdesk history` shows"},
		{"an opt-out list that is null",
			func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, filepath.FromSlash(flakyOptOuts)), `{"version":1,"optouts":null}`)
			},
			func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, filepath.FromSlash(flakyOptOuts)), readFixtureFile(t, flakyOptOuts))
			},
			"it would send to everyone on it"},
	}
	for _, b := range ledgertest.Backends() {
		for _, tt := range tests {
			t.Run(b.Name+"/"+tt.name, func(t *testing.T) {
				ctx := context.Background()
				dir := legacytest.Fixture(t)
				location := ledgerIn(t, b, dir)
				tt.damage(t, dir)
				before := tree(t, dir)
				rep, err := legacy.Upgrade(ctx, dir, location)
				var ue *legacy.UpgradeError
				if rep != nil || !errors.As(err, &ue) || ue.Imported {
					t.Fatalf("Upgrade = %+v, %v; want an *UpgradeError, nothing imported", rep, err)
				}
				for _, w := range []string{tt.problem, "the files are as they were and nothing was sent"} {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not say %q", err, w)
					}
				}
				if after := tree(t, dir); !maps.Equal(before, after) {
					t.Errorf("the state directory changed:\nbefore %v\nafter  %v", before, after)
				}
				if _, err := ledger.Open(ctx, location); !errors.Is(err, ledger.ErrMissing) {
					t.Errorf("a ledger was left behind: Open = %v", err)
				}
				tt.fix(t, dir)
				if rep, err := legacy.Upgrade(ctx, dir, location); err != nil || rep.Sends != 5 || !rep.Created {
					t.Errorf("once fixed: %+v, %v", rep, err)
				}
			})
		}
	}
}

func readFixtureFile(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "state-before-ledger", filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
