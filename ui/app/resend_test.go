package app

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/model/fakeclock"
)

// deliver records webhook events for send id's items as the receiver does
// (config's ledger, RecordEvents): state by item index, "rejected" a
// failed event with that status.
func deliver(t *testing.T, paths config.Paths, id string, states map[int]string) {
	t.Helper()
	ctx := context.Background()
	rows, err := config.SendDeliveries(ctx, paths, id)
	if err != nil {
		t.Fatal(err)
	}
	l, err := paths.Ledger(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var evs []ledger.Event
	for _, d := range rows {
		st, ok := states[d.Index]
		if !ok {
			continue
		}
		e := ledger.Event{Account: d.Account, Profile: "default", MessageID: d.MessageID, Recipient: d.Recipient, ReceivedAt: time.Now(), Body: []byte(`{}`)}
		switch st {
		case "sent":
			e.Kind = ledger.EventSent
		case "delivered":
			e.Kind = ledger.EventDelivered
		case "failed":
			e.Kind = ledger.EventFailed
		case "rejected":
			e.Kind, e.Status = ledger.EventFailed, "rejected"
		}
		evs = append(evs, e)
	}
	res, err := l.RecordEvents(ctx, evs)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if r.SendID != id {
			t.Fatalf("event %d matched send %q, want %s", i, r.SendID, id)
		}
	}
}

// resend prepares a resend of id through the one entry of a new send.
func resend(t *testing.T, s *Session, id string, rejected bool) (*PendingSend, error) {
	t.Helper()
	return s.PrepareSend(context.Background(), SendRequest{Resend: &ResendFailed{ID: id, IncludeRejected: rejected}})
}

