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
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/model/fakeclock"
)

// TestHeldAtQuietHoursContinues: a scheduled send that reaches the start
// of quiet hours is held there (the chunks before them sent, the rest not
// sent, none unknown); the runner starts nothing while they last, and at
// their end continues it with no command, naming itself.
func TestHeldAtQuietHoursContinues(t *testing.T) {
	clock := fakeclock.New(tehran(t, 20, 0))
	v := ticking(t, clock) // each send request takes a minute
	prof := &config.Profile{Name: "live", Sender: sandbox.DefaultSender, QuietHours: "22:00-08:00", ChunkSize: 3}
	g := newScheduling(t, v, prof, clock)
	id := schedule(t, g.operator(t, &sara), pairs(8), tehran(t, 21, 58))

	clock.Advance(tehran(t, 21, 58).Sub(clock.Now()))
	r, log := g.runner(t, model.RunnerScheduler)
	if n := pass(t, r); n != 1 {
		t.Fatalf("started %d", n)
	}
	st := readSend(t, g.paths, id)
	until := tehran(t, 8, 0).AddDate(0, 0, 1)
	if SendStatus(st, false) != "held" || !st.HeldUntil.Equal(until) || st.Counts().Accepted != 6 || st.Counts().NotSent != 2 || st.Counts().Unknown != 0 {
		t.Fatalf("at 22:00: status %s until %v, counts %+v; want held until 08:00 with 6 sent", SendStatus(st, false), st.HeldUntil, st.Counts())
	}
	if next, _ := r.Next(t.Context()); !next.Equal(until) {
		t.Errorf("Next = %v, want %v", next, until)
	}
	clock.Advance(4 * time.Hour)
	if n := pass(t, r); n != 0 || len(v.sb.Sent()) != 6 {
		t.Fatalf("inside quiet hours: started %d, sent %d", n, len(v.sb.Sent()))
	}
	clock.Advance(until.Sub(clock.Now()))
	if n := pass(t, r); n != 1 {
		t.Fatalf("at 08:00: started %d (events %v)", n, log.kinds())
	}
	st = readSend(t, g.paths, id)
	if !st.Complete() || st.Counts().Accepted != 8 || len(v.sb.Sent()) != 8 || st.Runs != 2 || st.Runner != model.RunnerScheduler || st.StartedBy != model.RunnerScheduler {
		t.Fatalf("after 08:00: complete %v, counts %+v, sent %d, runs %d, runner %q", st.Complete(), st.Counts(), len(v.sb.Sent()), st.Runs, st.Runner)
	}
	// Complete, it keeps the hold and who went on (history said neither:
	// issue 35 item 8).
	zone := until.Location()
	if h := HoldText(st, zone); h != "held at quiet hours until "+model.AtText(until, zone)+"; continued by scheduler at 08:00" {
		t.Errorf("complete, the hold reads %q", h)
	}

	// A send held until 08:00 found at 09:30 (past --late): left held for an
	// operator, said once, never started by the runner.
	rows := pairs(5)
	for i := range rows {
		rows[i].Message = "late " + rows[i].Message
	}
	late := schedule(t, g.operator(t, &sara), rows, tehran(t, 21, 59).AddDate(0, 0, 1))
	clock.Advance(tehran(t, 21, 59).AddDate(0, 0, 1).Sub(clock.Now()))
	if n := pass(t, r); n != 1 || SendStatus(readSend(t, g.paths, late), false) != "held" {
		t.Fatalf("the second send: started %d, status %s; want it held at 22:00", n, SendStatus(readSend(t, g.paths, late), false))
	}
	clock.Advance(tehran(t, 9, 30).AddDate(0, 0, 2).Sub(clock.Now()))
	sent := len(v.sb.Sent())
	for range 2 {
		if n := pass(t, r); n != 0 {
			t.Fatalf("a held send past --late was continued (%d)", n)
		}
	}
	left := 0
	for _, ev := range log.evs {
		if ev.Kind == RunnerLeftHeld && ev.ID == late && strings.Contains(ev.Reason, "left held, for an operator to resume") {
			left++
		}
	}
	if left != 1 || len(v.sb.Sent()) != sent || SendStatus(readSend(t, g.paths, late), false) != "held" {
		t.Errorf("left held said %d times, sent %d more, status %s", left, len(v.sb.Sent())-sent, SendStatus(readSend(t, g.paths, late), false))
	}

	var continued []bool
	for _, ev := range log.evs {
		if ev.Kind == RunnerStarted {
			continued = append(continued, ev.Continued)
		}
	}
	if !slices.Equal(continued, []bool{false, true, false}) {
		t.Errorf("starts (continued?) %v, want the start then the continuation", continued)
	}
}

