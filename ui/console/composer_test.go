package console

import (
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/model"
)

// The editor's counter follows model.Parts as the operator types, Persian
// included, and typing q in the editor types q.
func TestComposerLiveCounter(t *testing.T) {
	m := newBareRoot(t)
	m.contacts.group = model.Group{ID: "1", Name: "G"}
	m.send("c")
	if m.screen != screenComposer || !m.composer.Editing() {
		t.Fatal("c did not open the composer with the editor focused")
	}
	text := strings.Repeat("س", 70)
	for _, r := range text {
		m.Update(press(string(r)))
	}
	if !strings.Contains(m.text(), "70 chars · UCS-2 · 70 units · 1 part · 0 left in this part (70 per part)") {
		t.Fatalf("counter at 70 Persian chars:\n%s", m.text())
	}
	m.send("q")
	if m.quitting() || !strings.Contains(m.text(), "71 chars · UCS-2 · 71 units · 2 parts · 63 left in this part (67 per part)") {
		t.Fatalf("q in the editor: quitting=%v\n%s", m.quitting(), m.text())
	}
	m.send("ctrl+c")
	if m.quitting() || m.composer.Editing() {
		t.Fatal("ctrl+c in the editor should leave it, not quit")
	}
}

func TestComposerRowsByHand(t *testing.T) {
	m := newBareRoot(t)
	m.send("c", "esc", "a")
	f, ok := m.modal.(*form)
	if !ok {
		t.Fatal("a did not open the row form")
	}
	f.fields[0].input.SetValue("+98 912 111 2233")
	f.fields[1].input.SetValue("Hello")
	m.Update(press("enter"))
	// The form's submit answers with a composerMsg; deliver it as the program would.
	m.Update(composerMsg{Row: &model.PairRow{Recipient: "+98 912 111 2233", Message: "Hello"}, RowAt: -1})
	m.Update(composerMsg{Row: &model.PairRow{Recipient: "12", Message: ""}, RowAt: -1})
	p := m.composer
	if len(p.plan.Items) != 2 || p.plan.Items[0].Recipient != "09121112233" {
		t.Fatalf("plan items: %+v", p.plan.Items)
	}
	if len(p.plan.Items[1].Problems) == 0 {
		t.Fatal("a bad row has no problems")
	}
	m.send("ctrl+s")
	if m.modal != nil {
		t.Fatal("a plan with problems reached the confirm dialog")
	}
	if !strings.Contains(p.note, "1 of 2 rows in the composer cannot be sent") {
		t.Fatalf("note %q", p.note)
	}
	m.send("down", "x") // remove the bad row
	m.send("ctrl+s")
	if _, ok := m.modal.(*confirm); !ok {
		t.Fatalf("a clean plan did not ask for confirmation (modal %T, note %q)", m.modal, p.note)
	}
	if v := m.text(); !strings.Contains(v, "Recipients:  1") || !strings.Contains(v, "Sender line: 3000505") {
		t.Fatalf("confirm dialog:\n%s", v)
	}
}
