package cli

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/model"
)

// TestInboxListsReplies (issue 42 §4): `smsdesk inbox` lists what
// recipients wrote, newest first, each linked to the last send to that
// number from that line, with what it did («۱۱» opted out); --line and
// --since choose, --json without --limit gives all, the table sanitises
// what the service sent; and the next send leaves the number that wrote
// «۱۱» out.
func TestInboxListsReplies(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	out, _ := e.mustRun(t, 0, "send-pair", "--yes", "--json", "--sender", sandbox.DefaultSender,
		"--to", "09121234567", "--message", "سلام", "--to", "09351234567", "--message", "درود")
	var sent struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(out), &sent); err != nil || sent.ID == "" {
		t.Fatalf("the send's JSON: %v\n%s", err, out)
	}

	paths := config.PathsIn(e.env["SMSDESK_CONFIG_DIR"], e.env["SMSDESK_STATE_DIR"])
	l, err := paths.Ledger(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	acct := model.AccountID(e.base+"/api/v1", e.sb.Key())
	now := time.Now().UTC()
	in := func(id, from, line, text string, ago time.Duration) ledger.Event {
		at := now.Add(-ago)
		return ledger.Event{Account: acct, Profile: "default", MessageID: id, Kind: ledger.EventInbound, OccurredAt: at, ReceivedAt: at,
			Body: []byte(`{}`), Inbound: &ledger.Inbound{Sender: from, Line: line, Message: text}}
	}
	if _, err := l.RecordEvents(t.Context(), []ledger.Event{
		in("r-old", "09121234567", sandbox.DefaultSender, "کی می\u200cرسد؟", 48*time.Hour),
		in("r-stop", "09121234567", sandbox.DefaultSender, "لغو ۱۱", time.Hour),
		in("r-other", "09131234567", "9999", "hello \x1b[31mred", 30*time.Minute),
	}); err != nil {
		t.Fatal(err)
	}
	if err := paths.CloseLedger(); err != nil {
		t.Fatal(err)
	}

	out, _ = e.mustRun(t, 0, "inbox", "--json")
	var got []map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got) != 3 {
		t.Fatalf("inbox --json: %v\n%s", err, out)
	}
	if got[0]["message_id"] != "r-other" || got[1]["message_id"] != "r-stop" || got[2]["message_id"] != "r-old" {
		t.Errorf("not newest first: %s", out)
	}
	if got[1]["action"] != "opted_out" || got[1]["send_id"] != sent.ID || got[0]["send_id"] != nil || got[2]["action"] != nil {
		t.Errorf("actions and links: %s", out)
	}

	out, _ = e.mustRun(t, 0, "inbox", "--json", "--line", sandbox.DefaultSender, "--since", "24h")
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got) != 1 || got[0]["message_id"] != "r-stop" {
		t.Errorf("--line and --since: %v\n%s", err, out)
	}
	out, _ = e.mustRun(t, 0, "inbox", "--limit", "1")
	if strings.Contains(out, "\x1b") || !strings.Contains(out, "hello") || strings.Contains(out, "لغو") {
		t.Errorf("inbox --limit 1 (the newest, sanitised):\n%q", out)
	}

	_, errOut := e.mustRun(t, 0, "send-pair", "--yes", "--sender", sandbox.DefaultSender,
		"--to", "09121234567", "--message", "again", "--to", "09351234567", "--message", "again")
	if !strings.Contains(errOut, "1 opted out") {
		t.Errorf("the next send does not leave the «۱۱» out:\n%s", errOut)
	}
}
