//go:build unix

package cli

import (
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// A PostgreSQL ledger that takes the connection and never answers costs a
// command one bound (connectTimeout, 5 s), not one per look: these tests
// count the connections the built command makes, not the seconds.

// TestProcess_DoctorWaitsOnceForALedgerThatNeverAnswers: doctor connects
// once, says the ledger ✗, and the opt-out count says it was not counted.
// The opt-out count opened the ledger again and waited a second bound
// (10 s, where 5 were promised).
func TestProcess_DoctorWaitsOnceForALedgerThatNeverAnswers(t *testing.T) {
	t.Parallel()
	w := newProcWorld(t, sandbox.Options{}, nil)
	hung := newHungService(t)
	w.env["SMSDESK_LEDGER"] = "postgres://smsdesk@" + hung.Addr() + "/smsdesk?sslmode=disable"
	code, out, stderr := w.run(t, "", "doctor")
	if code == 0 || !strings.Contains(out, "✗ ledger") || !strings.Contains(out, "not counted: the ledger does not open (above)") {
		t.Errorf("doctor against a ledger that never answers: exit %d\n%s\n%s", code, out, stderr)
	}
	if n := hung.Taken(t); n != 1 {
		t.Errorf("doctor made %d connections to a ledger that never answers, want 1", n)
	}
}

// TestProcess_SchedulerOnceWaitsOnceForALedgerThatNeverAnswers: a cron
// job's scheduler --once connects once, exits 1 naming the ledger, and
// says no send stopped for it (it said a chunk in flight may have gone,
// where no send had started). Its look for the next due send opened the
// ledger again (two connections, 10 s, on 3302851).
func TestProcess_SchedulerOnceWaitsOnceForALedgerThatNeverAnswers(t *testing.T) {
	t.Parallel()
	w := newProcWorld(t, sandbox.Options{}, nil)
	hung := newHungService(t)
	w.env["SMSDESK_LEDGER"] = "postgres://smsdesk@" + hung.Addr() + "/smsdesk?sslmode=disable"
	code, out, stderr := w.run(t, "", "scheduler", "--once")
	if code != ExitService || !strings.Contains(stderr, "scheduler stopped: connecting to the ledger") ||
		!strings.Contains(stderr, "no send stopped for it") || strings.Contains(stderr, "chunk in flight") {
		t.Errorf("scheduler --once against a ledger that never answers: exit %d\n%s\n%s", code, out, stderr)
	}
	if n := hung.Taken(t); n != 1 {
		t.Errorf("scheduler --once made %d connections to a ledger that never answers, want 1", n)
	}
}
