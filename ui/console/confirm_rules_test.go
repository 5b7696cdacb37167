package console

import (
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// TestSendConfirmationShowsTheRules: the console shows the same verdict as the
// CLI (model.CheckSend): profile and host, key kind, group by name, sender,
// parts by encoding, credit before and after, time, the first three messages
// in full; the same send again is a repeat, asked about with No by default.
func TestSendConfirmationShowsTheRules(t *testing.T) {
	t.Parallel()
	credit := int64(500)
	e := newEnv(t, sandbox.Options{Credit: &credit})
	e.opts.Session.Profile.KeyKind = "test"
	e.opts.Session.Profile.RepeatWindow = 24 * time.Hour
	e.opts.Now = time.Now // repeats are measured against the journals' real times
	tm := e.startOnGroup1(t)
	tm.Send(press("c"))
	typeText(tm, "سلام {name|دوست}، سفارش شما آماده است.")
	tm.Send(press("ctrl+s"))
	waitFor(t, tm, "Send these messages?")
	view := ""
	waitModel(t, tm, "dialog", func(m *root) bool { view = m.text(); return m.modal != nil })
	for _, want := range []string{
		"Profile:     test on sandbox.test · test key",
		"Source:      group مشتریان تهران (1)",
		"Sender line: 3000505",
		"Recipients:  8",
		"8 UCS-2 → 8 parts",
		"Credit:      500 parts → 492 after",
		"First 3 of 8 messages, as they will be sent:",
	} {
		if !strings.Contains(view, want) {
			t.Errorf("confirmation lacks %q:\n%s", want, view)
		}
	}
	if n := strings.Count(view, "→ 09"); n != 3 {
		t.Errorf("%d sample messages shown, want 3:\n%s", n, view)
	}
	tm.Send(press("y"))
	waitModel(t, tm, "sent", func(m *root) bool { return m.results.summary != nil && !m.results.sending })
	if n := len(e.srv.Sent()); n != 8 {
		t.Fatalf("sent %d, want 8", n)
	}

	// The same messages again: a repeat, named, and enter (the default) says No.
	tm.Send(press("esc"))
	waitModel(t, tm, "main screen", func(m *root) bool { return m.screen == screenMain })
	// The draft went: c opens a new message, and the same text typed again
	// is the repeat.
	writeTemplate(t, tm, "سلام {name|دوست}، سفارش شما آماده است.", 8)
	tm.Send(press("ctrl+s"))
	waitFor(t, tm, "8 of them repeat an earlier send")
	waitModel(t, tm, "dialog", func(m *root) bool { view = m.text(); return m.modal != nil })
	if !strings.Contains(view, "⚠ repeat: 8 of these pairs") || !strings.Contains(view, "the default is No") {
		t.Errorf("repeat not shown:\n%s", view)
	}
	// Neither enter nor y is the repeat's answer: the dialog stays, on No,
	// and says what is (issue 27 item 2: the same y as any send sent them
	// again); n closes it.
	tm.Send(press("enter"))
	tm.Send(press("y"))
	waitModel(t, tm, "still asking", func(m *root) bool {
		return m.modal != nil && strings.Contains(m.text(), "y alone does not send them again: type 8, then enter")
	})
	tm.Send(press("n"))
	waitModel(t, tm, "dialog closed", func(m *root) bool { return m.modal == nil })
	if n := len(e.srv.Sent()); n != 8 {
		t.Fatalf("enter or y on the repeat dialog sent: %d messages, want 8", n)
	}

	// Credit short: a problem, nothing sent.
	e.srv.SetCredit(3)
	tm.Send(press("ctrl+s"))
	waitModel(t, tm, "refused for credit", func(m *root) bool {
		return m.modal == nil && strings.Contains(m.composer.note, "not enough credit: the send needs 8 parts, the account has 3")
	})
	if n := len(e.srv.Sent()); n != 8 {
		t.Fatalf("sent %d with too little credit", n)
	}
}
