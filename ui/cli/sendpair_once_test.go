package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// TestSendPairOnce: send-pair --once ID sends at most once on the account.
// Run again with the same pairs (the same profile, another profile on the
// same service and key, a dry run) it sends nothing, says "already sent as
// send X" and exits 0, --json giving that send's id and counts (it was
// refused as a repeat of itself, exit 2); with other pairs it is refused,
// exit 2.
func TestSendPairOnce(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	file := e.pairsFile(t, "today.csv", 5, nil)
	args := []string{"send-pair", "--file", file, "--sender", sandbox.DefaultSender, "--yes", "--once", "reminders-2026-11-25"}

	_, out, _ := e.run(t, append(args, "--json")...)
	first := decodeReport(t, out)
	if first.Once == nil || first.Once.ID != "reminders-2026-11-25" || first.Once.EarlierSend != nil || first.Counts.Accepted != 5 {
		t.Fatalf("the first run: %+v\n%s", first.Once, out)
	}
	posts := e.sendPosts()

	out, errOut := e.mustRun(t, 0, args...)
	if !strings.Contains(errOut, "Already sent as send "+first.sendID()+` (once-only id "reminders-2026-11-25"`) || !strings.Contains(out, "Send "+first.sendID()+": 5 accepted") {
		t.Errorf("run again:\n%s\n%s", out, errOut)
	}
	out, _ = e.mustRun(t, 0, append(args, "--json")...)
	again := decodeReport(t, out)
	if again.sendID() != first.sendID() || again.Counts == nil || again.Counts.Accepted != 5 || again.Once == nil || again.Once.EarlierSend == nil || *again.Once.EarlierSend != first.sendID() {
		t.Errorf("run again --json: id %s, counts %+v, once %+v", again.sendID(), again.Counts, again.Once)
	}
	// Another profile on the same account (service and key): the same id.
	cfg := filepath.Join(e.dir, "config", "config.toml")
	b, _ := os.ReadFile(cfg)
	if err := os.WriteFile(cfg, append(b, []byte("[profiles.other]\nrate_per_minute = 6000\n")...), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, errOut := e.mustRun(t, 0, append([]string{"--profile", "other"}, args...)...); !strings.Contains(errOut, "Already sent as send "+first.sendID()) {
		t.Errorf("another profile:\n%s", errOut)
	}
	if _, errOut := e.mustRun(t, 0, append(args, "--dry-run")...); !strings.Contains(errOut, "Already sent as send "+first.sendID()) {
		t.Errorf("a dry run:\n%s", errOut)
	}
	// Other pairs under the id: a mistake.
	other := e.pairsFile(t, "other.csv", 4, nil)
	_, errOut = e.mustRun(t, ExitUsage, "send-pair", "--file", other, "--sender", sandbox.DefaultSender, "--yes", "--once", "reminders-2026-11-25")
	if !strings.Contains(errOut, `once-only id "reminders-2026-11-25" was used by send `+first.sendID()+" (5 pairs from today.csv") || !strings.Contains(errOut, "for other pairs") ||
		!strings.Contains(errOut, "give this send its own id") {
		t.Errorf("other pairs:\n%s", errOut)
	}
	if n := e.sendPosts(); n != posts {
		t.Errorf("%d more send requests after the first run", n-posts)
	}
	// A new id is a new send (a repeat, refused as such without --allow-repeat).
	if _, errOut := e.mustRun(t, ExitUsage, "send-pair", "--file", file, "--sender", sandbox.DefaultSender, "--yes", "--once", "reminders-2026-11-26"); !strings.Contains(errOut, "--allow-repeat") {
		t.Errorf("a new id for the same pairs:\n%s", errOut)
	}
	for _, bad := range [][]string{{"--once", ""}, {"--once", "a\nb"}, {"--once", "x", "--resume", first.sendID()}} {
		if code, _, _ := e.run(t, append([]string{"send-pair", "--file", file, "--yes"}, bad...)...); code != ExitUsage {
			t.Errorf("%q: exit %d, want 2", bad, code)
		}
	}
}

// TestSendPairOnceUnfinished: a re-run with the id of a send that stopped
// before the end says so and names --resume (exit 1); once resumed to the
// end, a re-run exits 0.
func TestSendPairOnceUnfinished(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sc := &scripted{faults: map[int]string{1: "stop"}, cancel: cancel}
	e := newSendEnv(t, sc.wrap)
	file := e.pairsFile(t, "today.csv", 6, nil)
	args := []string{"send-pair", "--file", file, "--sender", sandbox.DefaultSender, "--yes", "--once", "daily", "--chunk-size", "2"}
	_, out, _ := e.runCtx(t, ctx, append(args, "--json")...)
	rep := decodeReport(t, out)
	if !rep.Interrupted || rep.Counts.NotSent != 4 {
		t.Fatalf("the first run: %+v", rep.Counts)
	}
	_, errOut := e.mustRun(t, ExitService, args...)
	if !strings.Contains(errOut, "send "+rep.sendID()+` (once-only id "daily") is unfinished: 4 not sent`) || !strings.Contains(errOut, "smsdesk send-pair --resume "+rep.sendID()) {
		t.Errorf("run again while unfinished:\n%s", errOut)
	}
	e.mustRun(t, 0, "send-pair", "--resume", rep.sendID(), "--yes")
	if _, errOut := e.mustRun(t, 0, args...); !strings.Contains(errOut, "Already sent as send "+rep.sendID()) {
		t.Errorf("run again once finished:\n%s", errOut)
	}
	if n := e.sendPosts(); n != 3 {
		t.Errorf("%d send requests, want 3 (chunks of 2)", n)
	}
}

// TestSendPairOnceTogether: four runs with one --once id at once
// (overlapping cron jobs) make one send; the others say it was sent or is
// sending, and none is refused as a repeat.
func TestSendPairOnceTogether(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	file := e.pairsFile(t, "today.csv", 3, nil)
	var wg sync.WaitGroup
	codes := make([]int, 4)
	errs := make([]string, 4)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], _, errs[i] = e.run(t, "send-pair", "--file", file, "--sender", sandbox.DefaultSender, "--yes", "--once", "together", "--chunk-size", "1")
		}()
	}
	wg.Wait()
	sent := 0
	for i, code := range codes {
		switch {
		case code == 0 && !strings.Contains(errs[i], "Already sent"):
			sent++
		case code == 0 && strings.Contains(errs[i], "Already sent as send"):
		case code == ExitUsage && strings.Contains(errs[i], "is still running; nothing more was sent") && strings.Count(errs[i], "still running") == 1:
		case code == ExitUsage && strings.Contains(errs[i], "is starting in another smsdesk; nothing more was sent"):
			// the other run had taken the id and not yet written its plan (4f1fb87)
		default:
			t.Errorf("run %d: exit %d\n%s", i, code, errs[i])
		}
	}
	if sent != 1 || e.sendPosts() != 3 || len(e.sendIDs(t)) != 1 {
		t.Errorf("%d runs sent, %d send requests, sends %v; want 1, 3 and one send", sent, e.sendPosts(), e.sendIDs(t))
	}
}
