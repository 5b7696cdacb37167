package app

// The runner: what starts a scheduled send at its time, and continues a
// send held at quiet hours when they end, with no operator at hand. Every
// smsdesk serve has one for the profile it serves; smsdesk scheduler is
// one in the foreground (a systemd unit), and smsdesk scheduler --once one
// pass of it (a cron job). Several may run on one state directory: each
// send is started under its journal's lock, the one that keeps two
// resumes apart, and looked at again once it is held, so that it starts
// once.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/client/dispatch"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// DefaultLate is how overdue a send may still start (--late): one whose
// time passed longer ago while no runner ran is marked missed, never sent.
const DefaultLate = time.Hour

// Runner starts the due sends of its session's profile (against its
// service): scheduled ones at their time, held ones when quiet hours end.
type Runner struct {
	// Session is whose profile, client and state it works with; its
	// Operator is nil (the runner is no operator: the journal names the
	// one who scheduled, and the runner).
	Session *Session
	// Kind names the runner in journals and logs: model.RunnerServe,
	// RunnerScheduler or RunnerCron.
	Kind string
	// Late is how overdue a send may still start (0: DefaultLate).
	Late time.Duration
	// Report is told what the runner does (nil: nothing). It is called
	// from the goroutine running Pass.
	Report func(RunnerEvent)

	leftHeld map[string]bool // held sends found past Late, said once
}

// RunnerEventKind says what a RunnerEvent reports.
type RunnerEventKind int

// What a runner reports.
const (
	// RunnerStarted: a scheduled send started, or a held one went on
	// (Continued); Send is its run.
	RunnerStarted RunnerEventKind = iota
	// RunnerFinished: that run ended; Outcome is as its journal tells it.
	RunnerFinished
	// RunnerMissed: a scheduled send overdue past Late was marked missed,
	// never sent (Reason).
	RunnerMissed
	// RunnerRefused: the rules refused the send as it was to start
	// (Refusal), journaled with the reason: nothing of it was sent.
	RunnerRefused
	// RunnerLeftHeld: a held send found more than Late after quiet hours
	// ended is left held, for an operator to resume (Reason). Said once.
	RunnerLeftHeld
	// RunnerFailed: the send could not be looked at or started (Err); it
	// is tried again at the next pass.
	RunnerFailed
)

// RunnerEvent is one thing a runner did.
type RunnerEvent struct {
	Kind RunnerEventKind
	ID   string
	// Continued: a held send went on, rather than a scheduled one starting.
	Continued bool
	Send      *Send
	Outcome   Outcome
	Refusal   *Refusal
	Reason    string
	Err       error

	zone *time.Location // the profile's, for Text
}

func (r *Runner) late() time.Duration {
	if r.Late > 0 {
		return r.Late
	}
	return DefaultLate
}

func (r *Runner) report(ev RunnerEvent) {
	if r.Report != nil {
		ev.zone = r.Session.Profile.Zone()
		r.Report(ev)
	}
}

// due is when send st is due to start (zero: it is not waiting for a
// runner): a scheduled send's time, or when quiet hours that held it end.
func due(st *model.JournalState) (at time.Time, continued bool) {
	switch {
	case st == nil:
	case st.Waiting():
		return st.Plan.ScheduledFor, false
	case st.Held():
		return st.HeldUntil, true
	}
	return time.Time{}, false
}

// Next is when the next send of the profile is due (zero: none is
// waiting), and whether that is now or past.
func (r *Runner) Next() (time.Time, error) {
	list, err := r.Session.History(false)
	if err != nil {
		return time.Time{}, err
	}
	var next time.Time
	for _, e := range list {
		if at, _ := due(e.State); !at.IsZero() && !e.Running && (next.IsZero() || at.Before(next)) && !r.leftHeld[e.ID] {
			next = at
		}
	}
	return next, nil
}

