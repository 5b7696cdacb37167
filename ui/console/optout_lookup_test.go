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
	if _, err := sess.AddOptOuts(append(others, first), "", ""); err != nil {
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
	if _, err := sess.AddOptOuts([]string{listed}, "", ""); err != nil {
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
