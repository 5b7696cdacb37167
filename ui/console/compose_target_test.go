package console

import (
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// TestComposeOverTheHighlightedGroup: the cursor moved to another group
// without enter; c composes over the group under the cursor (loading it
// first), never over the one still shown in the contacts pane.
func TestComposeOverTheHighlightedGroup(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	tm := e.startOnGroup1(t)
	tm.Send(press("down")) // highlight group 2; group 1 stays loaded beside it
	waitModel(t, tm, "group 2 highlighted, group 1 shown", func(m *root) bool {
		g, ok := m.groups.selected()
		return ok && g.ID == "2" && m.contacts.group.ID == "1"
	})
	tm.Send(press("c"))
	waitModel(t, tm, "composer over group 2", func(m *root) bool {
		return m.screen == screenComposer && m.composer.group.ID == "2" && len(m.composer.contacts) == len(m.contacts.rows) && len(m.composer.contacts) > 0
	})
	var want []string
	waitModel(t, tm, "group 2 contacts", func(m *root) bool {
		for _, c := range m.composer.contacts {
			want = append(want, c.Mobile)
		}
		return true
	})
	got, err := e.client.ListContacts(t.Context(), "2", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("composer has %d contacts, group 2 has %d", len(want), len(got))
	}
	for i := range got {
		if got[i].Mobile != want[i] {
			t.Fatalf("contact %d: composer %s, group 2 %s", i, want[i], got[i].Mobile)
		}
	}
}
