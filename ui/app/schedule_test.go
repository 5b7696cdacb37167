package app

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/model/fakeclock"
)

// A scheduled send's life with the clock under test control: scheduled by
// an operator, started once at its time by a runner, checked again then.

var sara = model.Operator{Name: "sara", Fingerprint: "SHA256:sara", Role: model.RoleSender}

// scheduling is an engine on v whose sessions (an operator's, runners')
// share one state directory and the clock c.
type scheduling struct {
	v     *service
	paths config.Paths
	prof  *config.Profile
	clock *fakeclock.Clock
}

func newScheduling(t *testing.T, v *service, prof *config.Profile, c *fakeclock.Clock) *scheduling {
	if prof == nil {
		prof = &config.Profile{Name: "live", Sender: sandbox.DefaultSender}
	}
	return &scheduling{v: v, paths: tempPaths(t), prof: prof, clock: c}
}

// operator is op's session (nil: this machine's terminal).
func (g *scheduling) operator(t *testing.T, op *model.Operator) *Session {
	s := g.v.clocked(t, g.paths, g.prof, g.clock)
	if op != nil {
		o := *op
		s.Operator = &o
	}
	return s
}

// runner is a runner of kind on its own session, its events kept.
func (g *scheduling) runner(t *testing.T, kind string) (*Runner, *runnerLog) {
	log := &runnerLog{}
	return &Runner{Session: g.operator(t, nil), Kind: kind, Report: log.add}, log
}

type runnerLog struct {
	mu  sync.Mutex
	evs []RunnerEvent
}

func (l *runnerLog) add(ev RunnerEvent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.evs = append(l.evs, ev)
}

func (l *runnerLog) kinds() []RunnerEventKind {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []RunnerEventKind
	for _, ev := range l.evs {
		out = append(out, ev.Kind)
	}
	return out
}

// schedule plans rows through s, checks them for a start at at and
// schedules them; it returns the send's id.
func schedule(t *testing.T, s *Session, rows []model.PairRow, at time.Time) string {
	t.Helper()
	p, err := s.PrepareSend(context.Background(), SendRequest{Plan: s.Plan(s.Profile.Sender, rows), Source: FileSource("pairs.csv"), At: at})
	if err != nil {
		t.Fatal(err)
	}
	if p.Refusal != nil {
		t.Fatalf("scheduling: %v", p.Refusal)
	}
	sc, err := p.Schedule(context.Background())
	if err != nil {
		t.Fatalf("scheduling: %v", err)
	}
	if !sc.At.Equal(at) {
		t.Fatalf("scheduled for %v, want %v", sc.At, at)
	}
	return sc.ID
}

