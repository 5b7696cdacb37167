package console

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// TestResultsSayWhatTheLedgerWaitsFor (issue 39 §2): while a record of the
// running send waits for another writer of the ledger, the results screen's
// last line says what it waits for; once the wait is over it goes.
func TestResultsSayWhatTheLedgerWaitsFor(t *testing.T) {
	t.Parallel()
	m := newRoot(t.Context(), Options{Session: testSession(t, nil, app.Profile{})})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	results := []model.SentItem{{JournalItem: model.JournalItem{Index: 0, Recipient: "09120000000"}, State: model.StateQueued}}
	m.results.begin("job-1", "3000505", 1, 1, results, "test")
	m.screen = screenResults
	ev := func(e app.Event) { e.JobID = "job-1"; m.Update(sendEventMsg{JobID: "job-1", Event: e}) }
	const wait = "waiting for the ledger: another smsdesk holds its write lock"
	ev(app.Event{Kind: app.EventLedgerWait, Reason: wait + " (/tmp/smsdesk.db); recording send job-1, waited 1s of at most 2m0s"})
	if !strings.Contains(m.text(), wait) {
		t.Fatalf("the results screen while a record waits:\n%s", m.text())
	}
	ev(app.Event{Kind: app.EventLedgerWait, Reason: "the ledger is free again", Over: true})
	if strings.Contains(m.text(), "waiting for the ledger") || strings.Contains(m.text(), "free again") {
		t.Errorf("the results screen once the wait is over:\n%s", m.text())
	}
}
