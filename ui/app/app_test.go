package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// service is a sandbox over loopback with a session of profile name on it,
// its state in a temporary directory.
type service struct {
	sb      *sandbox.Server
	baseURL string
}

func newService(t *testing.T, opts sandbox.Options) *service {
	t.Helper()
	sb, err := sandbox.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	base, err := sb.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return &service{sb: sb, baseURL: base}
}

func (v *service) session(t *testing.T, paths config.Paths, prof *config.Profile) *Session {
	t.Helper()
	c, err := NewClient(paths, v.baseURL, v.sb.Key(), prof, ClientOptions{}, client.WithRatePerMinute(60000))
	if err != nil {
		t.Fatal(err)
	}
	eng := &Engine{Profile: ResolveProfile(prof.Name, v.baseURL, prof, config.KeyKind(v.sb.Key())), Client: c, Paths: paths}
	return eng.Session(nil)
}

func tempPaths(t *testing.T) config.Paths {
	dir := t.TempDir()
	return config.PathsIn(dir+"/config", dir+"/state")
}

func pairs(n int) []model.PairRow {
	rows := make([]model.PairRow, n)
	for i := range rows {
		rows[i] = model.PairRow{Line: i + 2, Recipient: "0912000000" + string(rune('0'+i)), Message: "code " + string(rune('A'+i))}
	}
	return rows
}

// prepare plans rows from pairs.csv through s and checks them (a repeat
// allowed or not); the pending send may be refused.
func prepare(t *testing.T, s *Session, rows []model.PairRow, allowRepeat bool) *PendingSend {
	t.Helper()
	p, err := s.PrepareSend(context.Background(), SendRequest{Plan: s.Plan(s.Profile.Sender, rows), Source: FileSource("pairs.csv"), AllowRepeat: allowRepeat})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// send plans, checks and sends rows through s, and waits for the outcome.
func send(t *testing.T, s *Session, rows []model.PairRow) Outcome {
	t.Helper()
	p := prepare(t, s, rows, false)
	if p.Refusal != nil {
		t.Fatal(p.Refusal)
	}
	x, err := p.Start(context.Background(), SendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return finish(t, x)
}

// finish waits for a run and reads its outcome back from the journal.
func finish(t *testing.T, x *Send) Outcome {
	t.Helper()
	for range x.Events() {
	}
	out, err := x.Finish()
	if err != nil || out.ReadBack != nil {
		t.Fatalf("finish: %v, read back: %v", err, out.ReadBack)
	}
	return out
}

// TestSendThenRepeatThenResumeRules walks a send through the layer: it goes
// and is journaled; the same pairs again are a repeat refusal; a resume of it
// from another profile or another service is refused before any request,
// naming where it belongs.
func TestSendThenRepeatThenResumeRules(t *testing.T) {
	v := newService(t, sandbox.Options{})
	other := newService(t, sandbox.Options{})
	paths := tempPaths(t)
	live := v.session(t, paths, &config.Profile{Name: "live", Sender: sandbox.DefaultSender})

	out := send(t, live, pairs(3))
	if out.Summary.Counts.Accepted != 3 || len(v.sb.Sent()) != 3 || v.sb.RequestsTo("POST", "/sms/send-pair") != 1 {
		t.Fatalf("counts %+v, sandbox took %d; want 3 accepted", out.Summary.Counts, len(v.sb.Sent()))
	}

	p := prepare(t, live, pairs(3), false)
	r := p.Refusal
	if r == nil || r.Rule != RuleRepeat || !strings.Contains(r.Reason, "3 of 3 pairs were already accepted") || len(r.Details) != 1 ||
		r.Count != 3 || r.Of != 3 || r.Repeat == nil || r.Repeat.SendID != out.Summary.JobID || r.Repeat.Running || r.Repeat.Unknown != 0 {
		t.Fatalf("repeat: %#v", r)
	}
	if strings.Contains(r.Reason, "--") {
		t.Errorf("the layer's reason names a face's flag: %q", r.Reason)
	}
	posts := v.sb.RequestsTo("POST", "/sms/send-pair")
	if _, err := p.Start(context.Background(), SendOptions{}); !errors.Is(err, r) {
		t.Errorf("a refused pending send started: %v", err)
	}
	if n := v.sb.RequestsTo("POST", "/sms/send-pair") - posts; n != 0 {
		t.Errorf("a refused pending send made %d send requests", n)
	}
	if q := prepare(t, live, pairs(3), true); q.Refusal != nil || len(q.Verdict.Repeats) != 1 {
		t.Fatalf("--allow-repeat still refused: %v (repeats %d)", q.Refusal, len(q.Verdict.Repeats))
	}
	if q := p.AllowRepeats(); q.Refusal != nil || !q.AllowRepeat || p.Refusal == nil {
		t.Fatalf("AllowRepeats: %v; the original keeps its refusal: %v", q.Refusal, p.Refusal)
	}

	id := out.Summary.JobID
	test := other.session(t, paths, &config.Profile{Name: "test", Sender: sandbox.DefaultSender})
	before := other.sb.Requests() + v.sb.Requests()
	for _, tt := range []struct {
		name string
		s    *Session
		rule Rule
		want string
	}{
		{"other profile", test, RuleProfile, `send ` + id + ` was made with profile "live", not "test": resume it under profile live`},
		{"other base URL", func() *Session {
			s := other.session(t, paths, &config.Profile{Name: "live", Sender: sandbox.DefaultSender})
			return s
		}(), RuleBaseURL, "send " + id + " went to " + v.baseURL + ", but this profile uses " + other.baseURL},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.s.PrepareResume(t.Context(), id, ResumeOptions{})
			var r *Refusal
			if !errors.As(err, &r) || r.Rule != tt.rule || !strings.HasPrefix(r.Reason, tt.want) {
				t.Fatalf("got %v, want a %s refusal %q", err, tt.rule, tt.want)
			}
		})
	}
	if after := other.sb.Requests() + v.sb.Requests(); after != before {
		t.Errorf("%d requests reached a service during refused resumes", after-before)
	}
	// The base-URL rule gives way when the operator named the service.
	s := other.session(t, paths, &config.Profile{Name: "live", Sender: sandbox.DefaultSender})
	res, err := s.PrepareResume(t.Context(), id, ResumeOptions{AnyBaseURL: true})
	if err != nil || len(res.Todo) != 0 {
		t.Fatalf("resume with the base URL named: %v, todo %v; want nothing left to send", err, res.Todo)
	}
}

