package console

import (
	"fmt"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/model"
)

// TestContactTableAsksOnlyItsNumbers: with thousands of numbers on the
// opt-out list the contact table looks up the numbers of the contacts it
// loaded and holds theirs alone (it read the whole list, which may hold
// millions, at every group opened); the contact on it is marked ⊘.
func TestContactTableAsksOnlyItsNumbers(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	sess := e.opts.Session
	first := "09121234567" // group 1's first contact
	others := make([]string, 3000)
	for i := range others {
		others[i] = fmt.Sprintf("0939%07d", i)
	}
	if _, err := sess.AddOptOuts(t.Context(), append(others, first), "", ""); err != nil {
		t.Fatal(err)
	}
	tm := e.startOnGroup1(t)
	tm.Send(press("tab"))
	waitModel(t, tm, "the contact on the list marked", func(m *root) bool {
		return strings.Contains(m.text(), "⊘ "+first)
	})
	waitModel(t, tm, "only its numbers held", func(m *root) bool {
		return len(m.contacts.optOuts) == 1 && len(m.contacts.optOuts[first]) == 1 && len(m.contacts.optOutAt) == 8
	})
}

// TestComposerLooksUpItsRows: a row typed in the composer whose number is
// on the opt-out list (not a contact of the group) is counted out, as the
// confirmation counts it: the composer looks up its rows' numbers, not
// only the group's.
func TestComposerLooksUpItsRows(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	sess := e.opts.Session
	listed := "09391112233"
	if _, err := sess.AddOptOuts(t.Context(), []string{listed}, "", ""); err != nil {
		t.Fatal(err)
	}
	tm := e.startOnGroup1(t)
	tm.Send(press("c"))
	waitModel(t, tm, "the composer", func(m *root) bool { return m.screen == screenComposer })
	tm.Send(press("esc"))
	for _, to := range []string{listed, "09121112233"} {
		tm.Send(composerMsg{Row: &model.PairRow{Recipient: to, Message: "Hello"}, RowAt: -1})
	}
	waitFor(t, tm, "Totals: 1 recipients · ", " · 1 opted out")
	tm.Send(press("ctrl+s"))
	waitModel(t, tm, "the confirmation", func(m *root) bool {
		return m.modal != nil && strings.Contains(m.modal.View(), "Recipients:  1")
	})
	tm.Send(press("n"))
}

// TestComposerChecksOnceItsRowsAreLookedUp: ctrl+s before the look-up of
// new rows has answered waits for it, then checks the plan as marked.
// Checked at once, the answer marking a row while the check ran made it
// refuse "the plan changed while it was checked: ctrl+s again" (the rows of
// a file just opened; TestSameRulesAsTheCLI failed so in the full run).
func TestComposerChecksOnceItsRowsAreLookedUp(t *testing.T) {
	t.Parallel()
	m := newBareRoot(t)
	m.send("c", "esc")
	for _, to := range []string{"09121112233", "09121112234"} {
		m.Update(composerMsg{Row: &model.PairRow{Recipient: to, Message: "Hello"}, RowAt: -1})
	}
	m.Update(press("ctrl+s"))
	if p := m.composer; !p.sendAfterLookup || strings.HasPrefix(p.note, "checking the plan") || m.modal != nil {
		t.Fatalf("ctrl+s before the rows were looked up: note %q, modal %T", p.note, m.modal)
	}
	m.Update(optOutsMsg{For: forComposer, Seq: m.composer.optOutSeq, List: model.NewOptOutList([]model.OptOut{{Mobile: "09121112233"}})})
	if p := m.composer; !strings.HasPrefix(p.note, "checking the plan") || strings.Join(p.plan.OptedOutRecipients(), " ") != "09121112233" {
		t.Fatalf("once looked up: note %q, opted out %v", p.note, p.plan.OptedOutRecipients())
	}
}
