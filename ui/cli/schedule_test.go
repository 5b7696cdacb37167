package cli

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// TestScheduleFromTheCLI: send-pair --at schedules (exit 0, the line the
// issue asks for, nothing sent); history lists it first with its time and a
// countdown, --status scheduled filters it; history cancel asks (default
// no), cancels, and is refused the second time and for a send that was
// never scheduled; a cancelled send is not resumed; scheduler --once at
// the time sends the other one, and history names the runner. Times that
// cannot be a send's are refused, exit 2.
func TestScheduleFromTheCLI(t *testing.T) {
	w := newCLIWorld(t)
	w.clock = newFakeClock() // 2026-03-20 12:00 UTC, 15:30 in Tehran
	for _, set := range []string{"senders", "sender"} {
		if _, errOut, code := w.run("", "config", "set", set, sandbox.DefaultSender); code != 0 {
			t.Fatal(errOut)
		}
	}
	out, errOut, code := w.run("", "send-pair", "--to", "09121234567", "--message", "see you at 6", "--at", "18:00", "--yes")
	if code != 0 || !strings.HasPrefix(out, "scheduled for 2026-03-20 18:00 Asia/Tehran (in 2h 30m) as send ") ||
		!strings.HasSuffix(out, "; it runs while smsdesk serve or smsdesk scheduler runs\n") {
		t.Fatalf("send-pair --at: exit %d\n%s\n%s", code, out, errOut)
	}
	cancelID := strings.Fields(strings.TrimPrefix(out, "scheduled for 2026-03-20 18:00 Asia/Tehran (in 2h 30m) as send "))[0]
	cancelID = strings.TrimSuffix(cancelID, ";")
	if n := len(w.srv.Sent()); n != 0 {
		t.Fatalf("scheduling sent %d", n)
	}

	out, _, code = w.run("", "send-pair", "--to", "09351234567", "--message", "tomorrow", "--at", "+20h", "--yes", "--json")
	var sc struct {
		ID, Time, Status string
		Counts           struct {
			NotSent int `json:"not_sent"`
		}
	}
	if err := json.Unmarshal([]byte(out), &sc); err != nil || code != 0 || sc.Status != "scheduled" || sc.Time != "2026-03-21T11:30:00+03:30" || sc.Counts.NotSent != 1 {
		t.Fatalf("--at --json: exit %d %v\n%s", code, err, out)
	}
	if _, errOut, code := w.run("", "send-pair", "--to", "09901234567", "--message", "now", "--yes"); code != 0 {
		t.Fatalf("a send now: exit %d\n%s", code, errOut)
	}
	out, _, _ = w.run("", "history")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], cancelID) || !strings.HasSuffix(lines[0], "scheduled · in 2h 30m") ||
		!strings.HasPrefix(lines[1], sc.ID) || !strings.HasSuffix(lines[1], "scheduled · in 20h") || !strings.HasSuffix(lines[2], "complete") {
		t.Fatalf("history: the scheduled first, soonest first:\n%s", out)
	}
	if out, _, _ := w.run("", "history", "--status", "scheduled", "--json", "--jq", ".[].id"); strings.Fields(out)[0] != cancelID || len(strings.Fields(out)) != 2 {
		t.Errorf("--status scheduled: %q", out)
	}

	if _, errOut, code := w.run("", "history", "cancel", cancelID); code != ExitUsage || !strings.Contains(errOut, "pass --yes") {
		t.Errorf("cancel without a terminal: exit %d\n%s", code, errOut)
	}
	w.tty = true
	if _, errOut, code := w.run("\n", "history", "cancel", cancelID); code != ExitUsage || !strings.Contains(errOut, "Cancel send "+cancelID+": 1 message from "+sandbox.DefaultSender+", scheduled for 2026-03-20 18:00 Asia/Tehran (in 2h 30m)? [y/N]") ||
		!strings.Contains(errOut, "not cancelled: the answer was no") {
		t.Errorf("cancel, enter: exit %d\n%s", code, errOut)
	}
	if out, errOut, code := w.run("y\n", "history", "cancel", cancelID); code != 0 || out != "Cancelled send "+cancelID+": nothing of it will be sent.\n" {
		t.Fatalf("cancel, y: exit %d\n%s\n%s", code, out, errOut)
	}
	w.tty = false
	if _, errOut, code := w.run("", "history", "cancel", cancelID, "--yes"); code != ExitUsage || !strings.Contains(errOut, "was cancelled already") {
		t.Errorf("cancelled twice: exit %d\n%s", code, errOut)
	}
	if _, errOut, code := w.run("", "send-pair", "--resume", cancelID, "--yes"); code != ExitUsage || !strings.Contains(errOut, "was cancelled before its time") {
		t.Errorf("resume of a cancelled send: exit %d\n%s", code, errOut)
	}
	if _, errOut, code := w.run("", "send-pair", "--resume", sc.ID, "--yes"); code != ExitUsage || !strings.Contains(errOut, "is scheduled for 2026-03-21 11:30 Asia/Tehran (in 20h): a runner starts it then") ||
		!strings.Contains(errOut, "history cancel "+sc.ID) {
		t.Errorf("resume of a send waiting for its time: exit %d\n%s", code, errOut)
	}
	now, _, _ := w.run("", "history", "--json", "--jq", `.[] | select(.status == "complete") | .id`)
	if _, errOut, code := w.run("", "history", "cancel", strings.TrimSpace(now), "--yes"); code != ExitUsage || !strings.Contains(errOut, "was not scheduled") {
		t.Errorf("cancel of a send made at once: exit %d\n%s", code, errOut)
	}
	out, _, _ = w.run("", "history", "show", cancelID)
	if !strings.Contains(out, "(cancelled)") || !strings.Contains(out, "for 2026-03-20 18:00 Asia/Tehran; cancelled at ") {
		t.Errorf("history show of the cancelled send:\n%s", out)
	}

	w.clock.Advance(20 * time.Hour)
	if _, errOut, code := w.run("", "scheduler", "--once"); code != 0 || !strings.Contains(errOut, "send "+sc.ID+": 1 accepted") {
		t.Fatalf("scheduler --once at its time: exit %d\n%s", code, errOut)
	}
	if n := len(w.srv.Sent()); n != 2 {
		t.Errorf("the service took %d, want the send made at once and the one scheduled", n)
	}
	out, _, _ = w.run("", "history")
	if !strings.Contains(out, sc.ID) || !strings.Contains(out, "2026-03-21 11:30:00 +0330\tdefault") || !strings.Contains(out, "complete · started 11:30\t- via cron") {
		t.Errorf("history after the start names the runner:\n%s", out)
	}
	out, _, _ = w.run("", "history", "show", sc.ID)
	if !strings.Contains(out, "; started by cron at ") {
		t.Errorf("history show:\n%s", out)
	}

	if _, errOut, code := w.run("", "config", "set", "quiet_hours", "22:00-08:00"); code != 0 {
		t.Fatal(errOut)
	}
	_, errOut, code = w.run("", "send-pair", "--to", "09121234567", "--message", "late", "--at", "23:30", "--yes")
	if code != ExitUsage || !strings.Contains(errOut, "2026-03-21 23:30 Asia/Tehran is inside quiet hours 22:00–08:00 Asia/Tehran; sending may start at tomorrow 08:00") ||
		!strings.Contains(errOut, `pick a time from 2026-03-22 08:00: --at "2026-03-22 08:00"`) {
		t.Errorf("--at inside quiet hours: exit %d\n%s", code, errOut)
	}
	for _, tc := range []struct{ at, want string }{
		{"2026-03-20 08:00", "is not ahead"},
		{"+36d", "at most 35 days ahead"},
		{"noon", "is not a time"},
	} {
		if _, errOut, code := w.run("", "send-pair", "--to", "09121234567", "--message", "x", "--at", tc.at, "--yes"); code != ExitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("--at %s: exit %d\n%s", tc.at, code, errOut)
		}
	}
}