func pass(t *testing.T, r *Runner) int {
	t.Helper()
	n, err := r.Pass(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func readSend(t *testing.T, paths config.Paths, id string) *model.JournalState {
	t.Helper()
	st, err := config.ReadJournal(t.Context(), paths, id)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestScheduledSendStartsOnceAtItsTime: scheduled, nothing is sent; a
// runner too early starts nothing; at its time it sends every pair once,
// the journal naming who scheduled it and which runner started it; a
// later pass sends nothing more. A send overdue by less than --late
// starts too.
func TestScheduledSendStartsOnceAtItsTime(t *testing.T) {
	for _, overdue := range []time.Duration{0, 59 * time.Minute} {
		t.Run("overdue "+overdue.String(), func(t *testing.T) {
			v := newService(t, sandbox.Options{})
			g := newScheduling(t, v, nil, fakeclock.New(tehran(t, 10, 0)))
			at := g.clock.Now().Add(2 * time.Hour)
			id := schedule(t, g.operator(t, &sara), pairs(3), at)
			if n := v.sb.RequestsTo("POST", "/sms/send-pair"); n != 0 {
				t.Fatalf("scheduling made %d send requests", n)
			}
			st := readSend(t, g.paths, id)
			if !st.Waiting() || st.Plan.Operator == nil || st.Plan.Operator.Name != "sara" || SendStatus(st, false) != "scheduled" {
				t.Fatalf("journaled: waiting %v, operator %v, status %s", st.Waiting(), st.Plan.Operator, SendStatus(st, false))
			}

			r, log := g.runner(t, model.RunnerScheduler)
			g.clock.Advance(time.Hour)
			if n := pass(t, r); n != 0 || len(v.sb.Sent()) != 0 {
				t.Fatalf("an hour early: started %d, sent %d", n, len(v.sb.Sent()))
			}
			if next, err := r.Next(t.Context()); err != nil || !next.Equal(at) {
				t.Errorf("Next = %v, %v; want %v", next, err, at)
			}
			g.clock.Advance(time.Hour + overdue)
			if n := pass(t, r); n != 1 {
				t.Fatalf("at its time: started %d, want 1 (events %v)", n, log.kinds())
			}
			if n := pass(t, r); n != 0 {
				t.Errorf("a second pass started %d", n)
			}
			if got := len(v.sb.Sent()); got != 3 {
				t.Fatalf("the service took %d messages, want 3 once", got)
			}
			st = readSend(t, g.paths, id)
			if !st.Complete() || st.StartedBy != model.RunnerScheduler || !st.StartedAt.Equal(at.Add(overdue)) || st.Plan.Operator.Name != "sara" {
				t.Errorf("after: complete %v, started by %q at %v, scheduled by %v", st.Complete(), st.StartedBy, st.StartedAt, st.Plan.Operator)
			}
			if k := log.kinds(); !slices.Equal(k, []RunnerEventKind{RunnerStarted, RunnerFinished}) {
				t.Errorf("events %v", k)
			}
		})
	}
}

// TestTwoRunnersStartItOnce: two runners (serve and a cron job) on one
// state directory, at once, send it once; a runner that finds the journal
// held by another starts nothing, and looks again after.
func TestTwoRunnersStartItOnce(t *testing.T) {
	v := newService(t, sandbox.Options{})
	g := newScheduling(t, v, nil, fakeclock.New(tehran(t, 10, 0)))
	at := g.clock.Now().Add(time.Minute)
	id := schedule(t, g.operator(t, nil), pairs(5), at)
	g.clock.Advance(time.Minute)

	held, err := config.OpenJournal(t.Context(), g.paths, id) // a runner that has just taken it
	if err != nil {
		t.Fatal(err)
	}
	r1, _ := g.runner(t, model.RunnerServe)
	if n := pass(t, r1); n != 0 || len(v.sb.Sent()) != 0 {
		t.Fatalf("while another holds it: started %d, sent %d", n, len(v.sb.Sent()))
	}
	held.Close()

	r2, _ := g.runner(t, model.RunnerCron)
	var wg sync.WaitGroup
	started := make([]int, 2)
	for i, r := range []*Runner{r1, r2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			started[i], _ = r.Pass(context.Background())
		}()
	}
	wg.Wait()
	if started[0]+started[1] != 1 || len(v.sb.Sent()) != 5 || v.sb.RequestsTo("POST", "/sms/send-pair") != 1 {
		t.Fatalf("started %v, the service took %d in %d requests; want one start, 5 messages", started, len(v.sb.Sent()), v.sb.RequestsTo("POST", "/sms/send-pair"))
	}
	if st := readSend(t, g.paths, id); st.Runs != 1 || !st.Complete() {
		t.Errorf("runs %d, complete %v", st.Runs, st.Complete())
	}
}

// TestCancelledScheduledSend: a cancelled send is never sent, and says who
// cancelled it; it cannot be cancelled twice, resumed, or cancelled by a
// viewer; a started send is not cancelled.
func TestCancelledScheduledSend(t *testing.T) {
	v := newService(t, sandbox.Options{})
	g := newScheduling(t, v, nil, fakeclock.New(tehran(t, 10, 0)))
	at := g.clock.Now().Add(time.Hour)
	s := g.operator(t, &sara)
	id := schedule(t, s, pairs(2), at)

	viewer := g.operator(t, &model.Operator{Name: "vida", Role: model.RoleViewer})
	var r *Refusal
	if err := viewer.CancelScheduled(t.Context(), id); !errors.As(err, &r) || r.Rule != RuleRole {
		t.Fatalf("a viewer's cancel: %v", err)
	}
	if _, err := s.PrepareResume(t.Context(), id, ResumeOptions{}); !errors.As(err, &r) || r.Rule != RuleScheduled || !strings.Contains(r.Reason, "scheduled for 2026-11-25 11:00 Asia/Tehran (in 1h)") {
		t.Fatalf("a resume before its time: %v", err)
	}
	if err := s.CancelScheduled(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	st := readSend(t, g.paths, id)
	if st.Cancel == nil || st.Cancel.Cause != model.CancelCancelled || st.Cancel.Operator == nil || st.Cancel.Operator.Name != "sara" || SendStatus(st, false) != "cancelled" {
		t.Fatalf("journal: %+v, status %s", st.Cancel, SendStatus(st, false))
	}
	if err := s.CancelScheduled(t.Context(), id); !errors.As(err, &r) || r.Rule != RuleNotWaiting || !strings.Contains(r.Reason, "was cancelled already") {
		t.Errorf("cancelled twice: %v", err)
	}
	if _, err := s.PrepareResume(t.Context(), id, ResumeOptions{}); !errors.As(err, &r) || r.Rule != RuleCancelled {
		t.Errorf("a resume of a cancelled send: %v", err)
	}
	g.clock.Advance(time.Hour)
	runner, _ := g.runner(t, model.RunnerServe)
	if n := pass(t, runner); n != 0 || len(v.sb.Sent()) != 0 {
		t.Fatalf("a cancelled send: started %d, sent %d", n, len(v.sb.Sent()))
	}

	started := schedule(t, s, pairs(2), g.clock.Now().Add(time.Minute))
	g.clock.Advance(time.Minute)
	pass(t, runner)
	if err := s.CancelScheduled(t.Context(), started); !errors.As(err, &r) || r.Rule != RuleNotWaiting || !strings.Contains(r.Reason, "has started") {
		t.Errorf("cancelling a started send: %v", err)
	}
	other := []model.PairRow{{Line: 2, Recipient: "09350000000", Message: "now"}}
	if err := s.CancelScheduled(t.Context(), send(t, s, other).Summary.JobID); !errors.As(err, &r) || !strings.Contains(r.Reason, "was not scheduled") {
		t.Errorf("cancelling a send never scheduled: %v", err)
	}
}

// TestOptOutAddedAfterSchedulingIsSkipped: a number put on the opt-out
// list after the send was scheduled is left out at its start, journaled
// as opted out; the others go.
func TestOptOutAddedAfterSchedulingIsSkipped(t *testing.T) {
	v := newService(t, sandbox.Options{})
	g := newScheduling(t, v, nil, fakeclock.New(tehran(t, 10, 0)))
	s := g.operator(t, &sara)
	rows := pairs(3)
	id := schedule(t, s, rows, g.clock.Now().Add(time.Hour))
	if _, err := s.AddOptOuts(t.Context(), []string{rows[1].Recipient}, "", "asked by phone"); err != nil {
		t.Fatal(err)
	}
	g.clock.Advance(time.Hour)
	r, _ := g.runner(t, model.RunnerScheduler)
	if n := pass(t, r); n != 1 {
		t.Fatalf("started %d", n)
	}
	sent := v.sb.Sent()
	if len(sent) != 2 || slices.ContainsFunc(sent, func(m sandbox.SentMessage) bool { return m.Recipient == rows[1].Recipient }) {
		t.Fatalf("the service took %v; want the two not opted out", sent)
	}
	st := readSend(t, g.paths, id)
	if it, _ := st.Item(1); it.State != model.StateOptedOut || st.Counts().OptedOut != 1 || st.Counts().Accepted != 2 {
		t.Errorf("journal: item 1 %s, counts %+v", it.State, st.Counts())
	}
}

// TestMissedBeyondLate: a send whose time passed more than --late ago while
// no runner ran is marked missed by the next runner, with the reason, and
// never sent.
func TestMissedBeyondLate(t *testing.T) {
	v := newService(t, sandbox.Options{})
	g := newScheduling(t, v, nil, fakeclock.New(tehran(t, 6, 0)))
	id := schedule(t, g.operator(t, &sara), pairs(2), tehran(t, 8, 0))
	g.clock.Advance(3*time.Hour + 30*time.Minute) // 09:30: 1h30m late
	r, log := g.runner(t, model.RunnerCron)
	if n := pass(t, r); n != 0 || len(v.sb.Sent()) != 0 {
		t.Fatalf("missed: started %d, sent %d", n, len(v.sb.Sent()))
	}
	st := readSend(t, g.paths, id)
	if st.Cancel == nil || st.Cancel.Cause != model.CancelMissed || st.Cancel.Runner != model.RunnerCron || SendStatus(st, false) != "missed" ||
		!strings.Contains(st.Cancel.Reason, "from 2026-11-25 08:00 Asia/Tehran until 09:30, 1h 30m late, past its 1h limit") {
		t.Fatalf("journal: %+v, status %s", st.Cancel, SendStatus(st, false))
	}
	if k := log.kinds(); !slices.Equal(k, []RunnerEventKind{RunnerMissed}) {
		t.Errorf("events %v", k)
	}
	if n := pass(t, r); n != 0 || len(log.kinds()) != 1 {
		t.Errorf("a second pass: started %d, events %v", n, log.kinds())
	}
	if _, err := g.operator(t, nil).PrepareResume(t.Context(), id, ResumeOptions{}); err != nil {
		t.Errorf("a missed send may be resumed by hand (it asks first): %v", err)
	}
}

// TestRepeatBegunSinceIsRefusedAtStart: the same pairs sent (on purpose)
// after the send was scheduled: at its time it is refused as a repeat,
// journaled as stopped with the reason, and nothing of it goes. Scheduling
// the same file again, or sending it now, is refused naming the scheduled
// send.
func TestRepeatBegunSinceIsRefusedAtStart(t *testing.T) {
	v := newService(t, sandbox.Options{})
	g := newScheduling(t, v, nil, fakeclock.New(tehran(t, 10, 0)))
	s := g.operator(t, &sara)
	at := g.clock.Now().Add(time.Hour)
	id := schedule(t, s, pairs(3), at)

	for _, when := range []time.Time{{}, at.Add(time.Minute)} {
		p, err := s.PrepareSend(context.Background(), SendRequest{Plan: s.Plan(s.Profile.Sender, pairs(3)), Source: FileSource("pairs.csv"), At: when})
		if err != nil {
			t.Fatal(err)
		}
		r := p.Refusal
		if r == nil || r.Rule != RuleRepeat || r.Repeat == nil || r.Repeat.SendID != id || !r.Repeat.Scheduled || r.Repeat.Unknown != 0 ||
			!strings.Contains(r.Reason, "3 of 3 pairs are in send "+id+", which is scheduled") ||
			len(r.Details) != 1 || !strings.Contains(r.Details[0], "scheduled by sara for ") {
			t.Fatalf("the same pairs again (at %v): %#v", when, r)
		}
	}
	now := prepare(t, s, pairs(3), true) // the operator's say: send them now anyway
	x, err := now.Start(context.Background(), SendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	finish(t, x)

	g.clock.Advance(time.Hour)
	r, log := g.runner(t, model.RunnerServe)
	if n := pass(t, r); n != 0 {
		t.Fatalf("started %d", n)
	}
	if got := len(v.sb.Sent()); got != 3 {
		t.Fatalf("the service took %d, want the 3 sent by hand", got)
	}
	st := readSend(t, g.paths, id)
	if SendStatus(st, false) != "stopped" || st.StopCause != string(RuleRepeat) || !strings.Contains(st.Stopped, "3 of 3 pairs") ||
		st.StartedBy != model.RunnerServe || st.Counts().NotSent != 3 {
		t.Fatalf("journal: status %s, cause %q, %q, started by %q, counts %+v", SendStatus(st, false), st.StopCause, st.Stopped, st.StartedBy, st.Counts())
	}
	if k := log.kinds(); !slices.Equal(k, []RunnerEventKind{RunnerRefused}) {
		t.Errorf("events %v", k)
	}
}

// TestScheduleAt: the times an operator may give, and those refused.
func TestScheduleAt(t *testing.T) {
	v := newService(t, sandbox.Options{})
	g := newScheduling(t, v, nil, fakeclock.New(tehran(t, 22, 20)))
	s := g.operator(t, nil)
	if at, err := s.ScheduleAt("08:00", false); err != nil || !at.Equal(tehran(t, 8, 0).AddDate(0, 0, 1)) {
		t.Errorf("08:00 = %v, %v", at, err)
	}
	for _, tc := range []struct{ in, want string }{
		{"2026-11-25 08:00", "is not ahead"},
		{"+36d", "at most 35 days ahead"},
		{"soon", "is not a time"},
	} {
		var r *Refusal
		if _, err := s.ScheduleAt(tc.in, false); !errors.As(err, &r) || r.Rule != RuleAt || !strings.Contains(r.Reason, tc.want) || !strings.HasSuffix(r.Reason, "nothing was scheduled") {
			t.Errorf("%s: %v, want %q", tc.in, err, tc.want)
		}
	}
}
