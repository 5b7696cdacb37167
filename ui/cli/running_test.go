package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
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
