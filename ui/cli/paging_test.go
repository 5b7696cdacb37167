package cli

import (
	"encoding/json"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// TestContactsListFollowsLaravelLinks: a service whose next links drop
// per_page (Laravel's paginator) lists its 1,200 contacts each once, in 3
// requests of 500 (before: 1,200 + 485 copies in 80 requests).
func TestContactsListFollowsLaravelLinks(t *testing.T) {
	t.Parallel()
	e := newSendEnvOpts(t, sandbox.Options{BigGroup: 1200, PageSize: 15, LinksWithoutPerPage: true}, nil)
	code, out, stderr := e.run(t, "contacts", "list", "1", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rows []contactJSON
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, r := range rows {
		ids[r.ID.String()] = true
	}
	if reqs := e.sb.RequestsTo("GET", "/contact-groups/1/contacts"); len(rows) != 1200 || len(ids) != 1200 || reqs != 3 {
		t.Errorf("%d rows, %d distinct, in %d requests; want 1200 each once in 3", len(rows), len(ids), reqs)
	}
}
