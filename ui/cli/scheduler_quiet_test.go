package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// TestSchedulerOnceQuiet: scheduler --once -q, as cron runs it, prints
// nothing and exits 0 when nothing needs a person; a send missed, refused
// at its start, held at quiet hours or left with outcomes unknown is named,
// one line each with its id and why, and the exit is 1 (3 for unknown
// outcomes), so that cron mails exactly that. Under -q it printed nothing
// at all, whatever happened; a held send or unknown outcomes exited 0.
// The fake clock is 12:00 UTC, 15:30 in Tehran.
func TestSchedulerOnceQuiet(t *testing.T) {
	schedule := func(t *testing.T, w *cliWorld, at string, extra ...string) string {
		t.Helper()
		args := append([]string{"send-pair", "--to", "09121234567", "--message", "a", "--at", at, "--yes", "--json", "--jq", ".id"}, extra...)
		out, errOut, code := w.run("", args...)
		if code != 0 {
			t.Fatalf("schedule: exit %d\n%s", code, errOut)
		}
		return strings.TrimSpace(out)
	}
	t.Parallel()
	for _, tc := range []struct {
		name    string
		opts    sandbox.Options
		setup   func(t *testing.T, w *cliWorld) string // schedules; the send id to name, or ""
		advance time.Duration
		code    int
		want    string // the line about the send, after its id ("" for none)
	}{
		{name: "nothing scheduled", setup: func(*testing.T, *cliWorld) string { return "" }, code: 0},
		{name: "not due yet", setup: func(t *testing.T, w *cliWorld) string { schedule(t, w, "16:00"); return "" }, advance: 10 * time.Minute, code: 0},
		{name: "sent as planned", setup: func(t *testing.T, w *cliWorld) string { schedule(t, w, "16:00"); return "" }, advance: 31 * time.Minute, code: 0},
		{name: "missed", setup: func(t *testing.T, w *cliWorld) string { return schedule(t, w, "16:00") }, advance: 3 * time.Hour, code: ExitService, want: " missed: "},
		{name: "refused at its start", setup: func(t *testing.T, w *cliWorld) string {
			id := schedule(t, w, "16:00")
			// The same pair sent now, on purpose: the scheduled send is a repeat at its time.
			if _, errOut, code := w.run("", "send-pair", "--to", "09121234567", "--message", "a", "--yes", "--allow-repeat"); code != 0 {
				t.Fatalf("send now: exit %d\n%s", code, errOut)
			}
			return id
		}, advance: 31 * time.Minute, code: ExitService, want: " not started at its time: "},
		{name: "held at quiet hours", setup: func(t *testing.T, w *cliWorld) string {
			mustRun(t, w, "config", "set", "rate_per_minute", "1")
			out, errOut, code := w.run("", "send-pair", "--to", "09121110011", "--message", "a", "--to", "09121110012", "--message", "b",
				"--to", "09121110013", "--message", "c", "--chunk-size", "1", "--at", "15:31", "--yes", "--json", "--jq", ".id")
			if code != 0 {
				t.Fatalf("schedule: exit %d\n%s", code, errOut)
			}
			mustRun(t, w, "config", "set", "quiet_hours", "15:32-16:00")
			return strings.TrimSpace(out)
		}, advance: time.Minute, code: ExitService, want: " (held at quiet hours until 2026-03-20 16:00 Asia/Tehran)"},
		{name: "outcome unknown", opts: sandbox.Options{DropEvery: 1}, setup: func(t *testing.T, w *cliWorld) string { return schedule(t, w, "16:00") },
			advance: 31 * time.Minute, code: ExitUnknown, want: ": 0 accepted, 0 rejected, 0 failed, 1 unknown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newCLIWorldWith(t, tc.opts)
			w.clock = newFakeClock()
			for _, set := range []string{"senders", "sender"} {
				mustRun(t, w, "config", "set", set, sandbox.DefaultSender)
			}
			id := tc.setup(t, w)
			w.clock.Advance(tc.advance)
			out, errOut, code := w.run("", "scheduler", "--once", "-q")
			if code != tc.code || out != "" {
				t.Fatalf("exit %d, want %d; stdout %q\n%s", code, tc.code, out, errOut)
			}
			if tc.want == "" {
				if errOut != "" {
					t.Errorf("nothing needs a look, yet stderr says:\n%s", errOut)
				}
				return
			}
			lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
			if len(lines) < 2 || !strings.HasPrefix(lines[0], "send "+id) || !strings.Contains(lines[0], tc.want) ||
				lines[1] != "smsdesk: 1 send needs a look"+map[bool]string{true: ": some outcomes are unknown"}[tc.code == ExitUnknown] {
				t.Errorf("want the send's line (send %s…%s), then the error:\n%s", id, tc.want, errOut)
			}
		})
	}
}