// TestHistoryIsTheSessions: a session lists its own profile's sends against
// its service; all lists every one, each naming its profile.
func TestHistoryIsTheSessions(t *testing.T) {
	v := newService(t, sandbox.Options{})
	paths := tempPaths(t)
	live := v.session(t, paths, &config.Profile{Name: "live", Sender: sandbox.DefaultSender})
	test := v.session(t, paths, &config.Profile{Name: "test", Sender: sandbox.DefaultSender})
	send(t, live, pairs(2))
	// Other pairs: the two profiles share the account (the sandbox and its
	// key), so the same pair would be a repeat of live's send.
	send(t, test, []model.PairRow{{Line: 2, Recipient: "09120000009", Message: "code Z"}})
	for _, tt := range []struct {
		s    *Session
		all  bool
		want []string
	}{
		{live, false, []string{"live"}},
		{test, false, []string{"test"}},
		{live, true, []string{"test", "live"}}, // newest first
	} {
		h, err := tt.s.History(t.Context(), tt.all)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range h {
			got = append(got, e.Profile())
		}
		if strings.Join(got, ",") != strings.Join(tt.want, ",") {
			t.Errorf("%s all=%v: profiles %v, want %v", tt.s.Profile.Name, tt.all, got, tt.want)
		}
	}
}