// TestStartCheckedAgain: at its time a scheduled send is checked as a new
// send is: credit short since it was scheduled, or a key the service now
// refuses, stops it before any send request, journaled with the reason.
func TestStartCheckedAgain(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(v *service, g *scheduling, r *Runner)
		rule   Rule
		reason string
	}{
		{"credit short", func(v *service, _ *scheduling, _ *Runner) { v.sb.SetCredit(2) }, RuleCredit, "not enough credit"},
		{"key refused", func(v *service, g *scheduling, r *Runner) {
			c, err := NewClient(g.paths, v.baseURL, "sk_test_revoked", g.prof, ClientOptions{Now: g.clock.Now, Sleep: g.clock.Sleep})
			if err != nil {
				t.Fatal(err)
			}
			r.Session.Client = c
		}, RuleKeyRefused, "refused the API key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := newService(t, sandbox.Options{})
			g := newScheduling(t, v, nil, fakeclock.New(tehran(t, 10, 0)))
			id := schedule(t, g.operator(t, &sara), pairs(3), tehran(t, 11, 0))
			g.clock.Advance(time.Hour)
			r, log := g.runner(t, model.RunnerCron)
			tc.change(v, g, r)
			if n := pass(t, r); n != 0 || v.sb.RequestsTo("POST", "/sms/send-pair") != 0 {
				t.Fatalf("started %d, %d send requests", n, v.sb.RequestsTo("POST", "/sms/send-pair"))
			}
			st := readSend(t, g.paths, id)
			if SendStatus(st, false) != "stopped" || st.StopCause != string(tc.rule) || !strings.Contains(st.Stopped, tc.reason) {
				t.Fatalf("journal: %s, cause %q, %q", SendStatus(st, false), st.StopCause, st.Stopped)
			}
			if k := log.kinds(); !slices.Equal(k, []RunnerEventKind{RunnerRefused}) {
				t.Errorf("events %v", k)
			}
		})
	}
}

// TestScheduleAroundQuietHours: a time inside the profile's quiet hours is
// refused naming when sending may start (unless ignored on purpose); a
// send scheduled while quiet hours last, for a time after them, is
// checked for its time, not for now.
func TestScheduleAroundQuietHours(t *testing.T) {
	v := newService(t, sandbox.Options{})
	prof := &config.Profile{Name: "live", Sender: sandbox.DefaultSender, QuietHours: "22:00-08:00"}
	g := newScheduling(t, v, prof, fakeclock.New(tehran(t, 23, 0)))
	s := g.operator(t, nil)
	var r *Refusal
	_, err := s.ScheduleAt("07:30", false)
	if !errors.As(err, &r) || r.Rule != RuleQuietHours || r.Quiet == nil || !r.At.Equal(tehran(t, 7, 30).AddDate(0, 0, 1)) ||
		r.Reason != "2026-11-26 07:30 Asia/Tehran is inside quiet hours 22:00–08:00 Asia/Tehran; sending may start at tomorrow 08:00; nothing was scheduled" {
		t.Fatalf("07:30: %#v", err)
	}
	if at, err := s.ScheduleAt("07:30", true); err != nil || at.IsZero() {
		t.Errorf("07:30 ignoring quiet hours: %v", err)
	}
	at, err := s.ScheduleAt("09:00", false)
	if err != nil {
		t.Fatal(err)
	}
	id := schedule(t, s, pairs(2), at) // now is inside quiet hours: the send is for 09:00
	if st := readSend(t, g.paths, id); !st.Waiting() {
		t.Fatal("not scheduled")
	}
	p, err := s.PrepareSend(context.Background(), SendRequest{Plan: s.Plan(s.Profile.Sender, pairs(1)), Source: FileSource("x.csv"), At: tehran(t, 23, 30)})
	if err != nil || p.Refusal == nil || p.Refusal.Rule != RuleQuietHours || p.Refusal.At.IsZero() {
		t.Errorf("a plan checked for a time inside quiet hours: %v, %#v", err, p.Refusal)
	}
}

