package console

import (
	"testing"

	"github.com/smsdesk/smsdesk/model"
)

// TestContactsTitle: the contact pane's title names the group's id once,
// and its name when it has one of its own: a group tracked by id alone is
// named "group 1", and the title read "group 1 · group 1".
func TestContactsTitle(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		group model.Group
		rows  int
		want  string
	}{
		{model.Group{}, 0, "Contacts"},
		{model.Group{ID: "1", Name: "group 1"}, 8, "Contacts (8) · group 1"},
		{model.Group{ID: "1"}, 8, "Contacts (8) · group 1"},
		{model.Group{ID: "4", Name: "Newsletter"}, 3, "Contacts (3) · group 4 · Newsletter"},
		{model.Group{ID: "2", Name: "group 1"}, 1, "Contacts (1) · group 2 · group 1"},
	} {
		p := &contactsPane{group: tc.group, rows: make([]contactRow, tc.rows), index: make([]int, tc.rows)}
		if got := p.title(); got != tc.want {
			t.Errorf("title of %+v = %q, want %q", tc.group, got, tc.want)
		}
	}
}

func TestGroupText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		group model.Group
		want  string
	}{
		{model.Group{ID: "1", Name: "group 1"}, "group 1"},
		{model.Group{ID: "1"}, "group 1"},
		{model.Group{ID: "4", Name: "Newsletter"}, "group Newsletter (4)"},
	} {
		if got := groupText(tc.group); got != tc.want {
			t.Errorf("groupText(%+v) = %q, want %q", tc.group, got, tc.want)
		}
	}
}

// TestTemplateOver: the composer's header names the group a template goes
// over, or says none is open (it read "template over  (0 contacts)").
func TestTemplateOver(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		group    model.Group
		contacts int
		want     string
	}{
		{model.Group{}, 0, "template over no group: open one first, or o opens a pairs CSV"},
		{model.Group{ID: "4", Name: "Newsletter"}, 300, "template over Newsletter (300 contacts)"},
		{model.Group{ID: "1"}, 1, "template over group 1 (1 contact)"},
	} {
		p := &composerPane{group: tc.group, contacts: make([]model.ContactRow, tc.contacts)}
		if got := p.templateOver(); got != tc.want {
			t.Errorf("templateOver of %+v = %q, want %q", tc.group, got, tc.want)
		}
	}
}
