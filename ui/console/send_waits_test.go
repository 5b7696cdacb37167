package console

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
)

// TestConsoleSaysWhatTheStartWaitsFor: another smsdesk holds the ledger's
// write lock as a confirmed send starts; the status bar says what the
// start waits for while it waits (the console showed only its spinner,
// while the CLI's progress line said it), and the send goes once the lock
// is let go, every pair once.
func TestConsoleSaysWhatTheStartWaitsFor(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	tm := e.startOnGroup1(t)
	writeTemplate(t, tm, "Hello {name|friend}", 8)
	tm.Send(press("ctrl+s"))
	waitFor(t, tm, "Send these messages?")
	hold := ledgertest.HoldLedger(t, filepath.Join(e.opts.Session.Paths.StateDir, ledger.FileName))
	tm.Send(press("y"))
	waitModel(t, tm, "the start's wait said", func(m *root) bool {
		return m.starting != 0 && strings.Contains(m.text(), "waiting for the ledger: another smsdesk holds its write lock")
	})
	if n := len(e.srv.Sent()); n != 0 {
		t.Fatalf("%d messages went while the start waited for the ledger", n)
	}
	hold.Release()
	waitModel(t, tm, "sent", func(m *root) bool { return m.results.summary != nil && !m.results.running() })
	noDuplicates(t, e, 8)
}
