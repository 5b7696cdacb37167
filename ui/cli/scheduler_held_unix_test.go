//go:build unix

package cli

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
	"github.com/smsdesk/smsdesk/model/eventually"
)

// heldWords is what a scheduler that gave up its look names as what it
// waited for, by backend.
var heldWords = map[string][]string{
	"sqlite":   {"holds its write lock"},
	"postgres": {"PostgreSQL session", "holds a lock on sends", "LOCK TABLE sends IN ACCESS EXCLUSIVE MODE"},
}

// TestProcess_SchedulerOnAHeldLedger: another session holds the ledger
// for the whole test (SQLite's write lock as a sqlite3 with a transaction
// open keeps it; PostgreSQL's `LOCK TABLE sends IN ACCESS EXCLUSIVE MODE`
// in a psql left open) while a send is due. `scheduler --once` gives up
// its look at the look wait (SMSDESK_TEST_LOOK_WAIT: 25 s in smsdesk),
// exit 1, naming what held it and what to do, nothing
// sent; a looping scheduler whose claim waits ends on SIGTERM, the hold
// still in place. On main --once waited on (over 90 s on PostgreSQL),
// and a looping scheduler stopped only when the hold ended (26 s).
func TestProcess_SchedulerOnAHeldLedger(t *testing.T) {
	t.Parallel()
	for _, b := range ledgertest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			loc := b.Location(t)
			w := newProcWorld(t, sandbox.Options{}, nil)
			w.env["SMSDESK_LEDGER"] = loc
			w.mustRun(t, "ledger", "init")
			w.mustRun(t, "send-pair", "--to", "09121110001", "--message", "due", "--sender", sandbox.DefaultSender, "--at", "+90s", "--yes")
			w.env[envClockOffset] = "2m"
			hold := ledgertest.HoldLedger(t, loc)

			w.env[envLookWait] = "500ms"
			code, stdout, stderr := w.run(t, "", "scheduler", "--once")
			if code != ExitService || !strings.Contains(stderr, "waited 500ms for the ledger and gave up") {
				t.Fatalf("scheduler --once on a held ledger: exit %d\n%s\n%s", code, stdout, stderr)
			}
			for _, want := range heldWords[b.Name] {
				if !strings.Contains(stderr, want) {
					t.Errorf("its words lack %q:\n%s", want, stderr)
				}
			}

			// The --once process's look may linger in PostgreSQL's lock
			// queue a moment after it exited; read as the looping
			// scheduler's wait, the SIGTERM below could come before that
			// process had set up its signals (CI: exit -1, killed).
			if !eventually.Within(waitLimit, func() bool { return !hold.Waiting() }) {
				t.Fatal("the --once scheduler's look still waits in the server")
			}
			w.env[envLookWait] = "1h" // only the signal ends its wait
			cmd, out, errOut := w.command("", "scheduler", "--poll", "1h")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// It waits on the held ledger: PostgreSQL shows its look
			// waiting; on SQLite its claim, a write, says in the
			// scheduler's log what it waits for (red without the notice:
			// it never came to the held ledger).
			waited := func() bool {
				return hold.Waiting() || strings.Contains(errOut.String(), "waiting for the ledger: ")
			}
			if !eventually.Within(waitLimit, waited) {
				_ = cmd.Process.Kill()
				t.Fatalf("the scheduler never came to the held ledger:\n%s", errOut.String())
			}
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			ended := make(chan error, 1)
			go func() { ended <- cmd.Wait() }()
			select {
			case err := <-ended:
				if code, _, stderr := w.wait(t, cmd, err, out, errOut); code != 0 {
					t.Errorf("the scheduler stopped by SIGTERM: exit %d\n%s", code, stderr)
				}
			case <-time.After(waitLimit):
				_ = cmd.Process.Kill()
				t.Fatalf("the scheduler did not stop on SIGTERM while the ledger was held:\n%s", errOut.String())
			}
			if !hold.Held() || len(w.sb.Sent()) != 0 {
				t.Errorf("held %v; the service took %d", hold.Held(), len(w.sb.Sent()))
			}
			if b.Name == "sqlite" && !strings.Contains(errOut.String(), "holds its write lock") {
				t.Errorf("the scheduler's log does not say what it waited for:\n%s", errOut.String())
			}
		})
	}
}
