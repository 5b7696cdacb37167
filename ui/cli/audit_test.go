package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// TestChangesAreAudited: a group created, tracked and untracked, a contact
// added and deleted from the command line each leave one line in
// audit.jsonl (no operator: this machine's own terminal), with the profile
// and what was changed; a refused change (a bad number) leaves none, and
// the file is 0600 and holds no key.
func TestChangesAreAudited(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	gid := strings.TrimSpace(mustRun(t, w, "groups", "create", "Audit team"))
	cid := strings.TrimSpace(mustRun(t, w, "contacts", "add", gid, "۰۹۱۲ ۱۱۱ ۰۰۰۱", "--name", "Sara"))
	if _, _, code := w.run("", "contacts", "add", gid, "12345"); code != ExitUsage {
		t.Fatalf("a bad number: exit %d", code)
	}
	mustRun(t, w, "contacts", "delete", cid, "--yes")
	mustRun(t, w, "groups", "untrack", gid)
	mustRun(t, w, "groups", "track", gid, "--name", "Audit")

	data, err := config.AuditText(t.Context(), w.testPaths())
	if err != nil {
		t.Fatal(err)
	}
	want := []config.AuditRecord{
		{Action: "create_group", ID: model.ID(gid), Name: "Audit team"},
		{Action: "add_contact", GroupID: model.ID(gid), ID: model.ID(cid), Mobile: "09121110001"},
		{Action: "delete_contact", ID: model.ID(cid)},
		{Action: "untrack_group", ID: model.ID(gid)},
		{Action: "track_group", ID: model.ID(gid), Name: "Audit"},
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != len(want) {
		t.Fatalf("audit.jsonl has %d lines, want %d:\n%s", len(lines), len(want), data)
	}
	for i, line := range lines {
		var got config.AuditRecord
		if err := json.Unmarshal([]byte(line), &got); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		wt := want[i]
		if got.Action != wt.Action || got.ID != wt.ID || got.GroupID != wt.GroupID || got.Name != wt.Name || got.Mobile != wt.Mobile ||
			got.Operator != nil || got.Profile != "default" || got.Error != "" || got.Time.IsZero() {
			t.Errorf("line %d: %s\nwant %+v", i+1, line, wt)
		}
	}
	if strings.Contains(string(data), testKey) {
		t.Error("the API key is in the audit file")
	}
	if fi, err := os.Stat(filepath.Join(w.env["SMSDESK_STATE_DIR"], "smsdesk.db")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the ledger: %v, %v", fi.Mode(), err)
	}
}
