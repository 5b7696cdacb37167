package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
)

// TestResumeOfASendAnotherHostRuns: --resume of a send a run on another
// host still holds is refused (exit 2, error.code running) naming that run
// and when its lease ends, as the console's R does: it said "still running
// (here or in another smsdesk); wait for it to end", and nothing said how
// long (issue 40 §10).
func TestResumeOfASendAnotherHostRuns(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sc := &scripted{faults: map[int]string{1: "stop"}, cancel: cancel}
	e := newSendEnv(t, sc.wrap)
	file := e.pairsFile(t, "pairs.csv", 4, nil)
	_, out, _ := e.runCtx(t, ctx, "send-pair", "--sender", sandbox.DefaultSender, "--file", file, "--yes", "--json", "--chunk-size", "2")
	id := decodeReport(t, out).sendID()
	ledgertest.HoldLease(t, filepath.Join(e.dir, "state", "smsdesk.db"), id, "smsdesk serve", "web-2", 4242, 45*time.Second)

	code, out, stderr := e.run(t, "send-pair", "--resume", id, "--yes", "--json")
	for _, want := range []string{`"code": "running"`, "send " + id + " is still running: smsdesk serve on web-2 (process 4242) holds it; its lease ends at ",
		" unless that run goes on; wait for it to end, then resume"} {
		if !strings.Contains(out+stderr, want) {
			t.Errorf("--resume of a send another host runs: exit %d, does not say %q:\n%s%s", code, want, out, stderr)
		}
	}
	if code != ExitUsage || sc.count() != 1 {
		t.Errorf("exit %d after %d requests, want %d and no request", code, sc.count()-1, ExitUsage)
	}
}

// TestOnceIDOfASendStarting: a run with a once-only id that another run
// took a moment ago, whose send's plan is not written yet (two cron lines
// at once), is refused as running (exit 2, error.code running), not as a
// usage error whose journal "does not read: no such send" (two of six
// racing runs said so).
func TestOnceIDOfASendStarting(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	file := e.pairsFile(t, "today.csv", 2, nil)
	args := []string{"send-pair", "--file", file, "--sender", sandbox.DefaultSender, "--yes", "--json"}
	e.mustRun(t, 0, append(args, "--once", "first")...)
	l, err := ledger.Open(context.Background(), filepath.Join(e.dir, "state", "smsdesk.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	first, ok, err := l.FindOnce(context.Background(), "first")
	if err != nil || !ok {
		t.Fatalf("FindOnce: %v %v", ok, err)
	}
	// Another run, now starting the same pairs under "racing": its id
	// taken, its send reserved under a live lease, its plan not yet written.
	const starting = "20991231-235959-000001"
	if _, err := l.ReserveSend(context.Background(), starting, "smsdesk send-pair", time.Minute); err != nil {
		t.Fatal(err)
	}
	racing := first
	racing.ID, racing.SendID = "racing", starting
	if err := l.RecordOnce(context.Background(), racing); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := e.run(t, append(args, "--once", "racing")...)
	for _, want := range []string{`"code": "running"`, "send " + starting + ` (once-only id \"racing\") is starting in another smsdesk; nothing more was sent`} {
		if !strings.Contains(out+errOut, want) {
			t.Errorf("exit %d, does not say %q:\n%s%s", code, want, out, errOut)
		}
	}
	if code != ExitUsage || e.sendPosts() != 1 {
		t.Errorf("exit %d after %d send requests, want %d and no more than the first run's", code, e.sendPosts(), ExitUsage)
	}
}
