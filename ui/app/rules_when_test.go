package app

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/model/fakeclock"
)

// tehran is the default zone's 2026-11-25 at hh:mm.
func tehran(t *testing.T, hh, mm int) time.Time {
	t.Helper()
	loc, err := model.LoadTimezone("")
	if err != nil {
		t.Fatal(err)
	}
	return time.Date(2026, 11, 25, hh, mm, 0, 0, loc)
}

// clocked is a session on v whose clock is c (the engine's too); each
// request to the service takes perRequest on it when wrapped by tick.
func (v *service) clocked(t *testing.T, paths config.Paths, prof *config.Profile, c *fakeclock.Clock) *Session {
	t.Helper()
	cl, err := NewClient(paths, v.baseURL, v.sb.Key(), prof, ClientOptions{Now: c.Now, Sleep: c.Sleep}, client.WithRatePerMinute(60000))
	if err != nil {
		t.Fatal(err)
	}
	eng := &Engine{Profile: ResolveProfile(prof.Name, v.baseURL, prof, config.KeyKind(v.sb.Key())), Client: cl, Paths: paths, Now: c.Now, Sleep: c.Sleep}
	return eng.Session(nil)
}

// wrapped serves a sandbox behind wrap, over loopback.
func wrapped(t *testing.T, wrap func(http.Handler) http.Handler) *service {
	t.Helper()
	sb, err := sandbox.New(sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	srv := httptest.NewServer(wrap(sb.Handler()))
	t.Cleanup(srv.Close)
	return &service{sb: sb, baseURL: srv.URL + "/api/v1"}
}

// ticking serves a sandbox whose every send request takes a minute on c.
func ticking(t *testing.T, c *fakeclock.Clock) *service {
	return wrapped(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.ServeHTTP(w, r)
			if r.Method == http.MethodPost {
				c.Advance(time.Minute)
			}
		})
	})
}

// outOfCredit serves a sandbox that answers 402 to send requests after the
// first n, until topped up.
func outOfCredit(t *testing.T, n int32, toppedUp *atomic.Bool) *service {
	var seen atomic.Int32
	return wrapped(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost && seen.Add(1) > n && !toppedUp.Load() {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusPaymentRequired)
				_, _ = w.Write([]byte(`{"error":{"code":"insufficient_credit","message":"no credit"}}`))
				return
			}
			h.ServeHTTP(w, r)
		})
	})
}

func sentTo(sb *sandbox.Server, mobile string) bool {
	return slices.ContainsFunc(sb.Sent(), func(m sandbox.SentMessage) bool { return m.Recipient == mobile })
}

// TestOptedOutNeverSent: an opted-out number in a file, a group (template)
// send and a resume is never sent, and is journaled as opted out; an opt-out
// for one line does not stop another line; the list is shared by two
// profiles on one account.
func TestOptedOutNeverSent(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		// optOut is put on the list (for line, or every line when "") by
		// profile "a"; profile "b" sends.
		optOut, line string
		sender       string
		group        bool
		wantSkipped  bool
	}{
		{name: "file", optOut: "+989121110002", wantSkipped: true},
		{name: "group template", optOut: "09352345678", group: true, wantSkipped: true},
		{name: "the opt-out's own line", optOut: "09121110002", line: "3000505", sender: "3000505", wantSkipped: true},
		{name: "another line", optOut: "09121110002", line: "10004346", sender: "3000505", wantSkipped: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := newService(t, sandbox.Options{Seed: true})
			paths := tempPaths(t)
			a := v.session(t, paths, &config.Profile{Name: "a", Sender: sandbox.DefaultSender})
			b := v.session(t, paths, &config.Profile{Name: "b", Sender: sandbox.DefaultSender})
			if _, err := a.AddOptOuts(t.Context(), []string{mustKey(t, tc.optOut)}, tc.line, ""); err != nil {
				t.Fatal(err)
			}
			rows := []model.PairRow{{Line: 2, Recipient: "09121110001", Message: "a"}, {Line: 3, Recipient: "09121110002", Message: "b"}}
			src := FileSource("pairs.csv")
			if tc.group {
				tmpl, _ := ParseTemplate("Hello {name|friend}")
				var err error
				if rows, src, err = b.GroupRows(ctx, "1", tmpl); err != nil {
					t.Fatal(err)
				}
			}
			sender := firstNonEmptyString(tc.sender, b.Profile.Sender)
			asked := b.Plan(sender, rows)
			p, err := b.PrepareSend(ctx, SendRequest{Plan: asked, Source: src})
			if err != nil || p.Refusal != nil {
				t.Fatalf("prepare: %v %v", err, p.Refusal)
			}
			// The pending send marks its own copy: the face's plan (which the
			// console draws while PrepareSend runs in a Cmd) is left alone. A
			// plan with no one to mark is not copied (a million rows are
			// 145 MB), and is not written either.
			if len(p.OptedOut) > 0 && p.Plan == asked || len(asked.OptedOutRecipients()) != 0 {
				t.Fatalf("PrepareSend marked the face's plan: %v", asked.OptedOutRecipients())
			}
			if got := len(p.OptedOut) == 1; got != tc.wantSkipped || p.Verdict.Summary.OptedOut != len(p.OptedOut) {
				t.Fatalf("opted out %+v, summary %+v", p.OptedOut, p.Verdict.Summary)
			}
			x, err := p.Start(ctx, SendOptions{})
			if err != nil {
				t.Fatal(err)
			}
			out := finish(t, x)
			key := mustKey(t, tc.optOut)
			if sentTo(v.sb, key) == tc.wantSkipped {
				t.Errorf("sent to %s: %v, want %v", key, !tc.wantSkipped, !tc.wantSkipped)
			}
			want := 0
			if tc.wantSkipped {
				want = 1
			}
			if out.Summary.Counts.OptedOut != want || out.Summary.Counts.Accepted != len(rows)-want {
				t.Errorf("counts %+v", out.Summary.Counts)
			}
		})
	}
}

