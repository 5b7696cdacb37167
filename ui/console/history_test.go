package console

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
	"github.com/smsdesk/smsdesk/ui/app/apptest"
)

// Recipients of the interrupted send: 0 accepted, 1 rejected, 2 unknown (its
// request went out and no answer came), 3 never attempted.
var pastRecipients = []string{"09121110000", "09121110001", "09121110002", "09121110003"}

const pastSendID = "20250301-093000-abc123"

// writeInterruptedSend journals a send that died mid-way, as the engine would
// have left it.
func writeInterruptedSend(t *testing.T, paths config.Paths, sender string) {
	t.Helper()
	j, err := config.CreateJournal(t.Context(), paths, pastSendID)
	if err != nil {
		t.Fatal(err)
	}
	at := fixedNow.Add(-30 * time.Minute)
	plan := &model.JournalPlan{ID: pastSendID, Time: at, Profile: "test", Sender: sender, Source: "group 1", ChunkSize: 2}
	for i, r := range pastRecipients {
		plan.Items = append(plan.Items, model.JournalItem{Index: i, Recipient: r, Message: "سلام " + r, Parts: 1})
	}
	recs := []model.JournalRecord{
		plan,
		&model.JournalIntent{Time: at, Chunk: 0, Indexes: []int{0, 1}, Key: pastSendID + "-0"},
		&model.JournalOutcome{Time: at, Chunk: 0, BatchID: "B-1", Results: []model.JournalResult{
			{Index: 0, State: model.StateAccepted, MessageID: "MSG-ACCEPTED-0"},
			{Index: 1, State: model.StateRejected, Code: "invalid_recipient", Error: "number is blocked"},
		}},
		&model.JournalIntent{Time: at, Chunk: 1, Indexes: []int{2}, Key: pastSendID + "-1"},
	}
	for _, r := range recs {
		if err := j.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
}

// sentTo lists the recipients the sandbox accepted messages for.
func sentTo(e *env) []string {
	var out []string
	for _, m := range e.srv.Sent() {
		out = append(out, m.Recipient)
	}
	slices.Sort(out)
	return out
}

// openPastSend goes to the history screen and opens the past send.
func openPastSend(t *testing.T, tm *teatest.TestModel) {
	t.Helper()
	tm.Send(press("h"))
	waitModel(t, tm, "history listed", func(m *root) bool {
		return m.screen == screenHistory && !m.history.loading && len(m.history.entries) == 1
	})
	tm.Send(press("enter"))
	waitModel(t, tm, "send opened", func(m *root) bool {
		return m.history.detail != nil && m.history.detail.state != nil && !m.history.detail.loading // R waits for the load
	})
}

// modalTitle is the open dialog's title, or "".
func modalTitle(m *root) string {
	if d, ok := m.modal.(*confirm); ok {
		return d.title
	}
	return ""
}

func TestHistoryResume(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	paths := e.opts.Session.Paths // a temporary state directory of its own
	e.opts.Session.Profile.Sender = e.srv.Senders()[0]
	writeInterruptedSend(t, paths, e.srv.Senders()[0])
	// The journal of a send that died says chunk 1 was asked for but never
	// answered: those items are unknown, not "not sent".
	tm := e.startOnGroup1(t)
	openPastSend(t, tm)

	// The detail lists every recipient with status, message id and error.
	var frame string
	waitModel(t, tm, "detail drawn", func(m *root) bool { frame = m.text(); return strings.Contains(frame, "MESSAGE ID") })
	for _, want := range []string{"09121110000", "accepted", "MSG-ACCEPTED-0", "09121110001", "rejected",
		"invalid_recipient: number is blocked", "09121110002", "unknown", "09121110003"} {
		if !strings.Contains(frame, want) {
			t.Errorf("detail lacks %q:\n%s", want, frame)
		}
	}

	// R: first the unknown items are listed and the default answer leaves them out.
	tm.Send(press("R"))
	waitModel(t, tm, "unknowns asked", func(m *root) bool {
		return modalTitle(m) == "Unknown outcomes" && strings.Contains(m.text(), "09121110002")
	})
	tm.Send(press("enter")) // the highlighted answer is No
	waitModel(t, tm, "final question", func(m *root) bool {
		return modalTitle(m) == "Resume send?" && strings.Contains(m.text(), "1 unknown recipient(s) are left out") &&
			strings.Contains(m.text(), "Time: under a second (1 request)") // as a new send's confirmation says it
	})
	tm.Send(press("y"))
	// Finished: sent, delivery polled and its journal closed (a resume of
	// it before then is refused as running).
	waitModel(t, tm, "resume finished", func(m *root) bool {
		return m.screen == screenResults && !m.results.running() && m.results.summary != nil && len(m.c.work.live) == 0
	})
	// The ETA counted the profile's chunks (100 a request) for a send begun
	// two at a time: "ETA 1s" for a resume that took a minute.
	waitModel(t, tm, "the run's chunks", func(m *root) bool { return m.results.run != nil && m.results.run.ChunkSize() == 2 })
	if got, want := sentTo(e), []string{"09121110001", "09121110003"}; !slices.Equal(got, want) {
		t.Fatalf("resume sent to %v, want only %v (not the accepted one, not the unknown one)", got, want)
	}
	st, err := config.ReadJournal(t.Context(), paths, pastSendID)
	if err != nil {
		t.Fatal(err)
	}
	if c := st.Counts(); c.Accepted != 3 || c.Unknown != 1 {
		t.Fatalf("journal after resume: %+v, want 3 accepted and 1 unknown", c)
	}

	// Again, now saying yes to the unknown item, but no to the final question:
	// nothing is sent.
	tm.Send(press("esc"))
	openPastSend(t, tm)
	tm.Send(press("R"))
	waitModel(t, tm, "unknowns asked", func(m *root) bool { return modalTitle(m) == "Unknown outcomes" })
	tm.Send(press("y"))
	waitModel(t, tm, "final question", func(m *root) bool {
		return modalTitle(m) == "Resume send?" && strings.Contains(m.text(), "INCLUDES 1 unknown")
	})
	tm.Send(press("enter")) // default No
	waitModel(t, tm, "dialog closed", func(m *root) bool { return m.modal == nil && m.screen == screenHistory })
	if got := len(e.srv.Sent()); got != 2 {
		t.Fatalf("declining sent something: %d messages in all", got)
	}

	// And yes to both: the unknown item goes again.
	tm.Send(press("R"))
	waitModel(t, tm, "unknowns asked", func(m *root) bool { return modalTitle(m) == "Unknown outcomes" })
	tm.Send(press("y"))
	waitModel(t, tm, "final question", func(m *root) bool { return modalTitle(m) == "Resume send?" })
	tm.Send(press("y"))
	waitModel(t, tm, "second resume finished", func(m *root) bool {
		return m.screen == screenResults && !m.results.running() && m.results.summary != nil && m.results.jobID == pastSendID
	})
	if got, want := sentTo(e), []string{"09121110001", "09121110002", "09121110003"}; !slices.Equal(got, want) {
		t.Fatalf("after including the unknown: sent to %v, want %v", got, want)
	}
	finalView(t, tm)
}

// TestResumeInsideQuietHours: R on a send inside quiet hours is refused
// naming R and when (it said "ctrl+s again from then, or yes below sends
// now", and no question below offers to), and sends nothing.
func TestResumeInsideQuietHours(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	sess := e.opts.Session
	window, _ := apptest.QuietAround(fixedNow)
	prof := config.Profile{Sender: e.srv.Senders()[0], QuietHours: window}
	sess.Profile = app.ResolveProfile("test", sess.Profile.BaseURL, &prof, "test")
	writeInterruptedSend(t, sess.Paths, e.srv.Senders()[0])
	tm := e.startOnGroup1(t)
	openPastSend(t, tm)
	tm.Send(press("R"))
	var said string
	waitModel(t, tm, "refused", func(m *root) bool {
		if d := m.history.detail; d != nil {
			said = d.err
		}
		return strings.Contains(said, "was not resumed")
	})
	if !strings.Contains(said, "R again from then") || !strings.Contains(said, "smsdesk send-pair --resume "+pastSendID+" --ignore-quiet-hours") ||
		strings.Contains(said, "yes below") {
		t.Errorf("the refusal says %q", said)
	}
	if v := finalView(t, tm); !strings.Contains(v, "--ignore-quiet-hours") {
		t.Errorf("the refusal is cut before its hint:\n%s", v)
	}
	if n := len(e.srv.Sent()); n != 0 {
		t.Errorf("the service took %d", n)
	}
}
