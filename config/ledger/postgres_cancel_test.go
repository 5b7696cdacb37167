package ledger

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
	"github.com/smsdesk/smsdesk/model/eventually"
)

// TestPostgresCancelledWaitLeavesTheServer: a statement waiting for a lock
// another session holds, whose context ends (SIGTERM, a look's bound),
// stops waiting in the server too. Its backend stayed in the lock queue
// until lock_timeout, blocking every later request for that table behind
// it (seen by hand: a scheduler stopped by SIGTERM left its backend
// waiting): pgx only closed its socket, which a waiting backend does not
// read. The URL sets lock_timeout to 10 minutes, so that only the cancel
// can end the wait within the test.
func TestPostgresCancelledWaitLeavesTheServer(t *testing.T) {
	loc := ledgertest.Postgres(t)
	sep := "?"
	if strings.Contains(loc, "?") {
		sep = "&"
	}
	l, err := Create(t.Context(), loc+sep+"lock_timeout=600000")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	hold := ledgertest.HoldLedger(t, loc)

	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := l.SendExists(ctx, "20260320-120000-abcdef")
		done <- err
	}()
	eventually.True(t, time.Minute, hold.Waiting, func() string { return "the read never waited for the hold" })
	cancel()
	if err := <-done; err == nil {
		t.Fatal("the cancelled read answered")
	}
	eventually.True(t, time.Minute, func() bool { return !hold.Waiting() },
		func() string { return "the cancelled read's backend still waits for the lock" })
}
