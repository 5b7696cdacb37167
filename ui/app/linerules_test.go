package app

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/model/fakeclock"
)

// TestAdvertisingLineHoldsAndResumes (issue 42 §6): a profile with no
// quiet hours of its own, on an advertising line, sends to MCI numbers
// from 21:58 Tehran: the run is held at 22:00 naming the line's kind and
// waits until 07:00 (the line's window, not the profile's: it has none); a
// resume at 22:02 is refused as the new send was (the resume decides the
// line's rules from the journal); at 07:00 it sends the rest.
func TestAdvertisingLineHoldsAndResumes(t *testing.T) {
	ctx := context.Background()
	clock := fakeclock.New(tehran(t, 21, 58).UTC())
	v := ticking(t, clock) // each request takes a minute
	paths := tempPaths(t)
	s := v.clocked(t, paths, &config.Profile{Name: "a", Sender: sandbox.DefaultSender, ChunkSize: 2}, clock)
	if _, err := s.SetLineKind(ctx, sandbox.DefaultSender, model.LineAdvertising); err != nil {
		t.Fatal(err)
	}
	p, err := s.PrepareSend(ctx, SendRequest{Plan: s.Plan(s.Profile.Sender, pairs(7)), Source: FileSource("pairs.csv")})
	if err != nil || p.Refusal != nil {
		t.Fatal(err, p.Refusal)
	}
	if p.Line.Kind != model.LineAdvertising || p.Line.MCI != 7 || len(p.Line.Quiet) != 1 {
		t.Fatalf("line %+v", p.Line)
	}
	x, err := p.Start(ctx, SendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := finish(t, x)
	if c := out.Summary.Counts; c.Accepted != 4 || c.NotSent != 3 || out.Summary.Cause != StopQuiet {
		t.Fatalf("held run: %+v cause %q", c, out.Summary.Cause)
	}
	st, _ := config.ReadJournal(t.Context(), paths, out.Summary.JobID)
	if !st.Held() || !st.HeldUntil.Equal(tehran(t, 7, 0).AddDate(0, 0, 1)) ||
		!strings.Contains(st.Stopped, "advertising line 3000505 to MCI numbers: quiet hours 22:00–07:00 Asia/Tehran began at 22:00") {
		t.Fatalf("journal: held %v until %v %q", st.Held(), st.HeldUntil, st.Stopped)
	}
	_, err = s.PrepareResume(t.Context(), out.Summary.JobID, ResumeOptions{})
	var r *Refusal
	if !errors.As(err, &r) || r.Rule != RuleQuietHours || !strings.Contains(r.Reason, "advertising line 3000505") {
		t.Fatalf("resume at 22:02: %v", err)
	}
	clock.Advance(st.HeldUntil.Sub(clock.Now()))
	rs, err := s.PrepareResume(t.Context(), out.Summary.JobID, ResumeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if x, _, err = rs.Start(ctx, SendOptions{}); err != nil {
		t.Fatal(err)
	}
	if out = finish(t, x); out.Summary.Counts.Accepted != 7 {
		t.Fatalf("resumed at 07:00: %+v", out.Summary.Counts)
	}
}

// TestLineKindChangedWhileAsked: a service line's send is planned with
// «لغو۱۱» though the profile sets no suffix; the line made advertising
// while its question is open refuses its start (nothing sent), as a
// config set would.
func TestLineKindChangedWhileAsked(t *testing.T) {
	ctx := context.Background()
	v := newService(t, sandbox.Options{})
	s := v.session(t, tempPaths(t), &config.Profile{Name: "a", Sender: sandbox.DefaultSender})
	if _, err := s.SetLineKind(ctx, sandbox.DefaultSender, model.LineService); err != nil {
		t.Fatal(err)
	}
	p := prepare(t, s, pairs(2), false)
	if p.Refusal != nil || p.Plan.Suffix != model.ServiceSuffix || !strings.HasSuffix(p.Plan.Items[0].Message, "\n"+model.ServiceSuffix) {
		t.Fatalf("refusal %v, suffix %q, message %q", p.Refusal, p.Plan.Suffix, p.Plan.Items[0].Message)
	}
	if was, err := s.SetLineKind(ctx, sandbox.DefaultSender, model.LineAdvertising); err != nil || was != model.LineService {
		t.Fatal(was, err)
	}
	_, err := p.Start(ctx, SendOptions{})
	var r *Refusal
	if !errors.As(err, &r) || r.Rule != RuleSettingsChanged || !strings.Contains(r.Reason, "the kind of line 3000505 service → advertising") {
		t.Fatalf("start after the kind changed: %v", err)
	}
	if n := len(v.sb.Sent()); n != 0 {
		t.Errorf("%d sent", n)
	}
	if _, err := s.SetLineKind(ctx, "30\n00", model.LineService); !isRule(err, RuleLine) {
		t.Errorf("a line with a line break: %v", err)
	}
}
