package console

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
	"github.com/smsdesk/smsdesk/ui/app/apptest"
)

// TestSendBegunWhileConfirmingIsARepeat: the console's confirmation is on
// the screen when another smsdesk (the command line, through the same
// application layer and state directory) sends the same pairs. The
// console's yes is then refused, naming that send, and the console makes
// no send request: the facts it asked with are checked again under the
// send-start lock (app.PendingSend.Start), as the CLI's are in
// TestSendBegunWhileAskingIsARepeat.
//
// A repeat question is no exception: its yes is to the earlier sends it
// names, not to one begun while it was on the screen.
func TestSendBegunWhileConfirmingIsARepeat(t *testing.T) {
	t.Parallel()
	for _, repeat := range []bool{false, true} {
		name := "the confirmation"
		if repeat {
			name = "the repeat question"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sendBegunWhileConfirming(t, repeat)
		})
	}
}

func sendBegunWhileConfirming(t *testing.T, repeat bool) {
	e := newEnv(t, sandbox.Options{})
	sess := e.opts.Session
	sess.Profile.RepeatWindow = 24 * time.Hour
	tm := e.startOnGroup1(t)
	tm.Send(press("c"))
	waitModel(t, tm, "composer", func(m *root) bool { return m.screen == screenComposer && m.composer.Editing() })
	typeText(tm, "Hello {name}")
	var plan *model.SendPlan
	waitModel(t, tm, "8 planned rows", func(m *root) bool {
		plan = m.composer.plan
		return plan != nil && len(plan.Items) == 8 && plan.OK()
	})
	tm.Send(press("esc"))

	// The other smsdesk: its own client, the same profile and state.
	cl, err := client.New(e.base, e.srv.Key(), client.WithRatePerMinute(60000), heldRequests)
	if err != nil {
		t.Fatal(err)
	}
	other := (&app.Engine{Client: cl, Paths: sess.Paths, Profile: sess.Profile, Now: sess.Now, Sleep: sess.Sleep}).Session(nil)
	otherSend := func() string {
		t.Helper()
		run := apptest.Start(t, context.Background(), other, plan, app.Source{Name: "the other terminal"}, app.SendOptions{})
		if _, err := run.Finish(); err != nil {
			t.Fatal(err)
		}
		return run.ID()
	}
	want := 8
	if repeat { // an earlier send the question names
		otherSend()
		want += 8
	}
	tm.Send(press("ctrl+s"))
	waitModel(t, tm, "the question", func(m *root) bool {
		d, ok := m.modal.(*confirm)
		return ok && strings.Contains(d.title, "Send these messages?") && strings.Contains(d.title, "repeat") == repeat
	})
	id := otherSend() // while the question shows
	before := e.srv.RequestsTo("POST", "/sms/send-pair")
	if len(e.srv.Sent()) != want || before == 0 {
		t.Fatalf("the other sends: %d messages in %d requests, want %d", len(e.srv.Sent()), before, want)
	}

	if repeat {
		typeText(tm, "8") // a repeat's yes is its count typed
		tm.Send(press("enter"))
	} else {
		tm.Send(press("y"))
	}
	var said string
	waitModel(t, tm, "the refusal", func(m *root) bool { said = m.fullErr; return said != "" })
	for _, words := range []string{"8 of 8 pairs are in send " + id, "which another smsdesk began while this one was being checked", "nothing was sent"} {
		if !strings.Contains(said, words) {
			t.Errorf("the refusal lacks %q: %s", words, said)
		}
	}
	waitModel(t, tm, "no send of the console's", func(m *root) bool { return m.results.jobID == "" && !m.results.running() })
	if n := e.srv.RequestsTo("POST", "/sms/send-pair") - before; n != 0 {
		t.Errorf("the console made %d send requests after the refusal", n)
	}
	if n := len(e.srv.Sent()); n != want {
		t.Errorf("the sandbox has %d messages, want the other sends' %d", n, want)
	}
}
