package console

import (
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// TestGroupListedWholeBehindLaravelLinks: a group of 1,200 at a service
// whose next links drop per_page (Laravel's paginator) opens with each
// contact once and the count 1,200 (before: 1,685 rows, 485 of them copies).
func TestGroupListedWholeBehindLaravelLinks(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{BigGroup: 1200, PageSize: 15, LinksWithoutPerPage: true})
	dir := t.TempDir()
	paths := config.PathsIn(dir+"/config", dir+"/state")
	t.Cleanup(func() { paths.CloseLedger() })
	if err := config.TrackGroup(paths, "test", model.Group{ID: "5", Name: "Paging drill"}); err != nil {
		t.Fatal(err)
	}
	e.opts.Session.Paths = paths
	tm := e.start(t)
	waitModel(t, tm, "group 5 loaded", func(m *root) bool {
		return m.contacts.group.ID == "5" && !m.contacts.loading && len(m.contacts.rows) > 0
	})
	var rows, distinct, count int
	waitModel(t, tm, "group 5 counted", func(m *root) bool {
		ids := map[string]bool{}
		for _, r := range m.contacts.rows {
			ids[r.contact.ID.String()] = true
		}
		rows, distinct, count = len(m.contacts.rows), len(ids), m.groups.counts["5"]
		return count != 0
	})
	if rows != 1200 || distinct != 1200 || count != 1200 {
		t.Errorf("%d rows, %d distinct, count %d; want 1200, each once", rows, distinct, count)
	}
	if reqs := e.srv.RequestsTo("GET", "/contact-groups/5/contacts"); reqs != 3 {
		t.Errorf("%d list requests, want 3 of 500", reqs)
	}
	finalView(t, tm)
}
