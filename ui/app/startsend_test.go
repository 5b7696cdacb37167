package app

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
)

// TestStartLooksAgainForSendsBegunMeanwhile: two runs prepare the same plan
// before either begins (overlapping cron jobs, two terminals); the second
// to start finds the first's send, begun after its facts were gathered, and
// is refused as a repeat before any request. It is refused so even when the
// operator allowed repeats (--allow-repeat, the console's yes): that say
// covered the sends the check named, not one begun since (the CLI used to
// skip the look under --allow-repeat). Prepared again, the repeat is named,
// and allowed it goes, its journal recording the send it repeats.
func TestStartLooksAgainForSendsBegunMeanwhile(t *testing.T) {
	for _, allowRepeat := range []bool{false, true} {
		name := map[bool]string{false: "checked", true: "repeats allowed"}[allowRepeat]
		t.Run(name, func(t *testing.T) {
			v := newService(t, sandbox.Options{})
			paths := tempPaths(t)
			first := v.session(t, paths, &config.Profile{Name: "live", Sender: sandbox.DefaultSender})
			second := v.session(t, paths, &config.Profile{Name: "live", Sender: sandbox.DefaultSender})
			ctx := context.Background()

			p := prepare(t, second, pairs(3), allowRepeat)
			if p.Refusal != nil {
				t.Fatalf("the check before the other send: %v", p.Refusal)
			}
			id := send(t, first, pairs(3)).Summary.JobID // begins and ends while the second waits

			before := v.sb.RequestsTo("POST", "/sms/send-pair")
			_, err := p.Start(ctx, SendOptions{})
			var r *Refusal
			if !errors.As(err, &r) || r.Rule != RuleRepeat ||
				!strings.HasPrefix(r.Reason, "3 of 3 pairs are in send "+id+", which another smsdesk began while this one was being checked; nothing was sent") ||
				len(r.Details) != 1 || r.Repeat == nil || r.Repeat.SendID != id || !r.Repeat.Meanwhile || r.Count != 3 || r.Of != 3 {
				t.Fatalf("got %#v, want a repeat refusal naming send %s", err, id)
			}
			if n := v.sb.RequestsTo("POST", "/sms/send-pair") - before; n != 0 {
				t.Errorf("the refused start made %d send requests", n)
			}
			if list, _ := second.History(t.Context(), false); len(list) != 1 {
				t.Errorf("history holds %d sends, want the first alone (the refused one journals nothing)", len(list))
			}

			again := prepare(t, second, pairs(3), false)
			if again.Refusal == nil || again.Refusal.Rule != RuleRepeat || again.Refusal.Repeat.SendID != id || again.Refusal.Repeat.Meanwhile {
				t.Fatalf("prepared again: %#v, want the usual repeat refusal naming %s", again.Refusal, id)
			}
			x, err := again.AllowRepeats().Start(ctx, SendOptions{})
			if err != nil {
				t.Fatalf("the repeat allowed: %v", err)
			}
			if out := finish(t, x); out.Summary.Counts.Accepted != 3 {
				t.Errorf("the repeat allowed: %+v", out.Summary.Counts)
			}
			st, err := config.ReadJournal(t.Context(), paths, x.ID())
			if err != nil || len(st.Plan.RepeatOf) != 1 || st.Plan.RepeatOf[0] != id {
				t.Errorf("the repeat's journal: %v, repeat_of %v; want %s", err, st.Plan.RepeatOf, id)
			}
		})
	}
}

// TestStartOnce: a pending send starts once; a second Start (a second yes,
// a double key press) sends nothing.
func TestStartOnce(t *testing.T) {
	v := newService(t, sandbox.Options{})
	s := v.session(t, tempPaths(t), &config.Profile{Name: "live", Sender: sandbox.DefaultSender, RepeatWindow: "0"})
	p := prepare(t, s, pairs(2), false)
	x, err := p.Start(context.Background(), SendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Start(context.Background(), SendOptions{}); !errors.Is(err, ErrStarted) {
		t.Errorf("second start: %v, want ErrStarted", err)
	}
	finish(t, x)
	if n := len(v.sb.Sent()); n != 2 {
		t.Errorf("the sandbox took %d messages, want 2", n)
	}
}
