package cli

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// TestAuditCommand: `smsdesk audit` lists who did what, newest first, in
// the profile's zone; --operator, --since and --limit filter it; --json
// has the documented keys; a bad flag is a usage error.
func TestAuditCommand(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	mustRun(t, w, "optout", "add", "09121110001", "--note", "replied 11")
	p := w.testPaths()
	sara := &model.Operator{Name: "sara", Fingerprint: "SHA256:abc", Role: model.RoleSender}
	at := time.Date(2026, 11, 28, 22, 41, 0, 0, time.UTC) // 02:11 in Tehran
	if err := config.AppendAudit(t.Context(), p, config.AuditRecord{Time: at, Operator: sara, Action: "optout_add", Mobile: "09351973060", Profile: "default"}); err != nil {
		t.Fatal(err)
	}
	p.CloseLedger()

	out := mustRun(t, w, "audit")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 { // no header: not a terminal (gh's rule)
		t.Fatalf("audit:\n%s", out)
	}
	// The record written last (sara's) is the newest in the trail.
	if !strings.Contains(lines[0], "2026-11-29 02:11:00 +0330") || !strings.Contains(lines[0], "sara") ||
		!strings.Contains(lines[0], "opted a number out") || !strings.Contains(lines[0], "09351973060 · every line") {
		t.Errorf("sara's line: %q", lines[0])
	}
	if !strings.Contains(lines[1], "(this host)") || !strings.Contains(lines[1], "09121110001 · every line · replied 11") {
		t.Errorf("the host's line: %q", lines[1])
	}

	if out := mustRun(t, w, "audit", "--operator", "sara", "--limit", "5"); strings.Count(strings.TrimSpace(out), "\n") != 0 || !strings.Contains(out, "09351973060") {
		t.Errorf("--operator sara:\n%s", out)
	}
	if out, errOut, code := w.run("", "audit", "--operator", "reza"); code != 0 || out != "" || !strings.Contains(errOut, "no audit records by reza") {
		t.Errorf("--operator reza: %d %q %q", code, out, errOut)
	}

	var got []map[string]any
	if err := json.Unmarshal([]byte(mustRun(t, w, "audit", "--json", "--limit", "1")), &got); err != nil || len(got) != 1 {
		t.Fatalf("--json: %v %v", got, err)
	}
	for _, k := range auditFields {
		if _, ok := got[0][k]; !ok {
			t.Errorf("--json has no %q: %v", k, got[0])
		}
	}
	if got[0]["time"] != "2026-11-29T02:11:00+03:30" || got[0]["action"] != "optout_add" || got[0]["operator"].(map[string]any)["name"] != "sara" {
		t.Errorf("--json: %v", got[0])
	}

	for _, args := range [][]string{{"audit", "--since", "yesterday"}, {"audit", "--limit", "-1"}, {"audit", "--operator", "no one"}} {
		if _, errOut, code := w.run("", args...); code != ExitUsage {
			t.Errorf("%v: exit %d, %s", args, code, errOut)
		}
	}
}