// TestRefusalsBeforeAnyRequest: each send rule refuses with its rule and
// reason, and nothing reaches the service.
func TestRefusalsBeforeAnyRequest(t *testing.T) {
	little := int64(2)
	for _, tt := range []struct {
		name string
		opts sandbox.Options
		prof config.Profile
		rows []model.PairRow
		rule Rule
		want string
		data func(r *Refusal) bool // what a face words its hint from
	}{
		{"bad setting", sandbox.Options{}, config.Profile{RepeatWindow: "banana"}, pairs(1), RuleSetting, "profile p: repeat_window:",
			func(r *Refusal) bool { return r.Profile == "p" }},
		{"foreign number", sandbox.Options{}, config.Profile{}, []model.PairRow{{Line: 2, Recipient: "+14155550100", Message: "hi"}}, RuleRows,
			"1 of 1 rows in pairs.csv cannot be sent", func(r *Refusal) bool { return r.Count == 1 && r.Of == 1 && r.Source == "pairs.csv" }},
		{"credit short", sandbox.Options{Credit: &little}, config.Profile{}, pairs(3), RuleCredit, "not enough credit: the send needs 3 parts, the account has 2",
			func(r *Refusal) bool {
				return len(r.Problems) == 1 && r.Problems[0].Kind == model.ProblemCreditParts && r.Problems[0].Need == 3 && r.Problems[0].Have == 2
			}},
		{"sender not the account's", sandbox.Options{}, config.Profile{Senders: []string{"1000"}, Sender: "2000"}, pairs(1), RulePlan, "sender ",
			func(r *Refusal) bool {
				return r.Profile == "p" && len(r.Problems) == 1 && r.Problems[0].Kind == model.ProblemSenderLine && r.Problems[0].Sender == "2000"
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v := newService(t, tt.opts)
			prof := tt.prof
			prof.Name = "p"
			if prof.Sender == "" {
				prof.Sender = sandbox.DefaultSender
			}
			s := v.session(t, tempPaths(t), &prof)
			before := v.sb.RequestsTo("POST", "/sms/send-pair")
			p, err := s.PrepareSend(context.Background(), SendRequest{Plan: s.Plan(s.Profile.Sender, tt.rows), Source: FileSource("pairs.csv")})
			if err == nil {
				err = p.Refused()
			}
			var r *Refusal
			if !errors.As(err, &r) || r.Rule != tt.rule || !strings.HasPrefix(r.Reason, tt.want) {
				t.Fatalf("got %v, want a %s refusal starting %q", err, tt.rule, tt.want)
			}
			if !tt.data(r) {
				t.Errorf("the refusal's data: %+v", r)
			}
			if n := v.sb.RequestsTo("POST", "/sms/send-pair") - before; n != 0 {
				t.Errorf("%d send requests reached the service", n)
			}
		})
	}
}

// TestNoSenderAndNotSignedIn: the two refusals a face meets before a plan.
func TestNoSenderAndNotSignedIn(t *testing.T) {
	s := &Session{Profile: ResolveProfile("p", "", &config.Profile{}, ""), Paths: tempPaths(t), Now: func() time.Time { return time.Unix(0, 0) }}
	var r *Refusal
	if _, err := s.Sender(" "); !errors.As(err, &r) || r.Rule != RuleNoSender {
		t.Errorf("Sender: %v", err)
	}
	p, err := s.PrepareSend(context.Background(), SendRequest{Plan: s.Plan("3000", pairs(1)), Source: FileSource("x")})
	if err != nil || p.Refusal != nil { // offline: a dry run
		t.Fatalf("PrepareSend without a client: %v %v", err, p.Refusal)
	}
	if _, err := p.Start(context.Background(), SendOptions{}); !errors.Is(err, ErrNotSignedIn) {
		t.Errorf("Start without a client: %v", err)
	}
}

// TestFactsUseTheAnnouncedBudget: the plan's time comes from the pace the
// service announces (5 per second here), not the profile's 60 a minute.
func TestFactsUseTheAnnouncedBudget(t *testing.T) {
	v := newService(t, sandbox.Options{RatePerMinute: 5, RateWindow: time.Second, RateHeaders: sandbox.RateHeadersFull})
	s := v.session(t, tempPaths(t), &config.Profile{Name: "p", Sender: sandbox.DefaultSender, RatePerMinute: 60, ChunkSize: 1})
	rows := make([]model.PairRow, 150)
	for i := range rows {
		rows[i] = model.PairRow{Line: i + 2, Recipient: fmt.Sprintf("0912%07d", i), Message: "hi"}
	}
	p := prepare(t, s, rows, false)
	if p.Refusal != nil {
		t.Fatal(p.Refusal)
	}
	// The sandbox announces its limit, not its window: a second at least,
	// 150 requests in 29 whole windows after the first.
	facts, v2 := p.Facts, p.Verdict
	want := model.Pace{Limit: 5, Window: time.Second, From: model.PaceLimit}
	if facts.Pace != want || v2.Summary.Requests != 150 || v2.Summary.Duration != 29*time.Second {
		t.Errorf("pace %+v, %d requests in %v; want %+v, 150 in 29s", facts.Pace, v2.Summary.Requests, v2.Summary.Duration, want)
	}
}
