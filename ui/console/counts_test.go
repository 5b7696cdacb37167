package console

import (
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/model/eventually"
	"github.com/smsdesk/smsdesk/ui/app"
)

// storedCount reads a group's remembered contact count from profile test's
// groups file.
func storedCount(t *testing.T, paths config.Paths, id model.ID) int {
	t.Helper()
	return storedCountOf(t, paths, "test", id)
}

// storedCountOf reads a group's remembered contact count (-1 unknown) from
// a profile's groups file.
func storedCountOf(t *testing.T, paths config.Paths, profile string, id model.ID) int {
	t.Helper()
	known, err := config.LoadGroups(paths, profile)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range known {
		if k.ID == id {
			return k.Contacts
		}
	}
	t.Fatalf("group %s is not in the groups file", id)
	return 0
}

// TestContactCountsRemembered: a listed group's count lands in the profile's
// groups file and is shown on the next start before the group is opened; the
// total the service announces shows while pages are still loading.
func TestContactCountsRemembered(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	dir := t.TempDir()
	paths := config.PathsIn(dir+"/config", dir+"/state")
	t.Cleanup(func() { paths.CloseLedger() })
	for _, g := range []model.Group{{ID: "1", Name: "مشتریان تهران"}, {ID: "4", Name: "Newsletter"}} {
		if err := config.TrackGroup(paths, "test", g); err != nil {
			t.Fatal(err)
		}
	}
	if n := storedCount(t, paths, "4"); n != -1 {
		t.Fatalf("group 4 starts with count %d, want -1 (unknown)", n)
	}
	e.opts.Session.Paths = paths

	tm := e.startOnGroup1(t)
	tm.Send(press("down"))
	tm.Send(press("enter"))
	waitModel(t, tm, "group 4 loaded", func(m *root) bool {
		return m.contacts.group.ID == "4" && !m.contacts.loading && m.groups.counts["4"] == 300
	})
	eventually.True(t, waitLimit, func() bool {
		return storedCount(t, paths, "4") == 300 && storedCount(t, paths, "1") == 8
	}, func() string { return "waiting for the counts to be remembered (group 1: 8, group 4: 300)" })
	finalView(t, tm)

	// Next start: group 4's count is shown without opening it.
	tm = e.start(t)
	waitModel(t, tm, "remembered count shown", func(m *root) bool {
		return !m.groups.loading && m.groups.counts["4"] == 300 && m.contacts.group.ID == "1"
	})
	waitFor(t, tm, "Newsletter 4", "300")
	finalView(t, tm)
}

// TestContactCountShownWhileLoading: the total a page announces reaches the
// groups pane at once, and is not remembered until the listing is complete.
func TestContactCountShownWhileLoading(t *testing.T) {
	t.Parallel()
	sess := testSession(t, nil, app.Profile{Name: "default"})
	if err := config.TrackGroup(sess.Paths, sess.Profile.Name, model.Group{ID: "7", Name: "Big"}); err != nil {
		t.Fatal(err)
	}
	m := newRoot(t.Context(), Options{Session: sess, Now: fixedClock})
	m.screen = screenMain
	m.Update(groupsLoadedMsg{Groups: []model.Group{{ID: "7", Name: "Big"}}})
	m.contacts.group, m.contacts.loadID, m.contacts.loading = model.Group{ID: "7"}, 3, true
	drain(m, m.contacts.Update(contactsProgressMsg{GroupID: "7", LoadID: 3,
		Progress: client.ListProgress{Loaded: 50, Total: 1200, Page: 1}}))
	if got := m.groups.counts["7"]; got != 1200 {
		t.Fatalf("groups pane shows %d while loading, want 1200", got)
	}
	if n := storedCountOf(t, sess.Paths, "default", "7"); n != -1 {
		t.Fatalf("a partial count was remembered: %d", n)
	}
	// A late page for another load changes nothing.
	drain(m, m.contacts.Update(contactsProgressMsg{GroupID: "7", LoadID: 2,
		Progress: client.ListProgress{Loaded: 50, Total: 9, Page: 1}}))
	if got := m.groups.counts["7"]; got != 1200 {
		t.Fatalf("a stale load changed the count to %d", got)
	}
	cs := make([]model.Contact, 3)
	for i := range cs {
		cs[i] = model.Contact{ID: model.ID(string(rune('1' + i))), Mobile: "0912000000" + string(rune('1'+i))}
	}
	drain(m, m.contacts.Update(contactsLoadedMsg{GroupID: "7", LoadID: 3, Contacts: cs}))
	if n := storedCountOf(t, sess.Paths, "default", "7"); n != 3 || m.groups.counts["7"] != 3 {
		t.Fatalf("after loading: remembered %d, shown %d; want 3", n, m.groups.counts["7"])
	}
}

// drain runs cmd and feeds the count and status messages it yields back to
// the root, as the program would (batches included; timers are not run).
func drain(m *root, cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			drain(m, c)
		}
	case contactCountMsg, statusMsg:
		_, next := m.Update(msg)
		drain(m, next)
	}
}
