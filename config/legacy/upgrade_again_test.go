package legacy_test

// Upgrades that meet another process: one that died mid-way, a ledger in
// use, two at once.

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
	"github.com/smsdesk/smsdesk/config/legacy"
	"github.com/smsdesk/smsdesk/config/legacy/legacytest"
)

// A process that died after the import committed and before the files
// moved left the files and the ledger both: the next start finds its mark,
// imports nothing twice and moves the files.
func TestUpgradeFinishesAnImportMade(t *testing.T) {
	for _, b := range ledgertest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			first := legacytest.Fixture(t)
			location := ledgerIn(t, b, first)
			if _, err := legacy.Upgrade(ctx, first, location); err != nil {
				t.Fatal(err)
			}
			dir := legacytest.Fixture(t) // the same files, still in place
			rep, err := legacy.Upgrade(ctx, dir, location)
			if err != nil {
				t.Fatalf("Upgrade: %v", err)
			}
			if !rep.Finished || rep.Created || rep.Sends != 5 || rep.OptOuts != 3 || !strings.Contains(rep.String(), "an earlier run") {
				t.Errorf("report %+v", rep)
			}
			st, err := openLedger(t, location).Status(ctx)
			if err != nil || st.Sends != 5 || st.OptOuts != 3 || st.OnceIDs != 2 || st.Audit != 10 {
				t.Errorf("the ledger holds %+v, %v; want the fixture once", st, err)
			}
			if _, err := os.Stat(filepath.Join(dir, "before-ledger", "audit.jsonl")); err != nil {
				t.Errorf("the files were not moved: %v", err)
			}
		})
	}
}

// A state directory holding another host's or an older smsdesk's later
// files, upgraded into a ledger that holds sends already, adds its own and
// keeps what the ledger held.
func TestUpgradeIntoALedgerInUse(t *testing.T) {
	for _, b := range ledgertest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			first := legacytest.Fixture(t)
			location := ledgerIn(t, b, first)
			if _, err := legacy.Upgrade(ctx, first, location); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			later := strings.ReplaceAll(readFixtureFile(t, journal(sendOnce)), sendOnce, "20261128-090000-aaaaaa")
			writeFile(t, filepath.Join(dir, "sends", "20261128-090000-aaaaaa.jsonl"), later)
			writeFile(t, filepath.Join(dir, "accounts", "x", "optouts.json"),
				`{"version":1,"optouts":[{"mobile":"09121110001","note":"again","added":"2026-11-28T00:00:00Z"},{"mobile":"09121110099","added":"2026-11-28T00:00:00Z"}]}`)
			rep, err := legacy.Upgrade(ctx, dir, location)
			if err != nil {
				t.Fatalf("Upgrade: %v", err)
			}
			if rep.Created || rep.Sends != 1 || rep.OptOuts != 1 || rep.OptOutsKept != 1 || !strings.Contains(rep.String(), "already in the ledger, kept as it held them: 1 opt-out") {
				t.Errorf("report %+v: %s", rep, rep)
			}
			l := openLedger(t, location)
			if got, _ := l.LookupOptOuts(ctx, []string{"09121110001"}); len(got) != 1 || got[0].Note != "asked by phone" {
				t.Errorf("the ledger's entry was changed: %+v", got)
			}
			if n, err := l.CountSends(ctx, ledger.SendQuery{}); n != 6 || err != nil {
				t.Errorf("%d sends, %v", n, err)
			}
		})
	}
}

// Nothing to import is nothing done: no ledger is made.
func TestUpgradeNothingToDo(t *testing.T) {
	for _, files := range [][]string{nil, {"groups/main.json", "rate/x.json", "debug.log"}} {
		dir := t.TempDir()
		for _, f := range files {
			writeFile(t, filepath.Join(dir, f), "{}")
		}
		location := filepath.Join(dir, ledger.FileName)
		if rep, err := legacy.Upgrade(context.Background(), dir, location); rep != nil || err != nil {
			t.Errorf("Upgrade of %v = %+v, %v", files, rep, err)
		}
		if _, err := os.Stat(location); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("a ledger was made for %v: %v", files, err)
		}
	}
}

// A state directory given relative (SMSDESK_STATE_DIR=state) is reported
// by its whole path: the report is read from wherever smsdesk ran.
func TestUpgradeReportsTheWholePath(t *testing.T) {
	dir := legacytest.Fixture(t)
	t.Chdir(filepath.Dir(dir))
	rep, err := legacy.Upgrade(context.Background(), filepath.Base(dir), filepath.Join(filepath.Base(dir), ledger.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "before-ledger"); rep.MovedTo != want || !strings.Contains(rep.String(), "the old files are in "+want) {
		t.Errorf("MovedTo %q, want %q", rep.MovedTo, want)
	}
}

// Two smsdesk starting at once (a serve and a cron job) upgrade the
// directory once: one reports it, the other finds it done; neither fails.
func TestUpgradeTwoAtOnce(t *testing.T) {
	dir := legacytest.Fixture(t)
	location := filepath.Join(dir, ledger.FileName)
	type result struct {
		rep *legacy.Report
		err error
	}
	results := make(chan result, 2)
	for range 2 {
		go func() {
			rep, err := legacy.Upgrade(context.Background(), dir, location)
			results <- result{rep, err}
		}()
	}
	reports := 0
	for range 2 {
		r := <-results
		if r.err != nil {
			t.Errorf("Upgrade: %v", r.err)
		}
		if r.rep != nil {
			reports++
		}
	}
	if reports != 1 {
		t.Errorf("%d reports, want 1", reports)
	}
	if _, err := os.Stat(filepath.Join(dir, "before-ledger-2")); err == nil {
		t.Error("a second before-ledger")
	}
	if st, err := openLedger(t, location).Status(context.Background()); err != nil || st.Sends != 5 {
		t.Errorf("the ledger: %+v, %v", st, err)
	}
}
