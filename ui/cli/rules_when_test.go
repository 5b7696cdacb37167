package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// TestSendPairRulesOfWhomAndWhen: through send-pair, an opted-out number
// is left out (the plan says so, --json counts it, the journal keeps it);
// the suffix is in the samples and counted; quiet hours refuse (exit 2, the
// window, when sending may start, the hint), --ignore-quiet-hours sends and
// says it is recorded, and a send that reaches their start is held (exit 1,
// code held, none unknown). The world's clock is 15:30 in Tehran.
func TestSendPairRulesOfWhomAndWhen(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	w.clock = newFakeClock()
	mustRun(t, w, "config", "set", "sender", "3000505")
	mustRun(t, w, "config", "set", "optout_suffix", "لغو۱۱")
	mustRun(t, w, "optout", "add", "+989121110002")
	file := filepath.Join(w.dir, "pairs.csv")
	if err := os.WriteFile(file, []byte("mobile,message\n09121110001,Your code is 4821\n09121110002,Your code is 1111\n09121110003,Your code is 2222\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	out, errOut, code := w.run("", "send-pair", "--file", file, "--dry-run")
	if code != 0 || !strings.Contains(out, "1 opted out: not sent (09121110002)") || !strings.Contains(out, "(opted out: not sent)") ||
		!strings.Contains(out, "Dry run: 2 recipients") || !strings.Contains(out, "Suffix: every message ends with the line لغو۱۱ (counted in its parts; the suffix is Persian: every message goes as UCS-2)") {
		t.Fatalf("dry run: exit %d\n%s\n%s", code, out, errOut)
	}
	out, _, _ = w.run("", "send-pair", "--file", file, "--dry-run", "--json")
	var plan struct {
		Totals struct {
			Recipients int
			OptedOut   int `json:"opted_out"`
		}
		Items []struct {
			Message  string
			OptedOut bool `json:"opted_out"`
			Parts    int
		}
	}
	if err := json.Unmarshal([]byte(out), &plan); err != nil || plan.Totals.OptedOut != 1 || plan.Totals.Recipients != 2 || !plan.Items[1].OptedOut ||
		plan.Items[0].Message != "Your code is 4821\nلغو۱۱" || plan.Items[0].Parts != 1 {
		t.Fatalf("dry run --json: %v %+v", err, plan)
	}
	out, errOut, code = w.run("", "send-pair", "--file", file, "--yes", "--json")
	var sent struct {
		Counts model.StateCounts
	}
	if err := json.Unmarshal([]byte(out), &sent); err != nil || code != 0 || sent.Counts.OptedOut != 1 || sent.Counts.Accepted != 2 {
		t.Fatalf("send: exit %d %v %s %s", code, err, out, errOut)
	}
	for _, m := range w.srv.Sent() {
		if m.Recipient == "09121110002" || !strings.HasSuffix(m.Message, "\nلغو۱۱") {
			t.Errorf("the service got %+v", m)
		}
	}

	// Quiet hours around now (15:30 Tehran): refused before any request.
	mustRun(t, w, "config", "set", "quiet_hours", "15:00-16:00")
	before := w.srv.Requests()
	_, errOut, code = w.run("", "send-pair", "--to", "09121110009", "--message", "hi", "--yes")
	if code != ExitUsage || !strings.Contains(errOut, "quiet hours 15:00–16:00 Asia/Tehran; sending may start at 16:00; nothing was sent") ||
		!strings.Contains(errOut, "to send now anyway: --ignore-quiet-hours") || w.srv.Requests() != before {
		t.Fatalf("quiet: exit %d, %d requests\n%s", code, w.srv.Requests()-before, errOut)
	}
	// A dry run shows its plan, then the same refusal: the operator can
	// prepare the morning's send at night.
	out, errOut, code = w.run("", "send-pair", "--to", "09121110009", "--message", "hi", "--dry-run")
	if code != ExitUsage || !strings.Contains(out, "Dry run: 1 recipient") || !strings.Contains(errOut, "sending may start at 16:00") || w.srv.Requests() != before {
		t.Fatalf("quiet dry run: exit %d, %d requests\n%s\n%s", code, w.srv.Requests()-before, out, errOut)
	}
	_, errOut, code = w.run("", "send-pair", "--to", "09121110009", "--message", "hi", "--yes", "--ignore-quiet-hours")
	if code != 0 || !strings.Contains(errOut, "--ignore-quiet-hours: sending through quiet hours 15:00–16:00 Asia/Tehran (recorded") {
		t.Fatalf("ignored: exit %d\n%s", code, errOut)
	}

	// Quiet hours that begin during a send, one request a minute.
	mustRun(t, w, "config", "set", "quiet_hours", time.Date(2026, 3, 20, 15, 32, 0, 0, time.FixedZone("", 12600)).Format("15:04")+"-16:00")
	mustRun(t, w, "config", "set", "rate_per_minute", "1")
	out, errOut, code = w.run("", "send-pair", "--to", "09121110011", "--message", "a", "--to", "09121110012", "--message", "b",
		"--to", "09121110013", "--message", "c", "--chunk-size", "1", "--yes", "--json")
	var held struct {
		ID        string
		Counts    model.StateCounts
		StopCause *string `json:"stop_cause"`
	}
	if err := json.Unmarshal([]byte(out), &held); err != nil || code != ExitService || held.StopCause == nil || *held.StopCause != "quiet_hours" ||
		held.Counts.NotSent == 0 || held.Counts.Unknown != 0 || !strings.Contains(errOut, `"code": "held"`) {
		t.Fatalf("held: exit %d %v\n%s\n%s", code, err, out, errOut)
	}
	// The error names the send a script resumes (send_id was null).
	if e := errorObject(t, errOut); e.Error.SendID == nil || *e.Error.SendID != held.ID {
		t.Errorf("held: error.send_id %v, want %s\n%s", e.Error.SendID, held.ID, errOut)
	}
	out, _, _ = w.run("", "history", "--status", "held")
	if !strings.Contains(out, "held") {
		t.Errorf("history --status held:\n%s", out)
	}
	// --json: when it may go on, and every time in the profile's zone with
	// its offset (time was UTC beside scheduled_for's +03:30, and a held
	// send's end of quiet hours was nowhere).
	out, _, _ = w.run("", "history", "--status", "held", "--json", "--jq", `.[0] | "\(.time) \(.held_until)"`)
	if f := strings.Fields(out); len(f) != 2 || !strings.HasSuffix(f[0], "+03:30") || f[1] != "2026-03-20T16:00:00+03:30" {
		t.Errorf("history --json of the held send: time and held_until %q, want both at +03:30, held until 16:00", out)
	}
	id, _, _ := w.run("", "history", "--status", "held", "--json", "--jq", ".[0].id")
	out, _, _ = w.run("", "history", "show", strings.TrimSpace(id))
	if !strings.Contains(out, "Stopped: held at quiet hours (quiet hours 15:32–16:00 Asia/Tehran began at ") || strings.Contains(out, "the service refused") {
		t.Errorf("history show of the held send says the service refused it:\n%s", out)
	}
	// Its resume inside quiet hours is refused naming how it goes on: not
	// --at, which --resume does not take.
	_, errOut, code = w.run("", "send-pair", "--resume", strings.TrimSpace(id), "--yes")
	if code != ExitUsage || !strings.Contains(errOut, "smsdesk send-pair --resume "+strings.TrimSpace(id)+" from then; to send now anyway: --ignore-quiet-hours") ||
		strings.Contains(errOut, "--at") {
		t.Errorf("resume inside quiet hours: exit %d\n%s", code, errOut)
	}
}