// TestResendTakesOnlyTheFailed: a resend of a send takes only its messages
// whose delivery failed (rejected ones only when asked), never delivered,
// sent or pending ones; a number opted out of the line since is left out;
// the repeat guard lets the failed pairs go again (not a repeat of the
// send they failed in) and the new send records resend_of, in its journal
// and the ledger's row. A second resend of the same send is a repeat of the
// first, named; a resend of a send with nothing failed is refused; a
// resend of the resend, once its message failed too, is no repeat of
// either.
func TestResendTakesOnlyTheFailed(t *testing.T) {
	ctx := context.Background()
	v := newService(t, sandbox.Options{})
	paths := tempPaths(t)
	s := v.session(t, paths, &config.Profile{Name: "default", Sender: sandbox.DefaultSender, OptOutSuffix: "لغو۱۱"})
	rows := pairs(6)
	first := send(t, s, rows)
	x := first.Summary.JobID
	if first.Summary.Counts.Accepted != 6 {
		t.Fatalf("first send: %+v", first.Summary.Counts)
	}
	deliver(t, paths, x, map[int]string{0: "failed", 1: "rejected", 2: "delivered", 3: "sent", 4: "failed"})
	if _, err := s.AddOptOuts(ctx, []string{rows[4].Recipient}, sandbox.DefaultSender, "replied 11"); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name     string
		rejected bool
		want     []string // recipients taken, in plan order
		counts   ResendCounts
	}{
		{"failed only", false, []string{rows[0].Recipient, rows[4].Recipient}, ResendCounts{Of: x, Failed: 2, RejectedLeft: 1, Delivered: 1, Pending: 2}},
		{"with rejected", true, []string{rows[0].Recipient, rows[1].Recipient, rows[4].Recipient}, ResendCounts{Of: x, Failed: 2, Rejected: 1, Delivered: 1, Pending: 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := resend(t, s, x, tc.rejected)
			if err != nil {
				t.Fatal(err)
			}
			if p.Refusal != nil {
				t.Fatalf("refused: %v (a resend of failures is no repeat of the send they failed in)", p.Refusal)
			}
			var got []string
			for _, it := range p.Plan.Items {
				got = append(got, it.Recipient)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("taken %v, want %v", got, tc.want)
			}
			if c := p.Resent(); c == nil || *c != tc.counts {
				t.Errorf("counts %+v, want %+v", c, tc.counts)
			}
			if len(p.OptedOut) != 1 || p.OptedOut[0].Recipient != rows[4].Recipient || p.Verdict.Summary.Recipients != len(tc.want)-1 {
				t.Errorf("opted out since: %+v, recipients %d", p.OptedOut, p.Verdict.Summary.Recipients)
			}
			if p.Source.Name != "resend of "+x || p.Plan.Sender != sandbox.DefaultSender || !strings.HasSuffix(p.Plan.Items[0].Message, "\nلغو۱۱") ||
				strings.Count(p.Plan.Items[0].Message, "لغو۱۱") != 1 {
				t.Errorf("source %q, sender %q, message %q", p.Source.Name, p.Plan.Sender, p.Plan.Items[0].Message)
			}
		})
	}

	before := len(v.sb.Sent())
	p, err := resend(t, s, x, false)
	if err != nil || p.Refusal != nil {
		t.Fatal(err, p.Refusal)
	}
	xs, err := p.Start(ctx, SendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := finish(t, xs)
	r1 := out.Summary.JobID
	sent := v.sb.Sent()[before:]
	if len(sent) != 1 || out.Summary.Counts.Accepted != 1 || out.Summary.Counts.OptedOut != 1 {
		t.Fatalf("the resend sent %d (%+v), want the one failed number not opted out", len(sent), out.Summary.Counts)
	}
	e, err := s.ReadSend(ctx, r1)
	if err != nil || e.State.Plan.ResendOf != x {
		t.Fatalf("journal's resend_of %q (%v), want %s", e.State.Plan.ResendOf, err, x)
	}
	l, err := paths.Ledger(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if row, err := l.GetSend(ctx, r1); err != nil || row.ResendOf != x {
		t.Fatalf("ledger's resend_of %q (%v), want %s", row.ResendOf, err, x)
	}

	// Again, while the first resend's message may have gone: a repeat of it.
	p, err = resend(t, s, x, false)
	if err != nil {
		t.Fatal(err)
	}
	if r := p.Refusal; r == nil || r.Rule != RuleRepeat || r.Repeat.SendID != r1 || r.Count != 1 || r.Resent != r1 ||
		!slices.ContainsFunc(r.Details, func(d string) bool { return strings.Contains(d, "is a resend of send "+x+"'s failures already") }) {
		t.Fatalf("a second resend: %+v", p.Refusal)
	}
	// The first resend's message has no final state yet: nothing to resend.
	_, err = resend(t, s, r1, false)
	var nothing *Refusal
	if !errors.As(err, &nothing) || nothing.Rule != RuleNothing || !strings.Contains(nothing.Reason, "1 with no final state yet, 1 never accepted") {
		t.Fatalf("a resend of nothing failed: %v", err)
	}
	// It fails there too: resent from the resend, it is no repeat of either
	// send it failed in.
	deliver(t, paths, r1, map[int]string{0: "failed"})
	p, err = resend(t, s, r1, false)
	if err != nil || p.Refusal != nil || len(p.Plan.Items) != 1 || p.Plan.Items[0].Recipient != rows[0].Recipient {
		t.Fatalf("a resend of the resend: %v, refused %v", err, p.Refusal)
	}
}

// TestResendChecksTheRulesAgain: a resend goes through every rule of a new
// send as it is now: inside quiet hours it is refused before any request;
// it goes from the send's own line and is never scheduled.
func TestResendChecksTheRulesAgain(t *testing.T) {
	ctx := context.Background()
	v := newService(t, sandbox.Options{})
	paths := tempPaths(t)
	clock := fakeclock.New(tehran(t, 12, 0).UTC())
	s := v.clocked(t, paths, &config.Profile{Name: "default", Sender: sandbox.DefaultSender, QuietHours: "22:00-08:00"}, clock)
	x := send(t, s, pairs(2)).Summary.JobID
	deliver(t, paths, x, map[int]string{0: "failed", 1: "delivered"})

	clock.Advance(11 * time.Hour) // 23:00 in Tehran
	requests := v.sb.Requests()
	p, err := resend(t, s, x, false)
	if err != nil {
		t.Fatal(err)
	}
	if r := p.Refusal; r == nil || r.Rule != RuleQuietHours {
		t.Fatalf("inside quiet hours: %+v", r)
	}
	if n := v.sb.Requests() - requests; n != 0 {
		t.Errorf("%d requests reached the service", n)
	}
	for _, tc := range []struct {
		name string
		req  SendRequest
	}{
		{"another line", SendRequest{Resend: &ResendFailed{ID: x}, Sender: "9999"}},
		{"at a time", SendRequest{Resend: &ResendFailed{ID: x}, AtText: "+2h"}},
	} {
		var r *Refusal
		if _, err := s.PrepareSend(ctx, tc.req); !errors.As(err, &r) || r.Rule != RulePlan {
			t.Errorf("%s: %v, want a plan refusal", tc.name, err)
		}
	}
	if _, err := resend(t, s, "20990101-000000-ffffff", false); !IsNoSuchSend(err) {
		t.Errorf("no such send: %v", err)
	}
}
