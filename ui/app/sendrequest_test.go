package app

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// TestOneRequestPlansWhatItNames: PrepareSend plans what the request
// names (pairs given one by one, a pairs file, a file or a group's
// contacts through a template) from its sender line, and names the
// source; a pairs file's layout comes back for the face to say.
func TestOneRequestPlansWhatItNames(t *testing.T) {
	v := newService(t, sandbox.Options{Seed: true})
	s := v.session(t, tempPaths(t), &config.Profile{Name: "p", Sender: sandbox.DefaultSender})
	tmpl, err := ParseTemplate("Hi {name|friend}")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		req    SendRequest
		items  int
		source string
		layout bool
	}{
		{"pairs given", SendRequest{Rows: ArgRows([]string{"09121234567", "09351234567"}, []string{"a", "b"})}, 2, "--to/--message", false},
		{"pairs file", SendRequest{File: &FileRows{R: strings.NewReader("mobile,message\n09121234567,hi\n"), Name: "pairs.csv"}}, 1, "pairs.csv", true},
		{"contacts file", SendRequest{File: &FileRows{R: strings.NewReader("mobile,name\n09121234567,Sara\n09351234567,Ali\n"), Name: "c.csv"}, Template: tmpl}, 2, "c.csv", false},
		{"group", SendRequest{Group: " 4", Template: tmpl}, 0, "group 4", false},
		{"a plan of the face's", SendRequest{Plan: s.Plan(sandbox.DefaultSender, pairs(3)), Source: TypedSource()}, 3, "the composer", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.req.DryRun = true
			p, err := s.PrepareSend(context.Background(), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if p.Plan.Sender != sandbox.DefaultSender || tt.items > 0 && len(p.Plan.Items) != tt.items || len(p.Plan.Items) == 0 {
				t.Errorf("plan from %s with %d items; want %d", p.Plan.Sender, len(p.Plan.Items), tt.items)
			}
			if !strings.HasPrefix(p.Source.Name, tt.source) {
				t.Errorf("source %q, want %q", p.Source.Name, tt.source)
			}
			if (p.Layout != nil) != tt.layout {
				t.Errorf("layout %v", p.Layout)
			}
		})
	}
}

// TestOneRequestRefusesWhatDoesNotRead: what a request cannot be read as
// is refused before any rule or request: a once-only id that cannot be
// one, a group id that is none, no sender line, a time that does not
// read, a pairs file without a message column, nothing to send.
func TestOneRequestRefusesWhatDoesNotRead(t *testing.T) {
	v := newService(t, sandbox.Options{})
	s := v.session(t, tempPaths(t), &config.Profile{Name: "p"})
	rows := ArgRows([]string{"09121234567"}, []string{"hi"})
	tmpl, _ := ParseTemplate("Hi {name}")
	for _, tt := range []struct {
		name string
		req  SendRequest
		rule Rule
		is   error
	}{
		{"once id", SendRequest{Rows: rows, Sender: "3000", OnceID: " x"}, RuleOnceID, nil},
		{"group id", SendRequest{Group: "abc", Template: tmpl, Sender: "3000"}, RuleGroupID, nil},
		{"no sender", SendRequest{Rows: rows}, RuleNoSender, nil},
		{"time", SendRequest{Rows: rows, Sender: "3000", AtText: "soon"}, RuleAt, nil},
		{"no message column", SendRequest{File: &FileRows{R: strings.NewReader("mobile,name\n09121234567,Sara\n"), Name: "c.csv"}, Sender: "3000"}, "", model.ErrNoMessageColumn},
		{"nothing", SendRequest{Sender: "3000"}, "", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := s.PrepareSend(context.Background(), tt.req)
			if p != nil || err == nil {
				t.Fatalf("got %+v, %v; want an error", p, err)
			}
			var r *Refusal
			switch {
			case tt.rule != "" && (!errors.As(err, &r) || r.Rule != tt.rule):
				t.Errorf("%v: want rule %s", err, tt.rule)
			case tt.is != nil && !errors.Is(err, tt.is):
				t.Errorf("%v: want %v", err, tt.is)
			case !strings.Contains(err.Error(), "nothing was") && tt.rule != RuleOnceID && tt.rule != RuleGroupID && tt.rule != RuleNoSender:
				t.Errorf("%v: says nothing of what was not done", err)
			}
		})
	}
	if n := v.sb.RequestsTo("POST", "/sms/send-pair"); n != 0 {
		t.Errorf("%d send requests", n)
	}
}

// TestOneRequestReadsItsTime: a time written as the operator wrote it is
// read in the profile's timezone, and the send is then scheduled for it
// (the console's "at …" and send-pair --at send the same request).
func TestOneRequestReadsItsTime(t *testing.T) {
	v := newService(t, sandbox.Options{})
	s := v.session(t, tempPaths(t), &config.Profile{Name: "p", Sender: sandbox.DefaultSender})
	now := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	s.Now = func() time.Time { return now }
	p, err := s.PrepareSend(context.Background(), SendRequest{Rows: ArgRows([]string{"09121234567"}, []string{"hi"}), AtText: "+2h"})
	if err != nil || p.Refusal != nil {
		t.Fatal(err, p.Refusal)
	}
	if !p.At.Equal(now.Add(2 * time.Hour)) {
		t.Errorf("at %v, want %v", p.At, now.Add(2*time.Hour))
	}
}

// TestDryRunIsNeverSent: a dry run's pending send is checked like any
// other, and neither starts nor is scheduled: nothing reaches the service
// or the ledger.
func TestDryRunIsNeverSent(t *testing.T) {
	v := newService(t, sandbox.Options{})
	paths := tempPaths(t)
	s := v.session(t, paths, &config.Profile{Name: "p", Sender: sandbox.DefaultSender})
	ctx := context.Background()
	p, err := s.PrepareSend(ctx, SendRequest{Rows: ArgRows([]string{"09121234567"}, []string{"hi"}), DryRun: true})
	if err != nil || p.Refusal != nil {
		t.Fatal(err, p.Refusal)
	}
	if _, err := p.Start(ctx, SendOptions{}); err == nil || !strings.Contains(err.Error(), "dry run") {
		t.Errorf("Start of a dry run: %v", err)
	}
	p.At = s.now().Add(time.Hour)
	if _, err := p.Schedule(ctx); err == nil || !strings.Contains(err.Error(), "dry run") {
		t.Errorf("Schedule of a dry run: %v", err)
	}
	if n := v.sb.RequestsTo("POST", "/sms/send-pair"); n != 0 {
		t.Errorf("%d send requests", n)
	}
	if list, err := s.History(t.Context(), false); err != nil || len(list) != 0 {
		t.Errorf("history %d, %v", len(list), err)
	}
}