// TestScheduleOnceRunAgain: a cron line that schedules with --once, run
// again while its send waits, exits 0 saying it is scheduled (it said
// "unfinished: --resume", exit 1, and --resume is refused before its
// time); once that send is cancelled, the same line schedules it again
// (the id is free: nothing of the cancelled send went).
func TestScheduleOnceRunAgain(t *testing.T) {
	w := newCLIWorld(t)
	w.clock = newFakeClock() // 2026-03-20 12:00 UTC, 15:30 in Tehran
	for _, set := range []string{"senders", "sender"} {
		if _, errOut, code := w.run("", "config", "set", set, sandbox.DefaultSender); code != 0 {
			t.Fatal(errOut)
		}
	}
	args := []string{"send-pair", "--to", "09121234567", "--message", "see you at 6", "--at", "18:00", "--yes", "--once", "evening-2026-03-20"}
	out, errOut, code := w.run("", args...)
	if code != 0 {
		t.Fatalf("schedule: exit %d\n%s", code, errOut)
	}
	first := strings.TrimSuffix(strings.Fields(strings.TrimPrefix(out, "scheduled for 2026-03-20 18:00 Asia/Tehran (in 2h 30m) as send "))[0], ";")
	again, errOut, code := w.run("", args...)
	if code != 0 || !strings.Contains(errOut, "Already scheduled as send "+first+` (once-only id "evening-2026-03-20") for 2026-03-20 18:00 Asia/Tehran (in 2h 30m)`) ||
		strings.Contains(errOut, "--resume") || again != out {
		// stdout says what scheduling said: not a report of a send that has
		// not begun ("0 accepted … 1 not sent", "To continue: --resume").
		t.Fatalf("run again while it waits: exit %d\n%s\n%s", code, again, errOut)
	}
	var sched scheduledJSON
	again, errOut, code = w.run("", append(args, "--json")...)
	if err := json.Unmarshal([]byte(again), &sched); err != nil || code != 0 || sched.ID != first || sched.Status != "scheduled" ||
		sched.Time != "2026-03-20T18:00:00+03:30" || sched.Counts == nil || sched.Counts.NotSent != 1 {
		t.Fatalf("run again while it waits, --json: exit %d, %v\n%s\n%s", code, err, again, errOut)
	}
	if _, errOut, code := w.run("", "history", "cancel", first, "--yes"); code != 0 {
		t.Fatalf("cancel: exit %d\n%s", code, errOut)
	}
	out, errOut, code = w.run("", args...)
	if code != 0 || !strings.HasPrefix(out, "scheduled for 2026-03-20 18:00 Asia/Tehran") || strings.Contains(out, first) {
		t.Fatalf("run again after the cancel: exit %d\n%s\n%s", code, out, errOut)
	}
	if n := len(w.srv.Sent()); n != 0 {
		t.Errorf("scheduling sent %d", n)
	}
}

