package console

import (
	"regexp"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/client/dispatch"
	"github.com/smsdesk/smsdesk/client/sandbox"
)

var jobID = regexp.MustCompile(`(\d{8}-\d{6}-)[0-9a-f]{6}`)

func TestComposeFromTemplateAndSend(t *testing.T) {
	e := newEnv(t, sandbox.Options{})
	tm := e.startOnGroup1(t)
	tm.Send(press("c"))
	waitModel(t, tm, "composer with the editor focused", func(m *root) bool { return m.screen == screenComposer && m.composer.Editing() })
	typeText(tm, "سلام {name}، سفارش شما آماده است. q")
	waitModel(t, tm, "8 planned rows", func(m *root) bool {
		return m.composer.plan != nil && len(m.composer.plan.Items) == 8 && m.composer.plan.OK()
	})
	tm.Send(press("esc")) // leave the editor
	waitFor(t, tm, "Totals: 8 recipients")
	snapshot := ""
	waitModel(t, tm, "composer frame", func(m *root) bool { snapshot = m.View(); return true })
	if !strings.Contains(snapshot, "UCS-2") || !strings.Contains(snapshot, "left in this part") {
		t.Fatalf("composer lacks the live counter:\n%s", snapshot)
	}
	namedGolden(t, "composer", snapshot)

	tm.Send(press("ctrl+s"))
	waitFor(t, tm, "Send these messages?")
	if n := len(e.srv.Sent()); n != 0 {
		t.Fatalf("%d messages sent before confirming", n)
	}
	tm.Send(press("y"))
	waitModel(t, tm, "send and delivery polling over", func(m *root) bool {
		return m.screen == screenResults && m.results.jobID != "" && !m.results.sending && !m.results.polling
	})
	sent := e.srv.Sent()
	if len(sent) != 8 {
		t.Fatalf("sandbox got %d messages, want 8", len(sent))
	}
	for _, s := range sent {
		if !strings.HasPrefix(s.Message, "سلام ") || strings.Contains(s.Message, "{name}") || s.Sender != "3000505" {
			t.Fatalf("sent %+v: template not rendered per contact", s)
		}
	}
	var accepted int
	waitModel(t, tm, "counts", func(m *root) bool {
		for _, r := range m.results.results {
			if r.State == dispatch.StateAccepted && r.MessageID != "" && r.Delivery != "" {
				accepted++
			}
		}
		return true
	})
	if accepted != 8 {
		t.Fatalf("%d results accepted with a message id and a delivery state, want 8", accepted)
	}
	requireGolden(t, jobID.ReplaceAllString(finalView(t, tm), "${1}XXXXXX"))
}

func TestSendCancelThenRetry(t *testing.T) {
	e := newEnv(t, sandbox.Options{})
	slow, err := client.New(e.clientBase(), e.srv.Key(), client.WithRatePerMinute(600))
	if err != nil {
		t.Fatal(err)
	}
	e.opts.Client = slow
	e.opts.Profile.ChunkSize = 10
	_ = e.groups.Track(groupNewsletter)
	tm := e.start(t)
	waitModel(t, tm, "groups", func(m *root) bool { return len(m.groups.groups) == 4 })
	for range 3 {
		tm.Send(press("down"))
	}
	tm.Send(press("enter"))
	waitModel(t, tm, "300 contacts", func(m *root) bool {
		return m.contacts.group.ID == "4" && len(m.contacts.rows) == 300 && !m.contacts.loading
	})
	tm.Send(press("c"))
	typeText(tm, "Hello {name}")
	tm.Send(press("ctrl+s"))
	waitFor(t, tm, "Recipients:  300")
	tm.Send(press("y"))
	waitModel(t, tm, "some sent", func(m *root) bool { return m.results.done >= 40 })
	tm.Send(press("esc")) // cancel: stops after the chunk in flight
	waitModel(t, tm, "send stopped", func(m *root) bool { return m.results.summary != nil && !m.results.sending })
	first := len(e.srv.Sent())
	var queued, accepted int
	waitModel(t, tm, "tally", func(m *root) bool {
		queued, accepted = 0, 0
		for _, r := range m.results.results {
			switch r.State {
			case dispatch.StateQueued:
				queued++
			case dispatch.StateAccepted:
				accepted++
			}
		}
		return m.results.summary.Interrupted
	})
	if first >= 300 || first%10 != 0 || accepted != first || queued != 300-first {
		t.Fatalf("after cancel: service has %d, view shows %d accepted and %d queued", first, accepted, queued)
	}
	tm.Send(press("R"))
	waitFor(t, tm, "Retry failed?")
	tm.Send(press("y"))
	waitModel(t, tm, "retry sent", func(m *root) bool {
		return !m.results.sending && m.results.summary != nil && m.results.total == 300-first
	})
	sent := e.srv.Sent()
	if len(sent) != 300 {
		t.Fatalf("after retry the service has %d messages, want 300", len(sent))
	}
	seen := map[string]bool{}
	for _, s := range sent {
		if seen[s.Recipient] {
			t.Fatalf("%s got two messages", s.Recipient)
		}
		seen[s.Recipient] = true
	}
	_ = finalView(t, tm)
}