// TestScheduleOnce: a pending send with a time is scheduled once (a second
// yes schedules nothing) and never started at once by Start.
func TestScheduleOnce(t *testing.T) {
	v := newService(t, sandbox.Options{})
	g := newScheduling(t, v, nil, fakeclock.New(tehran(t, 10, 0)))
	s := g.operator(t, nil)
	p, err := s.PrepareSend(context.Background(), SendRequest{Plan: s.Plan(s.Profile.Sender, pairs(2)), Source: FileSource("pairs.csv"), At: tehran(t, 11, 0)})
	if err != nil || p.Refusal != nil {
		t.Fatal(err, p.Refusal)
	}
	if _, err := p.Start(context.Background(), SendOptions{}); err == nil || !strings.Contains(err.Error(), "nothing was sent") {
		t.Errorf("Start of a send with a time: %v", err)
	}
	if _, err := p.Schedule(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Schedule(context.Background()); !errors.Is(err, ErrStarted) {
		t.Errorf("a second Schedule: %v, want ErrStarted", err)
	}
	if list, _ := s.History(t.Context(), false); len(list) != 1 || len(v.sb.Sent()) != 0 {
		t.Errorf("%d sends journaled, %d sent; want one scheduled, none sent", len(list), len(v.sb.Sent()))
	}
}

// TestCancelFreesItsOnceID: a scheduled send cancelled before its time
// sent nothing, and its once-only id may name the send made instead (the
// way the repeat refusal names to send a scheduled send's pairs now: cancel
// it, run again). Kept, the re-run was refused as "unfinished: --resume",
// and a cancelled send is not resumed. A send that started keeps its id.
func TestCancelFreesItsOnceID(t *testing.T) {
	v := newService(t, sandbox.Options{})
	g := newScheduling(t, v, nil, fakeclock.New(tehran(t, 10, 0)))
	s := g.operator(t, &sara)
	prepare := func(at time.Time) *PendingSend {
		t.Helper()
		p, err := s.PrepareSend(context.Background(), SendRequest{Plan: s.Plan(s.Profile.Sender, pairs(2)), Source: FileSource("pairs.csv"), At: at, OnceID: "daily-1"})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := prepare(tehran(t, 11, 0))
	sc, err := p.Schedule(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r := prepare(tehran(t, 11, 0)).Refusal; r == nil || r.Rule != RuleOnce || r.Once.SendID != sc.ID {
		t.Fatalf("the id while its send waits: %+v, want it used by %s", r, sc.ID)
	}
	if err := s.CancelScheduled(t.Context(), sc.ID); err != nil {
		t.Fatal(err)
	}
	now := prepare(time.Time{})
	if now.Refusal != nil {
		t.Fatalf("the id after its send was cancelled: %v", now.Refusal)
	}
	x, err := now.Start(context.Background(), SendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x.Finish(); err != nil {
		t.Fatal(err)
	}
	if r := prepare(time.Time{}).Refusal; r == nil || r.Rule != RuleOnce || r.Once.SendID != x.ID() {
		t.Errorf("the id once the send made instead went: %+v, want it used by %s", r, x.ID())
	}
	if n := len(v.sb.Sent()); n != 2 {
		t.Errorf("the service took %d messages, want the 2 of the send made instead", n)
	}
}
