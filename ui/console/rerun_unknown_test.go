package console

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// TestRecomposeAfterUnknownIsAsked (issue 23 item 1, the console's half of
// ui/cli's TestRerunAfterUnknownIsRefused): a send whose answers the
// service lost ends with every outcome unknown. Composing the same pairs
// again does not send them silently: the confirmation warns, naming the
// earlier send and its unknown count, and its default (enter) is No; no
// send request is made.
func TestRecomposeAfterUnknownIsAsked(t *testing.T) {
	t.Parallel()
	var lose atomic.Bool
	lose.Store(true)
	e := newEnvBehind(t, sandbox.Options{}, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/sms/send-pair") && lose.Load() {
				sandbox.ServeThenLose(next, w, r) // processed, then the answer is lost
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	e.opts.Session.Profile.RepeatWindow = 24 * time.Hour
	tm := e.startOnGroup1(t)
	tm.Send(press("c"))
	waitModel(t, tm, "composer", func(m *root) bool { return m.screen == screenComposer && m.composer.Editing() })
	typeText(tm, "Hello {name}")
	tm.Send(press("esc"))
	tm.Send(press("ctrl+s"))
	waitFor(t, tm, "Send these messages?")
	tm.Send(press("y"))
	var id string
	waitModel(t, tm, "the send over, every outcome unknown", func(m *root) bool {
		id = m.results.jobID
		return m.results.summary != nil && !m.results.sending && !m.results.polling && m.results.summary.Counts.Unknown == 8
	})
	if n := len(e.srv.Sent()); n != 8 {
		t.Fatalf("the service took %d messages, want 8 (answers lost)", n)
	}
	lose.Store(false) // the service answers again: nothing stops a resend but smsdesk
	before := e.srv.RequestsTo("POST", "/sms/send-pair")

	tm.Send(press("esc"))
	waitModel(t, tm, "main screen", func(m *root) bool { return m.screen == screenMain })
	writeTemplate(t, tm, "Hello {name}", 8) // the draft went: the same text, written again
	tm.Send(press("ctrl+s"))
	var view string
	waitModel(t, tm, "the repeat question", func(m *root) bool {
		d, ok := m.modal.(*confirm)
		if !ok {
			return false
		}
		view = d.title + "\n" + d.body // the body as given, before it is wrapped to the screen
		return strings.Contains(view, "repeat an earlier send")
	})
	for _, want := range []string{"8 of them repeat an earlier send", "may already have gone: send " + id, "left their outcome unknown",
		"(8 with an unknown outcome)", "the default is No"} {
		if !strings.Contains(view, want) {
			t.Errorf("the question lacks %q:\n%s", want, view)
		}
	}
	// The safe way first (issue 27 item 4): R in the history on that send,
	// which never sends an unknown one; then the repeat's own answer.
	safe, repeat := strings.Index(view, "First, the safe way: h, then R on send "+id+" sends what it never sent"), strings.Index(view, "Type 8, then enter")
	if safe < 0 || repeat < safe {
		t.Errorf("the question does not name the safe way before the repeat:\n%s", view)
	}
	tm.Send(press("enter")) // not the repeat's answer: the question stays, on No
	tm.Send(press("n"))
	waitModel(t, tm, "dialog closed", func(m *root) bool { return m.modal == nil })
	if n := e.srv.RequestsTo("POST", "/sms/send-pair") - before; n != 0 {
		t.Errorf("the second compose made %d send requests", n)
	}
	if n := len(e.srv.Sent()); n != 8 {
		t.Errorf("the service holds %d messages, want the first send's 8", n)
	}
}