// TestEmptyAtIsRefused: --at "" (a cron line's --at "$WHEN" with WHEN
// unset) and --at of spaces are refused, exit 2, naming the empty --at, and
// nothing is sent or scheduled; it sent at once and exited 0.
func TestEmptyAtIsRefused(t *testing.T) {
	w := newCLIWorld(t)
	w.clock = newFakeClock()
	for _, set := range []string{"senders", "sender"} {
		if _, errOut, code := w.run("", "config", "set", set, sandbox.DefaultSender); code != 0 {
			t.Fatal(errOut)
		}
	}
	for _, at := range []string{"", " ", "\t \n"} {
		for _, extra := range [][]string{nil, {"--json"}, {"--dry-run"}} {
			args := append([]string{"send-pair", "--to", "09121234567", "--message", "hello", "--yes", "--at", at}, extra...)
			out, errOut, code := w.run("", args...)
			if code != ExitUsage || !strings.Contains(errOut+out, "--at is empty") || !strings.Contains(errOut+out, "nothing was sent") {
				t.Errorf("--at %q %v: exit %d\n%s\n%s", at, extra, code, out, errOut)
			}
		}
	}
	if n := len(w.srv.Sent()); n != 0 {
		t.Errorf("the service took %d messages", n)
	}
	if out, _, _ := w.run("", "history", "--json", "--jq", "length"); strings.TrimSpace(out) != "0" {
		t.Errorf("history after the refusals: %s", out)
	}
}

// TestAtHintExample: the hint under a time that cannot be a send's gives an
// example that can, dated today in the profile's timezone (it gave
// "2026-11-26 08:00" whatever the day: past, or far ahead). The fake clock
// is 12:00 UTC, 15:30 in Tehran: the next whole hour there is 16:00.
func TestAtHintExample(t *testing.T) {
	w := newCLIWorld(t)
	w.clock = newFakeClock()
	for _, set := range []string{"senders", "sender"} {
		if _, errOut, code := w.run("", "config", "set", set, sandbox.DefaultSender); code != 0 {
			t.Fatal(errOut)
		}
	}
	for _, tc := range []struct{ zone, at, want string }{
		{"Asia/Tehran", "2026-03-20 08:00", `"2026-03-20 16:00"`},
		{"Asia/Tehran", "+40d", `"2026-03-20 16:00"`},
		{"Asia/Tehran", "noon", `"2026-03-20 16:00"`},
		{"UTC", "2026-03-20 08:00", `"2026-03-20 13:00"`},
		{"America/Los_Angeles", "2026-03-19 08:00", `"2026-03-20 06:00"`}, // 05:00 there
	} {
		if _, errOut, code := w.run("", "config", "set", "timezone", tc.zone); code != 0 {
			t.Fatal(errOut)
		}
		_, errOut, code := w.run("", "send-pair", "--to", "09121234567", "--message", "x", "--at", tc.at, "--yes")
		if code != ExitUsage || !strings.Contains(errOut, "write --at like 08:00 (the next 08:00), "+tc.want+",") {
			t.Errorf("%s --at %s: exit %d\n%s", tc.zone, tc.at, code, errOut)
		}
	}
}
