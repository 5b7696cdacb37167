package console

import (
	"context"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/model"
)

func TestMainScreen(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	tm := e.start(t)
	waitModel(t, tm, "group 1 loaded", func(m *root) bool {
		return !m.contacts.loading && len(m.contacts.rows) == 8 && m.groups.counts["1"] == 8
	})
	waitFor(t, tm, "Groups (3)")
	requireGolden(t, finalView(t, tm))
}

func TestCreateGroup(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	tm := e.startOnGroup1(t)
	tm.Send(press("n"))
	typeText(tm, "Night shift")
	tm.Send(press("tab"))
	typeText(tm, "on call")
	tm.Send(press("enter"))
	waitModel(t, tm, "group created and opened", func(m *root) bool {
		n, counted := m.groups.counts[m.contacts.group.ID]
		return len(m.groups.groups) == 4 && m.contacts.group.Name == "Night shift" && !m.contacts.loading && counted && n == 0 &&
			strings.HasPrefix(m.note, "created group")
	})
	gs := e.knownGroups(t)
	if len(gs) != 4 || gs[3].Name != "Night shift" || gs[3].ID.IsZero() {
		t.Fatalf("store after create: %+v", gs)
	}
	// The service has it: listing its contacts works (and finds none).
	cs, err := e.client.ListContacts(context.Background(), gs[3].ID, nil)
	if err != nil || len(cs) != 0 {
		t.Fatalf("new group on the service: %v, %d contacts", err, len(cs))
	}
	requireGolden(t, finalView(t, tm))
}

// TestCreateGroupAsksAboutADuplicate: a new group named as a known one is
// asked about (the application layer's reason; the default is No): no
// creates nothing, y creates a second group of that name.
func TestCreateGroupAsksAboutADuplicate(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	tm := e.startOnGroup1(t)
	ask := func() {
		tm.Send(press("n"))
		waitModel(t, tm, "new group form", func(m *root) bool { _, ok := m.modal.(*form); return ok })
		typeText(tm, "Support Team ")
		tm.Send(press("enter"))
		waitModel(t, tm, "the question", func(m *root) bool {
			d, ok := m.modal.(*confirm)
			return ok && strings.Contains(d.body, `profile test already calls group 2 "Support team"`)
		})
	}
	before := e.srv.Requests()
	ask()
	tm.Send(press("enter")) // No
	waitModel(t, tm, "declined", func(m *root) bool { return m.modal == nil && m.groups.working == "" })
	if n := e.srv.Requests() - before; n != 0 || len(e.knownGroups(t)) != 3 {
		t.Fatalf("declined: %d requests, %d known groups", n, len(e.knownGroups(t)))
	}
	ask()
	tm.Send(press("y"))
	waitModel(t, tm, "created all the same", func(m *root) bool {
		return len(m.groups.groups) == 4 && m.contacts.group.Name == "Support Team" && strings.HasPrefix(m.note, "created group")
	})
	if gs := e.knownGroups(t); len(gs) != 4 || gs[3].Name != "Support Team" || gs[3].ID == "2" {
		t.Fatalf("known groups: %+v", gs)
	}
	_ = finalView(t, tm)
}

func TestTrackGroup(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	tm := e.startOnGroup1(t)
	tm.Send(press("t"))
	typeText(tm, "4")
	tm.Send(press("tab"))
	typeText(tm, "Newsletter")
	tm.Send(press("enter"))
	waitModel(t, tm, "group 4 loaded", func(m *root) bool {
		return m.contacts.group.ID == "4" && !m.contacts.loading && len(m.contacts.rows) == 300
	})
	waitModel(t, tm, "count shown", func(m *root) bool { return m.groups.counts["4"] == 300 && strings.HasPrefix(m.note, "tracking group") })
	requireGolden(t, finalView(t, tm))
}

func TestAddContact(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	tm := e.startOnGroup1(t)
	tm.Send(press("tab"))
	tm.Send(press("n"))
	typeText(tm, "۰۹۱۲ ۹۹۹ ۸۸۷۷") // Persian digits and spaces: normalised before sending
	tm.Send(press("tab"))
	typeText(tm, "Sara q")
	tm.Send(press("enter"))
	waitModel(t, tm, "contact added", func(m *root) bool {
		return len(m.contacts.rows) == 9 && m.groups.counts["1"] == 9 && strings.HasPrefix(m.note, "✓ added") // the note comes in a message of its own
	})
	cs, err := e.client.ListContacts(context.Background(), "1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !hasContact(cs, "09129998877", "Sara q") {
		t.Fatalf("service has no 09129998877 Sara q: %+v", cs)
	}
	requireGolden(t, finalView(t, tm))
}

func TestAddContactRejectsBadMobile(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	tm := e.startOnGroup1(t)
	tm.Send(press("tab"))
	tm.Send(press("n"))
	typeText(tm, "12345")
	tm.Send(press("enter"))
	waitModel(t, tm, "error in the form", func(m *root) bool {
		f, ok := m.modal.(*form)
		return ok && strings.HasPrefix(f.err, "Mobile:")
	})
	before := e.srv.Requests()
	tm.Send(press("esc"))
	waitModel(t, tm, "form closed", func(m *root) bool { return m.modal == nil })
	if e.srv.Requests() != before {
		t.Fatalf("a rejected mobile reached the service")
	}
	_ = finalView(t, tm)
}

func TestFilterAndDelete(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	tm := e.startOnGroup1(t) // group 1's count settled: the golden shows it
	tm.Send(press("down"))
	tm.Send(press("enter"))
	waitModel(t, tm, "group 2 loaded", func(m *root) bool {
		return m.contacts.group.ID == "2" && len(m.contacts.rows) == 5 && !m.contacts.loading
	})
	var victim model.Contact
	waitModel(t, tm, "pick a contact", func(m *root) bool { victim = m.contacts.rows[1].contact; return true })
	tm.Send(press("tab"))
	tm.Send(press("/"))
	typeText(tm, strings.ToLower(victim.Mobile[len(victim.Mobile)-5:]))
	waitModel(t, tm, "filtered to one", func(m *root) bool { return len(m.contacts.index) == 1 })
	tm.Send(press("enter")) // leave the filter, keep it
	tm.Send(press("d"))
	waitFor(t, tm, "Delete contact?")
	tm.Send(press("enter")) // default answer is No
	waitModel(t, tm, "dialog closed, nothing deleted", func(m *root) bool { return m.modal == nil && len(m.contacts.rows) == 5 })
	tm.Send(press("d"))
	tm.Send(press("y"))
	// The count and the status bar's note follow the rows in messages of
	// their own: the golden is the frame once all three have come.
	waitModel(t, tm, "deleted", func(m *root) bool {
		return len(m.contacts.rows) == 4 && len(m.contacts.index) == 0 && m.groups.counts["2"] == 4 && strings.HasPrefix(m.note, "✓ deleted")
	})
	cs, err := e.client.ListContacts(context.Background(), "2", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 4 || hasContact(cs, victim.Mobile, victim.Name) {
		t.Fatalf("service still has %s: %+v", victim.Mobile, cs)
	}
	requireGolden(t, finalView(t, tm))
}

func hasContact(cs []model.Contact, mobile, name string) bool {
	for _, c := range cs {
		if c.Mobile == mobile && c.Name == name {
			return true
		}
	}
	return false
}
