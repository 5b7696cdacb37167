package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/model"
)

// TestSendPairResendFailed (issue 42 §3): a send of four, one delivered,
// one failed, one rejected, one pending: history show says how to resend
// the failed; --resend-failed asks (a resend of send ID, how many, parts)
// and sends only the failed one (the rejected with --include-rejected in a
// dry run), linked by resend_of in send-pair --json, history --json, the
// history table and history show --json. Run a second time it is a repeat
// of the first resend (exit 2, naming it); a resend of a send with nothing
// failed says so (exit 2).
func TestSendPairResendFailed(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	out, _ := e.mustRun(t, 0, "send-pair", "--yes", "--json", "--sender", sandbox.DefaultSender, "--file", e.pairsFile(t, "pairs.csv", 4, nil))
	x := decodeReport(t, out).sendID()
	e.delivered(t, x, map[int]model.DeliveryState{0: model.DeliveryDelivered, 1: model.DeliveryFailed, 2: model.DeliveryRejected})

	out, _ = e.mustRun(t, 0, "history", "show", x)
	if !strings.Contains(out, "To resend the failed: smsdesk send-pair --resend-failed "+x+" (with --include-rejected, the 1 rejected too)") {
		t.Errorf("history show names no resend:\n%s", out)
	}

	out, _ = e.mustRun(t, 0, "send-pair", "--resend-failed", x, "--include-rejected", "--dry-run", "--json")
	dry := decodeReport(t, out)
	if dry.ResendOf == nil || *dry.ResendOf != x || len(dry.Items) != 2 || dry.Items[0].Recipient != "09120000002" || dry.Items[1].Recipient != "09120000003" {
		t.Fatalf("dry run with the rejected:\n%s", out)
	}

	posts := e.sendPosts()
	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), []string{"send-pair", "--resend-failed", x},
		Env{Stdin: strings.NewReader("y\n"), Stdout: &stdout, Stderr: &stderr, Getenv: e.getenv, StdinIsTerminal: true})
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	for _, want := range []string{
		"Resend of send " + x + ": 1 failed (left out: 1 delivered, 1 with no final state yet, 1 rejected (not asked))",
		"1 recipient · 1 UCS-2 → 1 part",
		"Send 1 message (1 SMS part) from " + sandbox.DefaultSender + " to 1 recipient, resending the failed of send " + x + "?",
	} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("the question lacks %q:\n%s", want, stderr.String())
		}
	}
	if !strings.Contains(stdout.String(), ": 1 accepted, 0 rejected, 0 failed, 0 unknown, 0 not sent of 1") || e.sendPosts()-posts != 1 {
		t.Fatalf("the resend (%d posts):\n%s", e.sendPosts()-posts, stdout.String())
	}

	out, _ = e.mustRun(t, 0, "history", "--json")
	var hist []historyJSON
	if err := json.Unmarshal([]byte(out), &hist); err != nil || len(hist) != 2 || hist[0].ResendOf == nil || *hist[0].ResendOf != x || hist[1].ResendOf != nil {
		t.Fatalf("history --json (%v):\n%s", err, out)
	}
	r1 := hist[0].ID
	out, _ = e.mustRun(t, 0, "history", "show", r1, "--json")
	var show historyShowJSON
	if err := json.Unmarshal([]byte(out), &show); err != nil || show.ResendOf == nil || *show.ResendOf != x || len(show.Results) != 1 ||
		show.Results[0].Recipient != "09120000002" || show.Results[0].Status != "accepted" {
		t.Fatalf("history show --json (%v):\n%s", err, out)
	}
	if out, _ = e.mustRun(t, 0, "history"); !strings.Contains(out, "resend of "+x) {
		t.Errorf("history marks no resend:\n%s", out)
	}

	// Again: the first resend's message may have gone, so it is a repeat.
	_, stderrText := e.mustRun(t, 2, "send-pair", "--resend-failed", x, "--yes", "--json")
	if obj := errorObject(t, stderrText); obj.Error.Code != "repeat" || obj.Error.SendID == nil || *obj.Error.SendID != r1 ||
		!strings.Contains(stderrText, "is a resend of send "+x+"'s failures already") || obj.Error.Hint == nil ||
		!strings.Contains(*obj.Error.Hint, "what failed there goes with smsdesk send-pair --resend-failed "+r1) {
		t.Errorf("a second resend:\n%s", stderrText)
	}
	// Nothing failed in the resend (its message has no final state yet).
	_, stderrText = e.mustRun(t, 2, "send-pair", "--resend-failed", r1, "--yes", "--json")
	if obj := errorObject(t, stderrText); obj.Error.Code != "usage" || !strings.Contains(obj.Error.Message, "nothing to resend: no message of send "+r1+" failed delivery") {
		t.Errorf("nothing to resend:\n%s", stderrText)
	}
	if n := e.sendPosts() - posts; n != 1 {
		t.Errorf("%d send requests in all, want the one resend", n)
	}
}
