package console

import (
	"errors"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// TestMessageLogKeepsEverything: notes and errors go to the log with their
// time and full text (the status bar cuts them); an error clears on the next
// success; L opens the log and esc comes back.
func TestMessageLogKeepsEverything(t *testing.T) {
	t.Parallel()
	m := newBareRoot(t)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 23})
	m.Update(statusMsg{Text: "exported 8 contacts to a.csv"})
	long := "listing contacts of group 7: GET /contact-groups/7/contacts: 500 provider_error: " + strings.Repeat("the upstream provider did not answer; ", 6) + "END-OF-ERROR"
	m.Update(contactsLoadedMsg{GroupID: "7", LoadID: 99, Err: errors.New(long)})
	if m.lastErr == "" || strings.Contains(m.text(), "END-OF-ERROR") {
		t.Fatalf("the status bar should show the error cut: lastErr %q", m.lastErr)
	}
	m.Update(optOutsMsg{For: forContacts, Seq: 1, List: &model.OptOutList{}})
	if m.lastErr == "" {
		t.Error("the opt-out list read in the background cleared the error before the operator read it")
	}
	m.Update(contactAddedMsg{GroupID: "7", Contact: model.Contact{ID: "1", Mobile: "09121234567"}})
	if m.lastErr != "" {
		t.Errorf("an error stays after a success: %q", m.lastErr)
	}
	m.send("L")
	if m.screen != screenViewer {
		t.Fatalf("L opened screen %v", m.screen)
	}
	var joined string
	for _, l := range m.viewer.wrapped() {
		joined += strings.TrimSpace(l) + " "
	}
	for _, want := range []string{"exported 8 contacts to a.csv", "✗ " + long[:40], "END-OF-ERROR"} {
		if !strings.Contains(joined, want) {
			t.Errorf("the log lacks %q:\n%s", want, joined)
		}
	}
	frame := m.text()
	for i, l := range strings.Split(frame, "\n") {
		if termWidth(l) > 80 {
			t.Errorf("log line %d is wider than the terminal: %q", i, l)
		}
	}
	m.send("esc")
	if m.screen != screenMain {
		t.Errorf("esc from the log went to %v", m.screen)
	}
}

// TestEnterOpensAResultInFull: enter on a results row shows everything about
// that recipient: the whole reason, ids and the message as sent.
func TestEnterOpensAResultInFull(t *testing.T) {
	t.Parallel()
	m := newBareRoot(t)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	reason := "422 invalid_recipient: " + strings.Repeat("شماره در فهرست سیاه است ", 8) + "END"
	m.results.jobID = "20250301-100000-abcdef"
	m.results.results = []model.SentItem{
		{JournalItem: model.JournalItem{Index: 0, Recipient: "09121234567", Message: "Hello Ali"}, State: model.StateAccepted, MessageID: "msg_1"},
		{JournalItem: model.JournalItem{Index: 1, Recipient: "09351234567", Message: "سلام سارا، کد شما 48213 است"}, State: model.StateRejected, Code: "invalid_recipient", Error: reason, Chunk: 1}}
	m.results.shown = []int{0, 1}
	m.screen = screenResults
	m.send("down", "enter")
	if m.screen != screenViewer {
		t.Fatalf("enter opened screen %v", m.screen)
	}
	text := strings.Join(m.viewer.text, "\n")
	for _, want := range []string{"09351234567", "rejected", "invalid_recipient", "END", "سلام سارا، کد شما 48213 است", "20250301-100000-abcdef"} {
		if !strings.Contains(text, want) {
			t.Errorf("detail lacks %q:\n%s", want, text)
		}
	}
	m.send("esc")
	if m.screen != screenResults {
		t.Errorf("esc went to %v, want the results", m.screen)
	}
}

// TestImportForAGroupNoLongerShown: its progress does not show over another
// group, and its summary still reaches the status bar and the log.
func TestImportForAGroupNoLongerShown(t *testing.T) {
	t.Parallel()
	m := newBareRoot(t)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	_, work := m.c.startWork(workImport, "2 rows into VIP")
	m.contacts.imports["3"] = &importRun{work: work, text: "importing 2 contacts…"}
	m.contacts.group = model.Group{ID: "1", Name: "Tehran"} // the operator opened another group
	if strings.Contains(m.text(), "importing") {
		t.Error("VIP's import shows on Tehran's table")
	}
	cmd := m.route(importDoneMsg{GroupID: "3", GroupName: "VIP", Added: 2, Invalid: 1, Failures: []string{"line 4: too short"}, work: work})
	if cmd == nil {
		t.Fatal("no status for an import whose group is not shown")
	}
	m.Update(cmd())
	if !strings.Contains(m.note, "import into VIP: 2 added") || len(m.contacts.imports) != 0 || len(m.c.work.live) != 0 {
		t.Errorf("status %q, imports %v, work %v", m.note, m.contacts.imports, m.c.work.lines(fixedNow))
	}
	m.contacts.group = model.Group{ID: "3", Name: "VIP"}
	if w := m.contacts.workingText(); w != "" {
		t.Errorf("VIP still says %q after its import ended", w)
	}
	var logged string
	for _, e := range m.log {
		logged += e.text + "\n"
	}
	if !strings.Contains(logged, "import into VIP: line 4: too short") || !strings.Contains(logged, "import into VIP: 2 added") {
		t.Errorf("log:\n%s", logged)
	}
}

// TestImportShowsETA: import progress says how long the rest will take.
func TestImportShowsETA(t *testing.T) {
	t.Parallel()
	m := newBareRoot(t)
	now := fixedNow
	m.c.now = func() time.Time { return now }
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m.contacts.group = model.Group{ID: "3", Name: "VIP"}
	m.contacts.imports["3"] = &importRun{work: 1, began: fixedNow}
	now = fixedNow.Add(10 * time.Second)
	m.route(importProgressMsg{GroupID: "3", Done: 20, total: 100, work: 1})
	if got := m.contacts.workingText(); got != "importing… 20 of 100 rows, 0 invalid · ETA 40s" {
		t.Errorf("progress %q", got)
	}
}

// TestStopWording: a send stopped because the service could not be reached
// says so, not that the service refused it.
func TestStopWording(t *testing.T) {
	t.Parallel()
	m := newBareRoot(t)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m.results.jobID, m.results.sending = "20250301-100000-abcdef", true
	m.results.event(app.Event{Kind: app.EventSent, Summary: &app.Summary{
		Stopped: "the service could not be reached for 30s", Cause: app.StopUnreachable}})
	m.screen = screenResults
	v := m.text()
	if !strings.Contains(v, "stopped: the service cannot be reached") || strings.Contains(v, "refused") {
		t.Errorf("view:\n%s", v)
	}
}
