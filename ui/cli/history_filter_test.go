package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// TestHistoryFilters: --limit, --status, --since and the profile filter
// (another profile sees none of these sends unless --all-profiles).
func TestHistoryFilters(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	for i, name := range []string{"a.csv", "b.csv"} {
		file := e.pairsFile(t, name, 3+i, nil)
		e.mustRun(t, 0, "send-pair", "--yes", "--allow-repeat", "--sender", sandbox.DefaultSender, "--file", file)
	}
	count := func(args ...string) int {
		t.Helper()
		out, _ := e.mustRun(t, 0, append([]string{"history", "--json"}, args...)...)
		var list []map[string]any
		if err := json.Unmarshal([]byte(out), &list); err != nil {
			t.Fatalf("history %v: %v\n%s", args, err, out)
		}
		return len(list)
	}
	cfg := filepath.Join(e.dir, "config", "config.toml")
	b, _ := os.ReadFile(cfg)
	if err := os.WriteFile(cfg, append(b, []byte("[profiles.other]\nrate_per_minute = 6000\n")...), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want int
	}{
		{nil, 2},
		{[]string{"--limit", "1"}, 1},
		{[]string{"--status", "complete"}, 2},
		{[]string{"--status", "interrupted"}, 0},
		{[]string{"--since", "1h"}, 2},
		{[]string{"--since", "2000-01-01"}, 2},
		{[]string{"--since", "2999-01-01"}, 0},
		{[]string{"--profile", "other"}, 0},
		{[]string{"--profile", "other", "--all-profiles"}, 2},
	} {
		if got := count(tt.args...); got != tt.want {
			t.Errorf("history %v: %d sends, want %d", tt.args, got, tt.want)
		}
	}
	for _, bad := range [][]string{{"--status", "nope"}, {"--since", "yesterday"}, {"--limit", "-1"}} {
		if code, _, _ := e.run(t, append([]string{"history"}, bad...)...); code != ExitUsage {
			t.Errorf("history %v: exit %d, want 2", bad, code)
		}
	}
	// A filter that matches nothing says so, and how many sends there are
	// (it said "No sends yet" with sends on file); on stderr, so that
	// stdout stays the table.
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--status", "interrupted"}, "No sends match --status interrupted (2 send(s) for profile default: smsdesk history lists them all)."},
		{[]string{"--since", "2999-01-01", "--status", "complete"}, "No sends match --status complete --since 2999-01-01 (2 send(s) for profile default"},
		{[]string{"--all-profiles", "--status", "stopped"}, "No sends match --status stopped (2 send(s) in the ledger: smsdesk history --all-profiles lists them all)."},
	} {
		out, errOut := e.mustRun(t, 0, append([]string{"history"}, tt.args...)...)
		if out != "" || !strings.Contains(errOut, tt.want) || strings.Contains(errOut, "No sends yet") {
			t.Errorf("history %v:\nstdout %q\nstderr %q\nwant on stderr %q", tt.args, out, errOut, tt.want)
		}
	}
	// The other profile's history says what it does not list.
	out, errOut := e.mustRun(t, 0, "--profile", "other", "history")
	if !strings.Contains(errOut, "No sends yet for profile other.") || !strings.Contains(errOut, "(2 more send(s) of other profiles or base URLs: smsdesk history --all-profiles)") {
		t.Errorf("history of a profile with none:\n%s%s", out, errOut)
	}
	if _, errOut := e.mustRun(t, 0, "history"); strings.Contains(errOut, "more send") {
		t.Errorf("a note with nothing hidden: %s", errOut)
	}
	out, _ = e.mustRun(t, 0, "history")
	if !regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [A-Z+\-0-9]+`).MatchString(out) {
		t.Errorf("history's TIME has no zone:\n%s", out)
	}
}

// TestResumeDryRun: --resume ID --dry-run says what would go and sends
// nothing.
func TestResumeDryRun(t *testing.T) {
	t.Parallel()
	credit := int64(2)
	e := newSendEnvOpts(t, sandbox.Options{Credit: &credit, NoCreditEndpoint: true}, nil)
	file := e.pairsFile(t, "p.csv", 5, nil)
	code, out, _ := e.run(t, "send-pair", "--yes", "--json", "--chunk-size", "1", "--sender", sandbox.DefaultSender, "--file", file)
	rep := decodeReport(t, out)
	if code != ExitService || rep.Counts.Accepted != 2 || rep.Counts.NotSent != 3 {
		t.Fatalf("first run: exit %d, %+v", code, rep.Counts)
	}
	before := e.sb.RequestsTo("POST", "/sms/send-pair")
	out, _ = e.mustRun(t, 0, "send-pair", "--resume", rep.sendID(), "--dry-run", "--json")
	var plan resumePlanJSON
	if err := json.Unmarshal([]byte(out), &plan); err != nil || plan.WouldSend != 3 || plan.Parts != 3 || plan.ID != rep.sendID() {
		t.Fatalf("dry run: %v %+v\n%s", err, plan, out)
	}
	if n := e.sb.RequestsTo("POST", "/sms/send-pair") - before; n != 0 {
		t.Errorf("--dry-run made %d send requests", n)
	}
	if out, _ := e.mustRun(t, 0, "send-pair", "--resume", rep.sendID(), "--dry-run"); !regexp.MustCompile(`would send 3 messages \(3 SMS parts\)`).MatchString(out) {
		t.Errorf("dry run for people: %s", out)
	}
}

// TestContactsImportFromStdin: FILE - reads the CSV from stdin.
func TestContactsImportFromStdin(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	id := strings.TrimSpace(mustRun(t, w, "groups", "create", "From a pipe"))
	out, errOut, code := w.run("mobile,name\n09121110001,Ali\n09121110002,سارا\n", "contacts", "import", id, "-", "--json")
	if code != 0 {
		t.Fatalf("import from stdin: exit %d\n%s\n%s", code, out, errOut)
	}
	list := mustRun(t, w, "contacts", "list", id, "--json")
	for _, m := range []string{"09121110001", "09121110002"} {
		if !strings.Contains(list, m) {
			t.Errorf("%s not in the group after the import:\n%s", m, list)
		}
	}
	if _, errOut, code := w.run("mobile\n12345\n", "contacts", "import", id, "-"); code != ExitUsage || !strings.Contains(errOut, "stdin line 2") {
		t.Errorf("a bad row from stdin: exit %d, %q; want 2 naming stdin line 2", code, errOut)
	}
}

// TestContactsListLimit: --limit N prints the first N contacts.
func TestContactsListLimit(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	out := mustRun(t, w, "contacts", "list", "1", "--json", "--limit", "3")
	var list []map[string]any
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 3 {
		t.Fatalf("contacts list --limit 3: %v, %d contacts\n%s", err, len(list), out)
	}
	if _, _, code := w.run("", "contacts", "list", "1", "--limit", "-2"); code != ExitUsage {
		t.Errorf("--limit -2: exit %d", code)
	}
}

// TestContactsListLimitSaysItIsTheFirst: --limit 2 on a group of 300 says
// that it printed the first 2 of 300 (it said "2 contacts in group 4"), and
// stops reading pages once it has them.
func TestContactsListLimitSaysItIsTheFirst(t *testing.T) {
	t.Parallel()
	w := newCLIWorldWith(t, sandbox.Options{PageSize: 50, MaxPerPage: 50}) // pages of 50, whatever is asked
	for _, tt := range []struct {
		args  []string
		want  string
		pages int
	}{
		{[]string{"--limit", "2"}, "the first 2 of 300 contacts in group 4 (--limit 2)", 1},
		{[]string{"--limit", "120"}, "the first 120 of 300 contacts in group 4 (--limit 120)", 3},
		{[]string{"--limit", "300"}, "300 contacts in group 4", 6},
		{nil, "300 contacts in group 4", 6},
	} {
		before := w.srv.RequestsTo("GET", "/contact-groups/4/contacts")
		_, errOut, code := w.run("", append([]string{"contacts", "list", "4"}, tt.args...)...)
		pages := w.srv.RequestsTo("GET", "/contact-groups/4/contacts") - before
		if code != 0 || !strings.Contains(errOut, tt.want) || pages != tt.pages {
			t.Errorf("contacts list 4 %v: exit %d, %d page(s), stderr %q; want %q in %d page(s)", tt.args, code, pages, errOut, tt.want, tt.pages)
		}
	}
	for _, tt := range []struct {
		shown, total, limit int
		want                string
	}{
		{2, -1, 2, "the first 2 contacts in group 4 (--limit 2; the service did not say how many it has)"},
		{2, 2, 2, "2 contacts in group 4"},
		{1, -1, 2, "1 contact in group 4"},
		// A count less than listed (issue 40 item 18: "the first 3 of 0").
		{3, 0, 3, "the first 3 contacts in group 4 (--limit 3; the service counts 0 in it, fewer than it listed)"},
	} {
		if got := listedText(tt.shown, tt.total, tt.limit, "4"); got != tt.want {
			t.Errorf("listedText(%d, %d, %d) = %q, want %q", tt.shown, tt.total, tt.limit, got, tt.want)
		}
	}
}

// TestPlanCountsTheChunkSizeAsked: the plan's requests and time follow
// --chunk-size, not only the profile's.
func TestPlanCountsTheChunkSizeAsked(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	file := e.pairsFile(t, "p.csv", 7, nil)
	out, _ := e.mustRun(t, 0, "send-pair", "--dry-run", "--json", "--chunk-size", "2", "--sender", sandbox.DefaultSender, "--file", file)
	var plan sendPairJSON
	if err := json.Unmarshal([]byte(out), &plan); err != nil || plan.Totals == nil || plan.Totals.Requests != 4 {
		t.Fatalf("7 pairs in chunks of 2: %v %+v; want 4 requests", err, plan.Totals)
	}
}
