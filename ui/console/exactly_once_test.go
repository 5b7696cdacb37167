package console

import (
	"slices"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/ui/app"
)

// noDuplicates fails when the sandbox delivered a pair twice.
func noDuplicates(t *testing.T, e *env, want int) {
	t.Helper()
	seen := map[string]bool{}
	sent := e.srv.Sent()
	for _, s := range sent {
		k := s.Recipient + "\x00" + s.Message
		if seen[k] {
			t.Fatalf("%s got its message twice", s.Recipient)
		}
		seen[k] = true
	}
	if len(sent) != want {
		t.Fatalf("the sandbox delivered %d, want %d", len(sent), want)
	}
}

// TestHistoryResumeDecidesUnderTheLock: the history detail was loaded, then
// another process resumed the send to the end; R then y in the console must
// find nothing left (it once resent from the state loaded minutes before).
func TestHistoryResumeDecidesUnderTheLock(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	paths := e.opts.Session.Paths // a temporary state directory of its own
	e.opts.Session.Profile.Sender = e.srv.Senders()[0]
	writeInterruptedSend(t, paths, e.srv.Senders()[0])
	tm := e.startOnGroup1(t)
	openPastSend(t, tm)
	tm.Send(press("R"))
	waitModel(t, tm, "unknowns asked", func(m *root) bool { return modalTitle(m) == "Unknown outcomes" })
	tm.Send(press("enter"))
	waitModel(t, tm, "final question", func(m *root) bool { return modalTitle(m) == "Resume send?" })

	// Another process (the CLI's --resume, through the same layer) resumes
	// the send meanwhile, to the end.
	other := (&app.Engine{Client: e.client, Paths: paths, Profile: app.Profile{Name: "test"}}).Session(nil)
	r, err := other.PrepareResume(t.Context(), pastSendID, app.ResumeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	x, _, err := r.Start(t.Context(), app.SendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x.Finish(); err != nil {
		t.Fatal(err)
	}
	if got, want := sentTo(e), []string{"09121110001", "09121110003"}; !slices.Equal(got, want) {
		t.Fatalf("the other process sent to %v, want %v", got, want)
	}

	tm.Send(press("y"))
	waitModel(t, tm, "refused: nothing left", func(m *root) bool {
		return m.modal == nil && strings.Contains(m.lastErr, "nothing left to send")
	})
	if got, want := sentTo(e), []string{"09121110001", "09121110003"}; !slices.Equal(got, want) {
		t.Fatalf("after the console's yes the service got %v, want still %v", got, want)
	}
}

// TestRetryResumesTheSameJournal: the results screen's R sends the items not
// sent as a resume of the same send; one journal holds every pair, and a CLI
// resume of it afterwards finds nothing to send.
func TestRetryResumesTheSameJournal(t *testing.T) {
	t.Parallel()
	credit := int64(4)
	e := newEnv(t, sandbox.Options{Credit: &credit})
	paths := e.opts.Session.Paths // a temporary state directory of its own
	e.opts.Session.Profile.ChunkSize = 4
	tm := e.startOnGroup1(t)
	tm.Send(press("c"))
	typeText(tm, "Hello {name|friend}")
	e.srv.SetCredit(1000)
	tm.Send(press("ctrl+s"))
	waitFor(t, tm, "Send these messages?")
	e.srv.SetCredit(4) // spent elsewhere since the check: the second chunk is refused
	tm.Send(press("y"))
	waitModel(t, tm, "stopped", func(m *root) bool { return m.results.summary != nil && !m.results.running() })
	noDuplicates(t, e, 4)
	e.srv.SetCredit(1000)
	tm.Send(press("R"))
	waitModel(t, tm, "retry asked", func(m *root) bool { return modalTitle(m) == "Retry failed?" })
	tm.Send(press("y"))
	waitModel(t, tm, "retried", func(m *root) bool {
		return m.modal == nil && m.results.summary != nil && !m.results.running() && m.results.summary.Counts.Accepted == 8
	})
	noDuplicates(t, e, 8)
	js, err := config.ListJournals(t.Context(), paths)
	if err != nil {
		t.Fatal(err)
	}
	if len(js) != 1 {
		t.Fatalf("%d journals, want 1 (the retry is a resume of the same send)", len(js))
	}
	if c := js[0].State.Counts(); c.Accepted != 8 || !js[0].State.Complete() {
		t.Fatalf("journal: %+v complete %v", c, js[0].State.Complete())
	}
	if todo := js[0].State.ResumeIndexes(true); len(todo) != 0 {
		t.Fatalf("a CLI resume would send %v again", todo)
	}
}
