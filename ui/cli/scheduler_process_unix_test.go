//go:build unix

package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/model/syncbuf"
)

// TestProcess_ScheduleThenSchedulerOnce: send-pair --at +90s as a cron job
// would (no terminal, --yes, --json) schedules and sends nothing; scheduler
// --once before its time starts nothing; after it (the processes' clock
// moved on, SMSDESK_TEST_CLOCK_OFFSET: no waiting) it sends every pair
// once and history names the runner; two scheduler --once at once on
// another due send send it once between them.
func TestProcess_ScheduleThenSchedulerOnce(t *testing.T) {
	t.Parallel()
	w := newProcWorld(t, sandbox.Options{}, nil)
	file := func(name, text string) string {
		var b strings.Builder
		b.WriteString("recipient,message\n")
		for i := range 6 {
			fmt.Fprintf(&b, "0912111%04d,%s %d\n", i, text, i)
		}
		return writeTemp(t, w.home, name, b.String())
	}
	schedule := func(path string) string {
		t.Helper()
		code, out, errOut := w.run(t, "", "send-pair", "--file", path, "--sender", sandbox.DefaultSender, "--at", "+90s", "--yes", "--json", "--chunk-size", "2")
		var got struct{ ID, Time, Status string }
		if err := json.Unmarshal([]byte(out), &got); err != nil || code != 0 || got.Status != "scheduled" || got.ID == "" {
			t.Fatalf("send-pair --at: exit %d, %v\n%s\n%s", code, err, out, errOut)
		}
		if _, err := time.Parse(time.RFC3339, got.Time); err != nil {
			t.Errorf("time %q: %v", got.Time, err)
		}
		return got.ID
	}
	first := schedule(file("morning.csv", "good morning"))
	if n := len(w.sb.Sent()); n != 0 {
		t.Fatalf("scheduling sent %d", n)
	}

	code, _, errOut := w.run(t, "", "scheduler", "--once")
	if code != 0 || !strings.Contains(errOut, "Nothing due for profile default; the next is due") || len(w.sb.Sent()) != 0 {
		t.Fatalf("before its time: exit %d, sent %d\n%s", code, len(w.sb.Sent()), errOut)
	}

	w.env[envClockOffset] = "2m"
	code, _, errOut = w.run(t, "", "scheduler", "--once")
	if code != 0 || !strings.Contains(errOut, "send "+first+" started: 6 messages to go") || !strings.Contains(errOut, "send "+first+": 6 accepted") {
		t.Fatalf("after its time: exit %d\n%s", code, errOut)
	}
	if n := len(w.sb.Sent()); n != 6 {
		t.Fatalf("the service took %d, want 6", n)
	}
	code, out, _ := w.run(t, "", "history", "--json", "--jq", `.[] | select(.id == "`+first+`") | "\(.status) \(.started_by)"`)
	if code != 0 || strings.TrimSpace(out) != "complete cron" {
		t.Errorf("history: exit %d %q, want complete cron", code, out)
	}

	delete(w.env, envClockOffset)
	second := schedule(file("evening.csv", "good evening"))
	w.env[envClockOffset] = "2m"
	type run struct {
		cmd    *exec.Cmd
		out    *bytes.Buffer
		errOut *syncbuf.Buffer
	}
	var runs []run
	for range 2 {
		cmd, out, errOut := w.command("", "scheduler", "--once")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		runs = append(runs, run{cmd, out, errOut})
	}
	started := 0
	for _, r := range runs {
		code, _, errOut := w.wait(t, r.cmd, r.cmd.Wait(), r.out, r.errOut)
		if code != 0 {
			t.Errorf("a scheduler --once at once: exit %d\n%s", code, errOut)
		}
		started += strings.Count(errOut, "send "+second+" started")
	}
	if started != 1 {
		t.Errorf("send %s started %d times, want once", second, started)
	}
	seen := map[string]int{}
	for _, m := range w.sb.Sent() {
		seen[m.Recipient+" "+m.Message]++
	}
	for pair, n := range seen {
		if n != 1 {
			t.Errorf("%s went %d times", pair, n)
		}
	}
	if len(seen) != 12 {
		t.Errorf("%d pairs went, want 12", len(seen))
	}
}
