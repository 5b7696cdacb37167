package cli

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
)

// schedulerWorld is a CLI world on a ledger at loc with two one-pair sends
// scheduled for +at: their ids.
func schedulerWorld(t *testing.T, loc, window, at string) (*cliWorld, []string) {
	t.Helper()
	w := newCLIWorld(t)
	w.clock = newFakeClock()
	l, err := ledger.Create(context.Background(), loc)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	w.env["SMSDESK_LEDGER"] = loc
	settings := [][2]string{{"senders", sandbox.DefaultSender}, {"sender", sandbox.DefaultSender}}
	if window != "" {
		settings = append(settings, [2]string{"repeat_window", window})
	}
	for _, set := range settings {
		if _, errOut, code := w.run("", "config", "set", set[0], set[1]); code != 0 {
			t.Fatal(errOut)
		}
	}
	var ids []string
	for i, to := range []string{"09120000001", "09120000002"} {
		file := filepath.Join(w.dir, fmt.Sprintf("pairs%d.csv", i))
		writeFile(t, file, "mobile,message\n"+to+",hi\n")
		out, errOut, code := w.run("", "send-pair", "--file", file, "--at", at, "--yes", "--json", "--jq", ".id")
		if code != 0 {
			t.Fatalf("scheduling: exit %d\n%s", code, errOut)
		}
		ids = append(ids, strings.TrimSpace(out))
	}
	return w, ids
}

// TestSchedulerRefusesADamagedDueSend: of two sends due, one's plan record
// does not parse. The ledger is damaged, so scheduler --once -q starts
// neither (issue 36: a damaged ledger refuses every send), exits 2
// (error.code ledger) naming the send, the damage and the way to restore,
// and nothing reaches the service. With the repeat guard off, the other
// send went and the damaged one was "tried again at the next look" (exit
// 1); with it on, the guard's read found it, exit 1 with a hint to wait
// for the ledger to take writes again.
func TestSchedulerRefusesADamagedDueSend(t *testing.T) {
	for _, b := range ledgertest.Backends() {
		for _, tc := range []struct{ name, window, at string }{
			{"repeat guard off", "off", "+1m"},
			{"repeat guard on", "", "+1m"},
		} {
			t.Run(b.Name+"/"+tc.name, func(t *testing.T) {
				loc := b.Location(t)
				w, ids := schedulerWorld(t, loc, tc.window, tc.at)
				ledgertest.DamageRecord(t, loc, ids[1], 1, `{"type":"plan","id":`)
				w.clock.Advance(61 * time.Second)
				_, errOut, code := w.run("", "-q", "scheduler", "--once")
				if code != ExitUsage || !strings.Contains(errOut, "send "+ids[1]) || !strings.Contains(errOut, "is damaged") ||
					!strings.Contains(errOut, "nothing was sent") || !strings.Contains(errOut, "backup") {
					t.Errorf("scheduler --once: exit %d, want %d naming send %s and the damage:\n%s", code, ExitUsage, ids[1], errOut)
				}
				if n := w.srv.RequestsTo("POST", "/sms/send-pair"); n != 0 || len(w.srv.Sent()) != 0 {
					t.Errorf("%d send requests, %d messages went from a damaged ledger", n, len(w.srv.Sent()))
				}
				if out, _, _ := w.run("", "history", "--json", "--jq", `[.[] | select(.id == "`+ids[0]+`")][0].status`); strings.TrimSpace(out) != "scheduled" {
					t.Errorf("the undamaged send is %s, want still scheduled (its claim let go)", out)
				}
			})
		}
	}
}

// TestSchedulerRefusesALedgerWithAPageOverwritten: a page of the SQLite
// ledger that starting a send never reads (the audit trail's, an index's)
// is overwritten. The runner's check before its claim finds it: the due
// send is refused with the damaged message (exit 2) and nothing reaches
// the service. Without the check the send went (audit) and only ledger
// status noticed.
func TestSchedulerRefusesALedgerWithAPageOverwritten(t *testing.T) {
	for _, name := range []string{"audit", "sends_due", "send_records"} {
		t.Run(name, func(t *testing.T) {
			loc := ledgertest.SQLite(t)
			w, _ := schedulerWorld(t, loc, "", "+1m")
			if _, errOut, code := w.run("", "optout", "add", "09120000009"); code != 0 { // an audit record
				t.Fatal(errOut)
			}
			overwriteRootPage(t, loc, name)
			before := w.srv.Requests()
			w.clock.Advance(61 * time.Second)
			_, errOut, code := w.run("", "-q", "scheduler", "--once")
			if code != ExitUsage || !strings.Contains(errOut, "the ledger "+loc+" is damaged") || !strings.Contains(errOut, "nothing was sent") {
				t.Errorf("scheduler --once: exit %d, want %d with the damaged message:\n%s", code, ExitUsage, errOut)
			}
			if n := w.srv.Requests() - before; n != 0 || len(w.srv.Sent()) != 0 {
				t.Errorf("%d requests, %d messages went from a damaged ledger", n, len(w.srv.Sent()))
			}
		})
	}
}

// overwriteRootPage overwrites the root page of the table or index name
// (sqlite_master's rootpage) in the ledger file at path, its WAL first
// checkpointed into the file: a bad disk where no send reads.
func overwriteRootPage(t *testing.T, path, name string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	var root, size int64
	if err := db.QueryRow("SELECT rootpage FROM sqlite_master WHERE name = ?", name).Scan(&root); err != nil {
		t.Fatalf("%s's root page: %v", name, err)
	}
	if err := db.QueryRow("PRAGMA page_size").Scan(&size); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	junk := []byte(strings.Repeat("\xffjunk\x00", int(size)/6))
	if _, err := f.WriteAt(junk, (root-1)*size); err != nil {
		t.Fatal(err)
	}
}
