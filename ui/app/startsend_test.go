package app

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
)

// TestStartSendLooksAgainForSendsBegunMeanwhile: two runs check the same
// plan before either begins (overlapping cron jobs, two terminals); the
// second to start finds the first's send, begun after its facts were
// gathered, and is refused as a repeat before any request. Without Checked
// (a repeat the operator chose) it sends.
func TestStartSendLooksAgainForSendsBegunMeanwhile(t *testing.T) {
	v := newService(t, sandbox.Options{})
	paths := tempPaths(t)
	first := v.session(t, paths, &config.Profile{Name: "live", Sender: sandbox.DefaultSender})
	second := v.session(t, paths, &config.Profile{Name: "live", Sender: sandbox.DefaultSender})
	ctx := context.Background()

	plan := second.Plan(second.Profile.Sender, pairs(3))
	facts, _, err := second.Facts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := second.Check(plan, facts, FileSource("pairs.csv"), false); err != nil {
		t.Fatalf("the check before the other send: %v", err)
	}
	id := send(t, first, pairs(3)).Summary.JobID // begins and ends while the second waits

	before := v.sb.RequestsTo("POST", "/sms/send-pair")
	_, err = second.StartSend(ctx, plan, FileSource("pairs.csv"), SendOptions{Checked: &facts})
	var r *Refusal
	if !errors.As(err, &r) || r.Rule != RuleRepeat ||
		!strings.HasPrefix(r.Reason, "3 of 3 pairs are in send "+id+", which another smsdesk began while this one was being checked; nothing was sent") ||
		len(r.Details) != 1 || !strings.Contains(r.Hint, "smsdesk history show "+id) {
		t.Fatalf("got %#v, want a repeat refusal naming send %s", err, id)
	}
	if n := v.sb.RequestsTo("POST", "/sms/send-pair") - before; n != 0 {
		t.Errorf("the refused start made %d send requests", n)
	}
	if list, _ := second.History(false); len(list) != 1 {
		t.Errorf("history holds %d sends, want the first alone (the refused one journals nothing)", len(list))
	}

	x, err := second.StartSend(ctx, plan, FileSource("pairs.csv"), SendOptions{})
	if err != nil {
		t.Fatalf("without Checked: %v", err)
	}
	for range x.Events() {
	}
	if out, _ := x.Finish(); out.Summary.Counts.Accepted != 3 {
		t.Errorf("without Checked: %+v", out.Summary.Counts)
	}
}
