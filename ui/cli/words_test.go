package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// TestSendJSONTotals: send-pair --json fills totals (parts, cost) for a
// real send as for a dry run; a real send's were null.
func TestSendJSONTotals(t *testing.T) {
	w := newCLIWorld(t)
	for _, set := range [][]string{{"senders", sandbox.DefaultSender}, {"sender", sandbox.DefaultSender}, {"price_gsm7", "100"}, {"price_ucs2", "150"}} {
		if _, errOut, code := w.run("", "config", "set", set[0], set[1]); code != 0 {
			t.Fatal(errOut)
		}
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"dry run", []string{"--dry-run"}},
		{"send", []string{"--yes"}},
	} {
		args := append([]string{"send-pair", "--to", "09121234567", "--message", "hello", "--to", "09351234567", "--message", "سلام", "--json"}, tc.args...)
		out, errOut, code := w.run("", args...)
		var rep struct {
			Totals *struct {
				Recipients int    `json:"recipients"`
				Parts      int    `json:"parts"`
				CostRial   *int64 `json:"cost_rial"`
			} `json:"totals"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 {
			t.Fatalf("%s: exit %d %v\n%s\n%s", tc.name, code, err, out, errOut)
		}
		if rep.Totals == nil || rep.Totals.Recipients != 2 || rep.Totals.Parts != 2 || rep.Totals.CostRial == nil || *rep.Totals.CostRial != 250 {
			t.Errorf("%s: totals %+v\n%s", tc.name, rep.Totals, out)
		}
	}
}

// TestHistoryShapes: the history table has OPTED OUT; --csv has BY and a
// status with no countdown (a file keeps none: "scheduled", not "scheduled
// · in 2h"), started_at its own column; a scheduled send that has started
// is listed at its planned time with when it started, and --json has
// started_at.
func TestHistoryShapes(t *testing.T) {
	w := newCLIWorld(t)
	w.clock = newFakeClock() // 2026-03-20 12:00 UTC, 15:30 in Tehran
	for _, set := range []string{"senders", "sender"} {
		if _, errOut, code := w.run("", "config", "set", set, sandbox.DefaultSender); code != 0 {
			t.Fatal(errOut)
		}
	}
	if _, errOut, code := w.run("", "optout", "add", "09351234567"); code != 0 {
		t.Fatal(errOut)
	}
	if _, errOut, code := w.run("", "send-pair", "--to", "09121234567", "--message", "a", "--to", "09351234567", "--message", "b", "--yes"); code != 0 {
		t.Fatalf("send: exit %d\n%s", code, errOut)
	}
	if _, errOut, code := w.run("", "send-pair", "--to", "09121234567", "--message", "later", "--at", "18:00", "--yes"); code != 0 {
		t.Fatalf("schedule: exit %d\n%s", code, errOut)
	}
	out, _, _ := w.run("", "history")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasSuffix(lines[1], "\t2\t1\t0\t0\t0\t0\t1\tcomplete") {
		t.Errorf("history: the sent one with 1 opted out:\n%s", out)
	}
	w.screen = 200
	if out, _, _ := w.run("", "history"); !strings.Contains(strings.Split(out, "\n")[0], "NOT SENT  OPTED OUT  STATUS") {
		t.Errorf("history on a terminal:\n%s", out)
	}
	w.screen = 0
	out, _, _ = w.run("", "history", "--csv")
	if !strings.HasPrefix(out, "id,time,profile,sender,total,accepted,rejected,failed,unknown,not_sent,opted_out,status,by,started_at,delivery\n") ||
		!strings.Contains(out, ",2026-03-20 18:00:00 +0330,default,3000505,1,0,0,0,0,1,0,scheduled,,,\n") || strings.Contains(out, " in ") {
		t.Errorf("history --csv before the start:\n%s", out)
	}

	w.clock.Advance(3 * time.Hour) // 18:30 in Tehran: a runner starts it late
	if _, errOut, code := w.run("", "scheduler", "--once"); code != 0 {
		t.Fatalf("scheduler --once: exit %d\n%s", code, errOut)
	}
	out, _, _ = w.run("", "history")
	if !strings.Contains(out, "2026-03-20 18:00:00 +0330\tdefault") || !strings.Contains(out, "complete · started 18:30\t- via cron") {
		t.Errorf("history after the start:\n%s", out)
	}
	out, _, _ = w.run("", "history", "--csv")
	if !strings.Contains(out, ",complete,via cron,2026-03-20 18:30:00 +0330,") {
		t.Errorf("history --csv after the start:\n%s", out)
	}
	out, _, _ = w.run("", "history", "--json", "--jq", `.[] | select(.started_by != null) | [.scheduled_for, .started_at] | join(" ")`)
	if strings.TrimSpace(out) != "2026-03-20T18:00:00+03:30 2026-03-20T18:30:00.3+03:30" { // RFC 3339 as time is
		t.Errorf("history --json: scheduled_for, started_at = %q", out)
	}
}

// TestOptOutImportWords: optout import of an empty file, a missing one or a
// directory speaks of opt-outs (it said "has no contacts (expected rows of
// mobile[,name])" and "contacts file"); contacts import keeps its words.
func TestOptOutImportWords(t *testing.T) {
	w := newCLIWorld(t)
	empty, dir, missing := filepath.Join(w.dir, "empty.csv"), w.dir, filepath.Join(w.dir, "none.csv")
	writeFile(t, empty, "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"optout", "import", empty}, empty + " has no numbers to put on the opt-out list"},
		{[]string{"optout", "import", "-"}, "stdin has no numbers to put on the opt-out list"},
		{[]string{"optout", "import", missing}, "opt-out file " + missing + ": no such file"},
		{[]string{"optout", "import", dir}, "opt-out file " + dir + " is a directory"},
		{[]string{"contacts", "import", "1", empty}, empty + " has no contacts (expected rows of mobile[,name])"},
	} {
		_, errOut, code := w.run("", tc.args...)
		if code != ExitUsage || !strings.Contains(errOut, tc.want) || tc.args[0] == "optout" && strings.Contains(errOut, "contact") {
			t.Errorf("%v: exit %d\n%s", tc.args, code, errOut)
		}
	}
}