// Pass starts the sends due now, the longest due first, one after another,
// each waited for until its run ends (its chunk in flight journaled when
// ctx ends). It returns how many it started. A send another runner (or an
// operator's resume) holds is left to it.
func (r *Runner) Pass(ctx context.Context) (started int, err error) {
	s := r.Session
	list, err := s.History(false)
	if err != nil {
		return 0, err
	}
	now := s.now()
	type dueSend struct {
		id string
		at time.Time
	}
	var todo []dueSend
	for _, e := range list {
		if at, _ := due(e.State); !at.IsZero() && !e.Running && !at.After(now) {
			todo = append(todo, dueSend{e.ID, at})
		}
	}
	slices.SortStableFunc(todo, func(a, b dueSend) int { return a.at.Compare(b.at) })
	for _, d := range todo {
		if ctx.Err() != nil {
			return started, ctx.Err()
		}
		x, continued, err := r.start(ctx, d.id)
		var ref *Refusal
		switch {
		case errors.As(err, &ref):
			r.report(RunnerEvent{Kind: RunnerRefused, ID: d.id, Refusal: ref, Reason: ref.Reason})
		case err != nil:
			r.report(RunnerEvent{Kind: RunnerFailed, ID: d.id, Err: err})
		}
		if x == nil {
			continue
		}
		started++
		r.report(RunnerEvent{Kind: RunnerStarted, ID: d.id, Continued: continued, Send: x})
		out, runErr := x.Finish()
		r.report(RunnerEvent{Kind: RunnerFinished, ID: d.id, Continued: continued, Send: x, Outcome: out, Err: runErr})
	}
	return started, nil
}

