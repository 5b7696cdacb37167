package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/config/legacy/legacytest"
)

// An older smsdesk's state directory (the file store's, checked in as
// config/legacy's fixture) is moved into the ledger by the first command
// that opens it, which says so once on stderr; what it held is what the
// commands read from then on.
func TestUpgradeFromTheFileStore(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	state := legacytest.Fixture(t)
	w.env["SMSDESK_STATE_DIR"] = state
	out, errOut, code := w.run("", "optout", "list")
	if rows := strings.Split(strings.TrimSpace(out), "\n"); code != 0 || len(rows) != 3 || !strings.HasPrefix(rows[0], "09121110001\t") {
		t.Fatalf("optout list: exit %d\n%s\n%s", code, out, errOut)
	}
	want := "smsdesk moved its memory into the ledger " + filepath.Join(state, "smsdesk.db") + ": 5 sends, 3 opt-outs, 2 once-only ids, 9 audit records; the old files are in " + filepath.Join(state, "before-ledger") + "\n"
	if !strings.HasPrefix(errOut, want) || strings.Count(errOut, "smsdesk moved its memory") != 1 {
		t.Errorf("stderr %q, want it to start %q", errOut, want)
	}
	out, errOut, code = w.run("", "history", "--all-profiles", "--json=id,status")
	var sends []map[string]any
	if err := json.Unmarshal([]byte(out), &sends); code != 0 || err != nil || len(sends) != 5 || strings.Contains(errOut, "moved its memory") {
		t.Errorf("history: exit %d, %v, %d sends, stderr %q", code, err, len(sends), errOut)
	}
	// The opt-outs hold for this key and host too: the list is the ledger's.
	out, _, code = w.run("", "send-pair", "--sender", "3000505", "--to", "09121110001", "--message", "hi", "--to", "09121110055", "--message", "hi", "--dry-run")
	if code != 0 || !strings.Contains(out, "1 opted out: not sent (09121110001)") {
		t.Errorf("a dry run to an opted-out number: exit %d\n%s", code, out)
	}
}

// An upgrade that fails refuses: the command says why, the files stay as
// they were, and no send goes.
func TestUpgradeThatFailsRefusesSends(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	state := legacytest.Fixture(t)
	w.env["SMSDESK_STATE_DIR"] = state
	list := filepath.Join(state, "accounts", "e58cc07961ac44b88b4df371", "optouts.json")
	if err := os.WriteFile(list, []byte(`{"version":1,"optouts":null}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := w.run("", "send-pair", "--sender", "3000505", "--to", "09121110055", "--message", "hi", "--yes")
	if code == 0 || !strings.Contains(errOut, "smsdesk could not move its memory from "+state+" into the ledger") ||
		!strings.Contains(errOut, "it would send to everyone on it") || !strings.Contains(errOut, "nothing was sent") {
		t.Errorf("send-pair: exit %d, %q", code, errOut)
	}
	if sent := w.srv.RequestsTo("POST", "/sms/send-pair"); sent != 0 || len(w.srv.Sent()) != 0 {
		t.Errorf("%d send requests, %d messages", sent, len(w.srv.Sent()))
	}
	if _, err := os.Stat(filepath.Join(state, "smsdesk.db")); err == nil {
		t.Error("a ledger was left behind")
	}
	if _, err := os.Stat(filepath.Join(state, "sends", "20261127-000113-95c2c8.jsonl")); err != nil {
		t.Errorf("the journals moved: %v", err)
	}
}
