package console

import (
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// composeOneRow opens the composer and adds one clean row by hand.
func composeOneRow(t *testing.T, m *root) {
	t.Helper()
	m.send("c", "esc")
	m.Update(composerMsg{Row: &model.PairRow{Recipient: "09121112233", Message: "Hello"}, RowAt: -1})
	if p := m.composer.plan; p == nil || len(p.Items) != 1 || len(p.Invalid()) != 0 {
		t.Fatalf("plan after one clean row: %+v", p)
	}
}

// A profile with no sender lines (only SMSDESK_BASE_URL and SMSDESK_API_KEY):
// ctrl+s focuses the sender field and says why; the typed line is used.
func TestSenderTypedWhenProfileListsNone(t *testing.T) {
	m := newBareRootWith(t, app.Profile{})
	composeOneRow(t, m)
	if v := m.text(); !strings.Contains(v, "sender none (s to type one)") {
		t.Fatalf("composer header without a sender line:\n%s", v)
	}
	m.send("ctrl+s")
	p := m.composer
	if m.modal != nil {
		t.Fatalf("a send without a sender line reached %T", m.modal)
	}
	if !p.senderPick.input.Focused() || !p.Editing() {
		t.Fatal("ctrl+s without a sender line did not focus the sender field")
	}
	v := m.text()
	if !strings.Contains(v, "no sender line: type the line to send from") || !strings.Contains(v, "Sender line for this send: [") {
		t.Fatalf("no message or field on screen:\n%s", v)
	}
	for _, r := range "q3000505" { // q types q: the field has every key
		m.send(string(r))
	}
	if m.quitting() || m.screen != screenComposer {
		t.Fatal("typing q in the sender field acted as a global key")
	}
	if got := p.senderPick.input.Value(); got != "q3000505" {
		t.Fatalf("field = %q", got)
	}
	p.senderPick.input.SetValue(" 3000505 ")
	m.send("enter")
	if p.Editing() || p.senderLine() != "3000505" || p.plan.Sender != "3000505" {
		t.Fatalf("after enter: editing=%v line=%q plan sender=%q", p.Editing(), p.senderLine(), p.plan.Sender)
	}
	if v := m.text(); !strings.Contains(v, "sender 3000505 · rate") {
		t.Fatalf("the status bar does not show the typed sender line:\n%s", v)
	}
	m.send("ctrl+s")
	if _, ok := m.modal.(*confirm); !ok {
		t.Fatalf("with a typed sender, ctrl+s opened %T (note %q)", m.modal, p.note)
	}
	if v := m.text(); !strings.Contains(v, "Sender line: 3000505") {
		t.Fatalf("confirm dialog lacks the typed sender:\n%s", v)
	}
	// With no lines listed, s goes straight to the field (keeping the line).
	m.send("n", "s")
	if !p.senderPick.input.Focused() || p.senderPick.input.Value() != " 3000505 " {
		t.Fatalf("s without lines: focused=%v value=%q", p.senderPick.input.Focused(), p.senderPick.input.Value())
	}
}

// A profile listing lines: s opens a picker of them and "other…"; a typed
// line not in the profile is used only after the operator agrees to add it
// (saved through Options.SaveSenders); esc in the field drops what was typed
// and keeps the line chosen before.
func TestSenderPickerAndExplicitAdd(t *testing.T) {
	var saved []string
	m := newBareRootWith(t, app.Profile{Name: "test", Sender: "10004346", Senders: []string{"3000505", "10004346"}})
	m.c.opts.SaveSenders = func(lines []string) error { saved = lines; return nil }
	composeOneRow(t, m)
	p := m.composer
	if p.senderLine() != "10004346" {
		t.Fatalf("initial sender %q, want the profile's default", p.senderLine())
	}
	m.send("s")
	if _, ok := m.modal.(*linePicker); !ok {
		t.Fatalf("s opened %T, want the line picker", m.modal)
	}
	if v := m.text(); !strings.Contains(v, "› 10004346") || !strings.Contains(v, "other…") {
		t.Fatalf("picker:\n%s", v)
	}
	m.send("up", "enter")
	if m.modal != nil || p.senderLine() != "3000505" || p.plan.Sender != "3000505" {
		t.Fatalf("picked: modal %T line %q plan %q", m.modal, p.senderLine(), p.plan.Sender)
	}
	m.send("s", "esc") // esc keeps the line
	if m.modal != nil || p.senderLine() != "3000505" {
		t.Fatalf("esc in the picker: modal %T line %q", m.modal, p.senderLine())
	}

	// other…, a line typed by accident, esc: dropped, the previous line stays.
	m.send("s", "down", "down", "enter")
	if !p.senderPick.input.Focused() {
		t.Fatal("other… did not focus the field")
	}
	for _, r := range "999" {
		m.send(string(r))
	}
	m.send("esc")
	if p.Editing() || p.senderLine() != "3000505" || p.plan.Sender != "3000505" || p.senderPick.input.Value() != "" {
		t.Fatalf("esc after typing: editing %v line %q plan %q field %q", p.Editing(), p.senderLine(), p.plan.Sender, p.senderPick.input.Value())
	}

	// other…, a new line, enter: asked first; No goes back to the field.
	m.send("s", "down", "down", "enter", "2", "0", "0", "0", "enter")
	_, ok := m.modal.(*confirm)
	if !ok || !strings.Contains(m.text(), "2000 is not one of profile test's sender lines") {
		t.Fatalf("enter on a new line opened %T:\n%s", m.modal, m.text())
	}
	m.send("enter") // the default answer is No
	if m.modal != nil || saved != nil || !p.senderPick.input.Focused() {
		t.Fatalf("No: modal %T saved %v field focused %v", m.modal, saved, p.senderPick.input.Focused())
	}
	m.send("enter", "y")
	if strings.Join(saved, ",") != "3000505,10004346,2000" || p.senderLine() != "2000" || p.plan.Sender != "2000" || p.Editing() {
		t.Fatalf("yes: saved %v line %q plan %q editing %v", saved, p.senderLine(), p.plan.Sender, p.Editing())
	}
	m.send("ctrl+s")
	if v := m.text(); !strings.Contains(v, "Sender line: 2000") {
		t.Fatalf("confirm dialog:\n%s", v)
	}
}

// Against the sandbox with a profile that lists no sender: ctrl+s asks for
// the line (it once panicked here, on an empty list of invalid rows), the
// operator types it, and every message goes from it.
func TestSendWithTypedSenderLine(t *testing.T) {
	e := newEnv(t, sandbox.Options{})
	e.opts.Session.Profile.Sender, e.opts.Session.Profile.Senders = "", nil
	line := e.srv.Senders()[0]
	tm := e.startOnGroup1(t)
	tm.Send(press("c"))
	typeText(tm, "Hello {name}")
	tm.Send(press("esc"))
	tm.Send(press("ctrl+s"))
	waitFor(t, tm, "no sender line: type the line to send from", "Sender line for this send:")
	waitModel(t, tm, "sender field focused", func(m *root) bool {
		return m.composer.senderPick.input.Focused() && m.modal == nil
	})
	typeText(tm, line)
	tm.Send(press("ctrl+s")) // straight from the field
	waitFor(t, tm, "Send these messages?", "Sender line: "+line)
	if n := len(e.srv.Sent()); n != 0 {
		t.Fatalf("%d messages sent before confirming", n)
	}
	tm.Send(press("y"))
	waitModel(t, tm, "sent", func(m *root) bool {
		return m.screen == screenResults && m.results.summary != nil && !m.results.sending
	})
	sent := e.srv.Sent()
	if len(sent) != 8 {
		t.Fatalf("sandbox got %d messages, want 8", len(sent))
	}
	for _, s := range sent {
		if s.Sender != line {
			t.Fatalf("sent from %q, want the typed %q", s.Sender, line)
		}
	}
	finalView(t, tm)
}
