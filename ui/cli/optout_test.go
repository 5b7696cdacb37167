package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestOptOutCommands: add in any spelling, list as a table, JSON and CSV,
// filter by line, remove, import a file with line-numbered errors; no
// request reaches the service.
func TestOptOutCommands(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	before := w.srv.Requests()
	out, _, code := w.run("", "optout", "add", "+989121234567", "۰۹۳۵۱۲۳۴۵۶۷", "--note", "replied 11")
	if code != 0 || !strings.Contains(out, "2 added to the opt-out list (every line); 0 already on it") {
		t.Fatalf("add: exit %d %q", code, out)
	}
	out, errOut, code := w.run("", "optout", "add", "09121234567", "09131234567", "--sender", "3000505")
	if code != 0 || !strings.Contains(out, "1 added to the opt-out list (line 3000505); 1 already on it") || !strings.Contains(errOut, "09121234567 is already opted out (every line)") {
		t.Fatalf("add --sender: exit %d %q %q", code, out, errOut)
	}
	if _, errOut, code := w.run("", "optout", "add", "0912", "abc"); code != ExitUsage || !strings.Contains(errOut, "argument 1 (0912): too short") || !strings.Contains(errOut, "the opt-out list was not changed") {
		t.Fatalf("bad numbers: exit %d %q", code, errOut)
	}
	// One list for the ledger, whatever the key: it is never called this
	// account's (an upgrade merges every account's list into it).
	if _, errOut, _ := w.run("", "optout", "list"); !strings.Contains(errOut, "3 on the opt-out list (one list for every profile and key on this ledger)") {
		t.Errorf("list's count: %q", errOut)
	}
	out, _, _ = w.run("", "optout", "list", "--json") // by number, then line
	var list []map[string]any
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 3 || list[0]["mobile"] != "09121234567" || list[0]["sender"] != nil || list[1]["sender"] != "3000505" || list[0]["note"] != "replied 11" {
		t.Fatalf("list --json: %v %s", err, out)
	}
	if added, _ := list[0]["added"].(string); !strings.HasSuffix(added, "+03:30") {
		t.Errorf("added %q: want RFC 3339 in Asia/Tehran", added)
	}
	out, _, _ = w.run("", "optout", "list", "--sender", "10004346", "--csv")
	if !strings.HasPrefix(out, "mobile,sender,note,added,operator,source,message_id\n09121234567,,replied 11,") || strings.Contains(out, "09131234567") {
		t.Errorf("list --sender 10004346 --csv:\n%s", out)
	}
	w.screen = 120 // a terminal: the table has its header
	out, _, _ = w.run("", "optout", "list")
	w.screen = 0
	if !strings.Contains(out, "ADDED (Asia/Tehran)") || !strings.Contains(out, "line 3000505") {
		t.Errorf("list:\n%s", out)
	}
	out, errOut, code = w.run("", "optout", "remove", "9351234567", "09990000000")
	if code != 0 || !strings.Contains(out, "1 removed from the opt-out list; 1 were not on it") || !strings.Contains(errOut, "09990000000 is not on the opt-out list") {
		t.Fatalf("remove: exit %d %q %q", code, out, errOut)
	}
	_, errOut, code = w.run("mobile\n09121110001\n0912\n", "optout", "import", "-")
	if code != ExitUsage || !strings.Contains(errOut, "stdin line 3: ") || !strings.Contains(errOut, "nothing was imported") {
		t.Fatalf("import: exit %d %q", code, errOut)
	}
	out, _, code = w.run("recipient,name\n09121110001,a\n0912,b\n", "optout", "import", "-", "--skip-invalid")
	if code != 0 || !strings.Contains(out, "1 added to the opt-out list (every line) from stdin; 0 already on it, 1 invalid") {
		t.Fatalf("import --skip-invalid: exit %d %q", code, out)
	}
	if n := w.srv.Requests() - before; n != 0 {
		t.Errorf("the opt-out commands made %d requests", n)
	}
}