// Loop runs a pass at once, then again when the next send is due or poll
// has passed (whichever is sooner), until ctx ends; a send it starts stops
// after its chunk in flight then. The clock that decides what is due is
// the session's; the waiting is real time (poll bounds it, so that a clock
// under test control is looked at again soon).
func (r *Runner) Loop(ctx context.Context, poll time.Duration) {
	if poll <= 0 {
		poll = 30 * time.Second
	}
	for {
		if _, err := r.Pass(ctx); err != nil && ctx.Err() == nil {
			r.report(RunnerEvent{Kind: RunnerFailed, Err: err})
		}
		wait := poll
		if next, err := r.Next(); err == nil && !next.IsZero() {
			wait = min(wait, max(next.Sub(r.Session.now()), 0)+10*time.Millisecond)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// start starts send id if it is due, under its journal's lock: from the
// journal as it is now (another runner may have started, or an operator
// cancelled, it since the list was read), checked again by the send
// rules. A scheduled send overdue past Late is marked missed instead; a
// refusal is journaled with its reason (the send then reads stopped) and
// returned. x is nil when nothing was started.
//
// The profile's settings are read as they are now (Session.Settings): a
// runner started before `config set quiet_hours …` starts its sends under
// the new hours. Settings that cannot be read start nothing (tried again
// at the next pass).
func (r *Runner) start(ctx context.Context, id string) (x *Send, continued bool, err error) {
	if r.Session.Client == nil {
		return nil, false, ErrNotSignedIn
	}
	s, err := r.Session.rulesNow()
	var ref *Refusal
	if errors.As(err, &ref) {
		return nil, false, errors.New(ref.Reason) // not refused at its time: tried again
	}
	if err != nil {
		return nil, false, err
	}
	j, fresh, err := config.OpenJournalLocked(s.Paths, id)
	if errors.Is(err, config.ErrJournalInUse) {
		return nil, false, nil // another runner, or an operator's resume, has it
	}
	if err != nil {
		return nil, false, err
	}
	x, continued, err = r.startLocked(ctx, s, id, j, fresh)
	if x == nil {
		_ = j.Close()
	}
	return x, continued, err
}

// startLocked is start with send id's journal j locked and read (fresh);
// the run it starts keeps j.
func (r *Runner) startLocked(ctx context.Context, s *Session, id string, j *config.JournalFile, fresh *model.JournalState) (*Send, bool, error) {
	now := s.now()
	at, continued := due(fresh)
	if ok, err := r.isDue(s, j, id, at, continued, now); !ok {
		return nil, continued && !at.IsZero() && !at.After(now), err // a held send left held is still reported as continued
	}
	job := dispatch.ResumeJob(fresh, false)
	optedOut, err := s.resumeOptedOut(fresh, job.ToSend())
	if err != nil {
		return nil, continued, err
	}
	job.OptOut(optedOut) // journaled as opted out by the start's record
	unlock, err := config.LockSendStart(s.Paths)
	if err != nil {
		return nil, continued, err
	}
	defer unlock() // after dispatch.Start: this run holds the journal then
	if err := r.checkAtStart(ctx, s, j, id, fresh, job, continued, now); err != nil {
		return nil, continued, err
	}
	opts := s.runOptions(SendOptions{}, firstPositive(fresh.Plan.ChunkSize, s.Profile.ChunkSize), j)
	opts.Resume = s.startRecord(fresh.Plan.IgnoreQuietHours, r.Kind)
	s.whenOptions(&opts, fresh.Plan.IgnoreQuietHours) // quiet hours reached on the way hold the rest again
	run, err := dispatch.Start(ctx, s.Client, job, opts)
	if err != nil {
		return nil, continued, fmt.Errorf("%w; nothing was sent", err)
	}
	x := &Send{run: run, chunk: opts.ChunkSize, journal: j, paths: s.Paths, source: fresh.Plan.Source, start: StartScheduled, runner: r.Kind}
	if continued {
		x.start = StartContinued
	}
	s.track(x)
	return x, continued, nil
}

// isDue reports whether a send due at at (continued: a held send's end of
// quiet hours) starts now. A send started, cancelled or continued
// meanwhile (at zero or ahead) is not; one overdue past Late is marked
// missed (a scheduled send) or left held and reported once (a held one).
func (r *Runner) isDue(s *Session, j *config.JournalFile, id string, at time.Time, continued bool, now time.Time) (bool, error) {
	switch {
	case at.IsZero() || at.After(now):
		return false, nil
	case now.Sub(at) <= r.late():
		return true, nil
	case !continued:
		return false, r.missed(s, j, id, at, now)
	}
	if !r.leftHeld[id] {
		if r.leftHeld == nil {
			r.leftHeld = map[string]bool{}
		}
		r.leftHeld[id] = true
		r.report(RunnerEvent{Kind: RunnerLeftHeld, ID: id, Continued: true,
			Reason: fmt.Sprintf("send %s was held until %s, more than %s ago: left held, for an operator to resume", model.SanitizeLine(id),
				model.AtText(at, s.Profile.Zone()), model.Countdown(r.late()))})
	}
	return false, nil
}

// checkAtStart applies the send rules again to what job would send: a
// refusal is journaled (refuse) and returned.
func (r *Runner) checkAtStart(ctx context.Context, s *Session, j *config.JournalFile, id string, fresh *model.JournalState, job *dispatch.Job, continued bool, now time.Time) error {
	if len(job.ToSend()) == 0 {
		return nil
	}
	ref, err := startCheck(ctx, s, id, fresh, job.ToSend())
	if err != nil || ref == nil {
		return err
	}
	if continued {
		ref.Reason = strings.TrimSuffix(ref.Reason, "; nothing was sent") + "; nothing more was sent"
	}
	return r.refuse(j, job, ref, now)
}

// missed marks a scheduled send that no runner started in time: never
// sent, and said so in its journal.
func (r *Runner) missed(s *Session, j *config.JournalFile, id string, at, now time.Time) error {
	loc := s.Profile.Zone()
	reason := fmt.Sprintf("no runner started it from %s until %s, %s late, past its %s limit (--late); nothing was sent",
		model.AtText(at, loc), model.ClockText(now, at, loc), model.Countdown(now.Sub(at)), model.Countdown(r.late()))
	if err := j.Append(&model.JournalCancel{Time: now, Cause: model.CancelMissed, Reason: reason, Runner: r.Kind}); err != nil {
		return err
	}
	if err := j.Sync(); err != nil {
		return err
	}
	r.report(RunnerEvent{Kind: RunnerMissed, ID: id, Reason: reason})
	return nil
}

// refuse journals why the send did not start at its time: a start record
// naming the runner, then an end that says stopped, with the rule as its
// cause and the reason. Nothing of it was sent; an operator may resume it
// once the cause is gone (the resume checks again).
func (r *Runner) refuse(j *config.JournalFile, job *dispatch.Job, ref *Refusal, now time.Time) error {
	for _, rec := range []model.JournalRecord{
		&model.JournalResume{Time: now, Indexes: job.ToSend(), Runner: r.Kind, OptedOut: job.OptedOut()},
		&model.JournalEnd{Time: now, Interrupted: true, Stopped: ref.Reason, StopCause: string(ref.Rule)},
	} {
		if err := j.Append(rec); err != nil {
			return err
		}
	}
	if err := j.Sync(); err != nil {
		return err
	}
	return ref
}

// startCheck is the send rules again as a due send starts, the way a new
// send is checked: the rest of it (todo) planned with the profile's number
// rules, weighed with the facts as they are now: the profile's lines, the
// account's credit, and the sends that took any of its pairs since, other
// than itself and those the operator's say named when it was scheduled
// (its RepeatOf). A key the service now refuses stops it too. A nil
// refusal lets it go; err is a failure to look (tried again next pass).
func startCheck(ctx context.Context, s *Session, id string, st *model.JournalState, todo []int) (*Refusal, error) {
	rows := make([]model.PairRow, 0, len(todo))
	for _, ix := range todo {
		if it, ok := st.Item(ix); ok {
			rows = append(rows, model.PairRow{Line: it.Line, Recipient: it.Recipient, Message: it.Message})
		}
	}
	plan := model.BuildPlan(st.Plan.Sender, rows, model.PlanOptions{Format: s.Profile.NumberFormat, AllowInternational: s.Profile.AllowInternational})
	facts, note, err := s.Facts(ctx)
	var ref *Refusal
	switch {
	case errors.As(err, &ref):
		return ref, nil
	case err != nil:
		return nil, err
	}
	if facts.Credit == nil && note != "" {
		if _, err := s.Client.Credit(ctx); errors.Is(err, client.ErrUnauthorized) {
			return &Refusal{Rule: RuleKeyRefused, SendID: model.SanitizeLine(id),
				Reason: "the service refused the API key (401); nothing was sent"}, nil
		}
	}
	skip := append([]string{id}, st.Plan.RepeatOf...)
	facts.History = slices.DeleteFunc(facts.History, func(h model.SentPairs) bool { return slices.Contains(skip, h.SendID) })
	// Quiet hours are not refused here: a run that starts inside them is
	// held at once (its Hold), and goes on at their end.
	p := &PendingSend{SendRequest: SendRequest{Plan: plan, Source: FileSource(st.Plan.Source), IgnoreQuietHours: true}, Facts: facts, Note: note, s: s}
	s.check(p)
	if p.Refusal != nil && p.Refusal.Rule == RuleRepeat {
		p.Refusal.SendID = model.SanitizeLine(id)
	}
	return p.Refusal, nil
}

// Text is the event for people, one line (a scheduler's output, a
// server's log): "started send ID (scheduled for …)", "send ID: 3
// accepted, 1 rejected (complete)", "send ID missed: …".
func (ev RunnerEvent) Text() string {
	id := model.SanitizeLine(ev.ID)
	what := "started"
	if ev.Continued {
		what = "continued (held at quiet hours)"
	}
	switch ev.Kind {
	case RunnerStarted:
		togo := "0 messages"
		if ev.Send != nil {
			togo = model.Thousands(int64(len(ev.Send.ToSend()))) + " messages"
			if len(ev.Send.ToSend()) == 1 {
				togo = "1 message"
			}
		}
		return fmt.Sprintf("send %s %s: %s to go", id, what, togo)
	case RunnerFinished:
		c := ev.Outcome.Summary.Counts
		line := fmt.Sprintf("send %s: %d accepted, %d rejected, %d failed, %d unknown, %d not sent, %d opted out", id,
			c.Accepted, c.Rejected, c.Failed, c.Unknown, c.NotSent, c.OptedOut)
		switch sum := ev.Outcome.Summary; {
		case !sum.HeldUntil.IsZero():
			zone := ev.zone
			if zone == nil {
				zone = time.UTC
			}
			line += " (held at quiet hours until " + model.AtText(sum.HeldUntil, zone) + ")"
		case sum.Stopped != "":
			line += " (stopped: " + model.SanitizeLine(sum.Stopped) + ")"
		case sum.Interrupted:
			line += " (interrupted)"
		}
		if ev.Err != nil {
			line += "; " + model.SanitizeLine(ev.Err.Error())
		}
		return line
	case RunnerMissed:
		return fmt.Sprintf("send %s missed: %s", id, model.SanitizeLine(ev.Reason))
	case RunnerRefused:
		return fmt.Sprintf("send %s not started at its time: %s", id, model.SanitizeLine(ev.Reason))
	case RunnerLeftHeld:
		return model.SanitizeLine(ev.Reason)
	}
	if id == "" {
		return "looking for due sends: " + model.SanitizeLine(fmt.Sprint(ev.Err))
	}
	return fmt.Sprintf("send %s: %s (tried again at the next look)", id, model.SanitizeLine(fmt.Sprint(ev.Err)))
}