// TestResumeLeavesOutOptedOut: a send stopped by the service (out of
// credit), a number of what it left put on the list, then resumed: that
// number is not offered, never sent, and journaled as opted out.
func TestResumeLeavesOutOptedOut(t *testing.T) {
	ctx := context.Background()
	var toppedUp atomic.Bool
	v := outOfCredit(t, 2, &toppedUp)
	paths := tempPaths(t)
	s := v.session(t, paths, &config.Profile{Name: "a", Sender: sandbox.DefaultSender, ChunkSize: 1})
	rows := pairs(4)
	p, err := s.PrepareSend(ctx, SendRequest{Plan: s.Plan(s.Profile.Sender, rows), Source: FileSource("pairs.csv")})
	if err != nil || p.Refusal != nil {
		t.Fatal(err, p.Refusal)
	}
	x, err := p.Start(ctx, SendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := finish(t, x)
	if out.Summary.Counts.NotSent != 2 {
		t.Fatalf("first run %+v", out.Summary.Counts)
	}
	if _, err := s.AddOptOuts(t.Context(), []string{rows[3].Recipient}, "", ""); err != nil {
		t.Fatal(err)
	}
	toppedUp.Store(true)
	r, err := s.PrepareResume(t.Context(), out.Summary.JobID, ResumeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.OptedOut, []int{3}) || slices.Contains(r.Todo, 3) {
		t.Fatalf("resume offers %v, opted out %v", r.Todo, r.OptedOut)
	}

	x, _, err = r.Start(ctx, SendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out = finish(t, x)
	if sentTo(v.sb, rows[3].Recipient) || out.Summary.Counts.OptedOut != 1 || out.Summary.Counts.Accepted != 3 {
		t.Fatalf("resumed: %+v", out.Summary.Counts)
	}
	if st, _ := config.ReadJournal(t.Context(), paths, out.Summary.JobID); slices.Contains(st.ResumeIndexes(true), 3) {
		t.Error("a later resume would offer the opted-out item")
	}
}

// TestSuffixCountedAndJournaled: the suffix ends every message as sent and
// is counted in its parts; --no-suffix is journaled.
func TestSuffixCountedAndJournaled(t *testing.T) {
	ctx := context.Background()
	v := newService(t, sandbox.Options{})
	paths := tempPaths(t)
	s := v.session(t, paths, &config.Profile{Name: "a", Sender: sandbox.DefaultSender, OptOutSuffix: "لغو۱۱"})
	latin := strings.Repeat("a", 150)
	for _, tc := range []struct {
		noSuffix bool
		message  string
		parts    int
	}{
		{false, latin + "\nلغو۱۱", 3}, // UCS-2: 156 units
		{true, latin, 1},
	} {
		plan := s.PlanWith(s.Profile.Sender, []model.PairRow{{Line: 2, Recipient: "09121110001", Message: latin}}, tc.noSuffix)
		p, err := s.PrepareSend(ctx, SendRequest{Plan: plan, Source: FileSource("pairs.csv"), AllowRepeat: true})
		if err != nil || p.Refusal != nil {
			t.Fatal(err, p.Refusal)
		}
		if it := p.Verdict.Summary.Samples[0]; it.Message != tc.message || it.Parts.Parts != tc.parts || p.Verdict.Summary.Parts != tc.parts {
			t.Errorf("no-suffix %v: sample %q, %d parts", tc.noSuffix, it.Message, it.Parts.Parts)
		}
		x, err := p.Start(ctx, SendOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out := finish(t, x)
		st, _ := config.ReadJournal(t.Context(), paths, out.Summary.JobID)
		if st.Items[0].Message != tc.message || st.Plan.NoSuffix != tc.noSuffix || (st.Plan.Suffix != "") == tc.noSuffix {
			t.Errorf("journal: %q no_suffix %v suffix %q", st.Items[0].Message, st.Plan.NoSuffix, st.Plan.Suffix)
		}
	}
	// The 600-character limit counts the suffix.
	plan := s.Plan(s.Profile.Sender, []model.PairRow{{Line: 2, Recipient: "09121110001", Message: strings.Repeat("b", 598)}})
	if len(plan.Items[0].Problems) == 0 || !strings.Contains(plan.Items[0].Problems[0], "604 characters, over the 600 limit") {
		t.Errorf("600 limit: %v", plan.Items[0].Problems)
	}
}

// TestQuietHours: a window that wraps midnight refuses a send (and a
// resume) that would start inside it, before any request; one that begins
// during a send holds the rest there (none unknown, resumable); the plan
// warns beforehand; --ignore-quiet-hours is recorded, and needs an admin
// on a served console.
func TestQuietHours(t *testing.T) {
	ctx := context.Background()
	prof := func() *config.Profile {
		return &config.Profile{Name: "a", Sender: sandbox.DefaultSender, QuietHours: "22:00-08:00", ChunkSize: 2}
	}
	for _, tc := range []struct {
		name   string
		at     time.Time
		reason string
	}{
		{"before midnight", tehran(t, 23, 30), "quiet hours 22:00–08:00 Asia/Tehran; sending may start at tomorrow 08:00; nothing was sent"},
		{"after midnight", tehran(t, 3, 0), "quiet hours 22:00–08:00 Asia/Tehran; sending may start at 08:00; nothing was sent"},
		{"at the start", tehran(t, 22, 0), "sending may start at tomorrow 08:00"},
	} {
		t.Run("refused "+tc.name, func(t *testing.T) {
			v := newService(t, sandbox.Options{})
			s := v.clocked(t, tempPaths(t), prof(), fakeclock.New(tc.at.UTC()))
			p, err := s.PrepareSend(ctx, SendRequest{Plan: s.Plan(s.Profile.Sender, pairs(3)), Source: FileSource("pairs.csv")})
			if err != nil {
				t.Fatal(err)
			}
			if r := p.Refusal; r == nil || r.Rule != RuleQuietHours || !strings.Contains(r.Reason, tc.reason) || r.Quiet == nil {
				t.Fatalf("refusal %+v", r)
			}
			if _, err := p.Start(ctx, SendOptions{}); err == nil {
				t.Fatal("a refused send started")
			}
			if n := v.sb.Requests(); n != 0 {
				t.Errorf("%d requests reached the service (the credit look-up too is one)", n)
			}
		})
	}

	t.Run("begins during a send", func(t *testing.T) {
		clock := fakeclock.New(tehran(t, 21, 58).UTC())
		v := ticking(t, clock) // each request takes a minute
		paths := tempPaths(t)
		s := v.clocked(t, paths, prof(), clock)
		p, err := s.PrepareSend(ctx, SendRequest{Plan: s.Plan(s.Profile.Sender, pairs(7)), Source: FileSource("pairs.csv")})
		if err != nil || p.Refusal != nil {
			t.Fatal(err, p.Refusal)
		}
		x, err := p.Start(ctx, SendOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out := finish(t, x)
		c := out.Summary.Counts
		if c.Accepted != 4 || c.NotSent != 3 || c.Unknown != 0 || out.Summary.Cause != StopQuiet || len(v.sb.Sent()) != 4 {
			t.Fatalf("held run: %+v cause %q, service took %d", c, out.Summary.Cause, len(v.sb.Sent()))
		}
		st, _ := config.ReadJournal(t.Context(), paths, out.Summary.JobID)
		if !st.Held() || !st.HeldUntil.Equal(tehran(t, 8, 0).AddDate(0, 0, 1)) || SendStatus(st, false) != "held" ||
			!strings.Contains(st.Stopped, "quiet hours 22:00–08:00 Asia/Tehran began at 22:00") {
			t.Fatalf("journal: held %v until %v status %s %q", st.Held(), st.HeldUntil, SendStatus(st, false), st.Stopped)
		}
		// A resume inside quiet hours is refused; at 08:00 it sends the rest.
		if _, err := s.PrepareResume(t.Context(), out.Summary.JobID, ResumeOptions{}); !isRule(err, RuleQuietHours) {
			t.Fatalf("resume at 22:02: %v", err)
		}
		clock.Advance(st.HeldUntil.Sub(clock.Now()))
		r, err := s.PrepareResume(t.Context(), out.Summary.JobID, ResumeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		x, _, err = r.Start(ctx, SendOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if out = finish(t, x); out.Summary.Counts.Accepted != 7 || len(v.sb.Sent()) != 7 {
			t.Fatalf("resumed at 08:00: %+v", out.Summary.Counts)
		}
	})

	t.Run("the plan warns", func(t *testing.T) {
		v := newService(t, sandbox.Options{RatePerMinute: 1}) // it announces 1 a minute
		pr := prof()
		pr.RatePerMinute, pr.ChunkSize = 1, 100
		s := v.clocked(t, tempPaths(t), pr, fakeclock.New(tehran(t, 21, 55).UTC()))
		rows := make([]model.PairRow, 1000)
		for i := range rows {
			rows[i] = model.PairRow{Line: i + 2, Recipient: fmt.Sprintf("0912%07d", i+1), Message: "m"}
		}
		p, err := s.PrepareSend(ctx, SendRequest{Plan: s.Plan(s.Profile.Sender, rows), Source: FileSource("pairs.csv")})
		if err != nil || p.Refusal != nil {
			t.Fatal(err, p.Refusal)
		}
		// 10 requests a minute apart from 21:55: five before 22:00.
		if p.Quiet == nil || p.Quiet.Held != 500 || p.Quiet.Text(p.Facts.Now) != "quiet hours start at 22:00: about 500 would wait until tomorrow 08:00" {
			t.Fatalf("forecast %+v", p.Quiet)
		}
	})

	t.Run("ignored, recorded", func(t *testing.T) {
		v := newService(t, sandbox.Options{})
		paths := tempPaths(t)
		s := v.clocked(t, paths, prof(), fakeclock.New(tehran(t, 23, 0).UTC()))
		s.Operator = &model.Operator{Name: "sara", Role: model.RoleSender}
		req := SendRequest{Plan: s.Plan(s.Profile.Sender, pairs(2)), Source: FileSource("pairs.csv"), IgnoreQuietHours: true}
		if _, err := s.PrepareSend(ctx, req); !isRule(err, RuleRole) {
			t.Fatalf("a sender ignored quiet hours: %v", err)
		}
		s.Operator.Role = model.RoleAdmin
		p, err := s.PrepareSend(ctx, req)
		if err != nil || p.Refusal != nil {
			t.Fatal(err, p.Refusal)
		}
		x, err := p.Start(ctx, SendOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out := finish(t, x)
		st, _ := config.ReadJournal(t.Context(), paths, out.Summary.JobID)
		if out.Summary.Counts.Accepted != 2 || !st.Plan.IgnoreQuietHours || st.Plan.QuietHours != "quiet hours 22:00–08:00 Asia/Tehran" || st.Plan.Operator == nil {
			t.Fatalf("journal %+v", st.Plan)
		}
		audit, _ := config.AuditText(t.Context(), paths)
		if !strings.Contains(string(audit), `"action":"ignore_quiet_hours"`) || !strings.Contains(string(audit), `"name":"sara"`) || !strings.Contains(string(audit), out.Summary.JobID) {
			t.Errorf("audit:\n%s", audit)
		}
	})
}

func isRule(err error, rule Rule) bool {
	var r *Refusal
	return errors.As(err, &r) && r.Rule == rule
}

func mustKey(t *testing.T, n string) string {
	t.Helper()
	k, err := model.OptOutKey(n)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func firstNonEmptyString(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// TestQuietSoon: a status line names quiet hours when they are less than an
// hour away, or now.
func TestQuietSoon(t *testing.T) {
	s := &Session{Profile: ResolveProfile("a", "", &config.Profile{QuietHours: "22:00-08:00"}, "")}
	for _, tc := range []struct {
		at   time.Time
		soon bool
	}{{tehran(t, 20, 59), false}, {tehran(t, 21, 1), true}, {tehran(t, 23, 0), true}, {tehran(t, 8, 0), false}} {
		if got := s.QuietSoon(tc.at.UTC()) != nil; got != tc.soon {
			t.Errorf("%v: soon %v", tc.at, got)
		}
	}
}

// TestResumeWithUnknownLeavesOutOptedOut: a chunk whose answer was lost
// (its three items unknown), one of them put on the opt-out list since,
// resumed with the unknown items: the chunk is not offered as going again
// as it went (it would reach the opted-out recipient), its other two go
// apart, saying why, and the opted-out recipient gets nothing more.
func TestResumeWithUnknownLeavesOutOptedOut(t *testing.T) {
	ctx := context.Background()
	v := newService(t, sandbox.Options{DropEvery: 2}) // the second send-pair request's answer is lost
	paths := tempPaths(t)
	s := v.session(t, paths, &config.Profile{Name: "a", Sender: sandbox.DefaultSender, ChunkSize: 3})
	rows := pairs(6)
	out := send(t, s, rows)
	if c := out.Summary.Counts; c.Unknown != 3 || c.Accepted != 3 {
		t.Fatalf("first run %+v, want chunk 1 (items 3-5) unknown", c)
	}
	if _, err := s.AddOptOuts(t.Context(), []string{rows[4].Recipient}, "", ""); err != nil {
		t.Fatal(err)
	}
	r, err := s.PrepareResume(t.Context(), out.Summary.JobID, ResumeOptions{IncludeUnknown: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.AsFirstSent != 0 || len(r.Apart) != 1 || !slices.Equal(r.Apart[0].Unknown, []int{3, 5}) || !strings.Contains(r.Apart[0].Why, "opt-out list since") ||
		!slices.Equal(r.OptedOut, []int{4}) || !slices.Equal(r.Todo, []int{3, 5}) || !slices.Equal(r.Unknown, []int{3, 5}) {
		t.Fatalf("resume: as first sent %d, apart %+v, opted out %v, todo %v, unknown (sent again) %v", r.AsFirstSent, r.Apart, r.OptedOut, r.Todo, r.Unknown)
	}
	x, _, err := r.Start(ctx, SendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	finish(t, x)
	n := 0
	for _, m := range v.sb.Sent() {
		if m.Recipient == rows[4].Recipient {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the opted-out recipient got %d messages, want the first run's 1", n)
	}
}

// TestResumeTime: a resume says how long what it sends takes, as a new
// send's confirmation does: the items left, in the send's own chunks, at
// the pace the client keeps (the profile's 1 a minute here).
func TestResumeTime(t *testing.T) {
	var toppedUp atomic.Bool
	v := outOfCredit(t, 2, &toppedUp)
	s := v.session(t, tempPaths(t), &config.Profile{Name: "a", Sender: sandbox.DefaultSender, ChunkSize: 2})
	out := send(t, s, pairs(9)) // chunks of 2: two accepted, then 402
	if out.Summary.Counts.NotSent != 5 {
		t.Fatalf("first run %+v", out.Summary.Counts)
	}
	s.Profile.RatePerMinute, s.Profile.ChunkSize = 1, 100 // the send keeps its chunks of 2
	s.Client = nil                                        // no pace learned: the profile's
	r, err := s.PrepareResume(t.Context(), out.Summary.JobID, ResumeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "at least 2 min (3 requests at the profile's 1 per minute; the service has not said its limit)"; r.Time != want {
		t.Errorf("resume time %q, want %q", r.Time, want)
	}
}
