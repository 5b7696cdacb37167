package app

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

// startHow says why a runner starts a send.
type startHow int

const (
	startNone      startHow = iota
	startScheduled          // a scheduled send at its time
	startHeld               // a send held at quiet hours, at their end
	startTakeover           // a runner's run whose runner has gone
)

// due is when send st is due to start (zero: it is not waiting for a
// runner), and why: a scheduled send's time, when quiet hours that held it
// end, or, for a runner's run that never ended, when it last wrote (a
// runner claims it only once that run's lease has ended).
func due(st *model.JournalState) (at time.Time, how startHow) {
	switch {
	case st == nil:
	case st.Waiting():
		return st.Plan.ScheduledFor, startScheduled
	case st.Held():
		return st.HeldUntil, startHeld
	case st.Runs > 0 && st.Runner != "" && !st.Ended && st.Cancel == nil:
		return st.Updated, startTakeover
	}
	return time.Time{}, startNone
}

// runnerFacts are what a pass asked before it claimed anything: the facts
// the send rules weigh (the credit among them), or a refusal that holds
// for every send (a profile setting that does not read, a key the service
// refuses).
type runnerFacts struct {
	facts   model.SendFacts
	note    string
	refusal *Refusal
}

// askFacts asks the service (and the ledger) what the send rules weigh, with
// nothing claimed or locked: a slow credit endpoint keeps no other send
// from starting.
func (r *Runner) askFacts(ctx context.Context, s *Session) (*runnerFacts, error) {
	facts, note, err := s.facts(ctx, true, r.looking)
	var ref *Refusal
	switch {
	case errors.As(err, &ref):
		return &runnerFacts{refusal: ref}, nil
	case err != nil:
		return nil, err
	}
	if facts.Credit == nil && note != "" {
		if _, err := s.Client.Credit(ctx); errors.Is(err, client.ErrUnauthorized) {
			return &runnerFacts{refusal: &Refusal{Rule: RuleKeyRefused, Reason: "the service refused the API key (401); nothing was sent"}}, nil
		}
	}
	return &runnerFacts{facts: facts, note: note}, nil
}

// start starts claimed send c if it is due at now, from its journal fresh
// as read under its claim (an operator may have cancelled it since the
// due list was read),
// checked again by the send rules with facts f: under the send-start lock,
// which is held only while the ledger is read and the run's first record
// written. A scheduled send overdue past Late is marked missed instead; a
// refusal is journaled with its reason (the send then reads stopped) and
// returned. x is nil when nothing was started (the caller lets c go). s
// is the runner's session with the profile's settings as they are now.
func (r *Runner) start(ctx context.Context, s *Session, c config.ClaimedSend, fresh *model.JournalState, f *runnerFacts, now time.Time) (x *Send, how startHow, err error) {
	j, id := c.Journal, c.Send.ID
	if !s.mine(HistoryEntry{ID: id, State: fresh}) { // the same host, another base URL
		r.mu.Lock()
		r.skip = append(r.skip, id)
		r.mu.Unlock()
		return nil, startNone, nil
	}
	at, how := due(fresh)
	if ok, err := r.isDue(s, j, id, at, how, now); !ok {
		return nil, how, err
	}
	s, err = s.forJournal(ctx, fresh) // its line's quiet hours hold it too
	if err != nil {
		return nil, how, err
	}
	job := dispatch.ResumeJob(fresh, false) // never the unknown: they wait for an operator
	optedOut, err := s.resumeOptedOut(ctx, fresh, job.ToSend())
	if err != nil {
		return nil, how, err
	}
	job.OptOut(optedOut) // journaled as opted out by the start's record
	unlock, err := config.LockSendStart(ctx, s.Paths)
	if err != nil {
		return nil, how, err
	}
	defer unlock() // after dispatch.Start: this run holds the journal then
	if err := r.checkAtStart(ctx, s, j, id, fresh, job, how, now, f); err != nil {
		return nil, how, err
	}
	opts := s.runOptions(SendOptions{}, firstPositive(fresh.Plan.ChunkSize, s.Profile.ChunkSize), j)
	opts.Resume = s.startRecord(fresh.Plan.IgnoreQuietHours, r.Kind)
	s.whenOptions(&opts, fresh.Plan.IgnoreQuietHours) // quiet hours reached on the way hold the rest again
	run, err := dispatch.Start(ctx, s.Client, job, opts)
	if err != nil {
		return nil, how, fmt.Errorf("%w; nothing was sent", err)
	}
	x = &Send{run: run, chunk: opts.ChunkSize, journal: j, source: fresh.Plan.Source, start: StartScheduled, runner: r.Kind}
	switch how {
	case startHeld:
		x.start = StartContinued
	case startTakeover:
		x.start = StartTakenOver
	}
	s.track(x)
	return x, how, nil
}

// start starts the claimed send read (see Runner.start), unless it could
// not be read.
func (read claimRead) start(ctx context.Context, r *Runner, s *Session, c config.ClaimedSend, f *runnerFacts, now time.Time) (*Send, startHow, error) {
	if read.err != nil {
		return nil, startNone, read.err
	}
	return r.start(ctx, s, c, read.state, f, now)
}

// isDue reports whether a send due at at starts now. A send started,
// cancelled or continued meanwhile (at zero or ahead) is not; one overdue
// past Late is marked missed (a scheduled send) or left for an operator and
// said once (a held one, or one whose runner has gone).
func (r *Runner) isDue(s *Session, j *config.JournalFile, id string, at time.Time, how startHow, now time.Time) (bool, error) {
	switch {
	case at.IsZero() || at.After(now):
		return false, nil
	case now.Sub(at) <= r.late():
		return true, nil
	case how == startScheduled:
		return false, r.missed(s, j, id, at, now)
	}
	r.mu.Lock()
	said := r.left[id]
	if r.left == nil {
		r.left = map[string]bool{}
	}
	r.left[id] = true
	r.mu.Unlock()
	if !said {
		r.report(r.leftEvent(s, id, how, at))
	}
	return false, nil
}

// leftEvent says that send id, due at at (how), is left for an operator.
func (r *Runner) leftEvent(s *Session, id string, how startHow, at time.Time) RunnerEvent {
	sid, zone := model.SanitizeLine(id), s.Profile.Zone()
	reason := fmt.Sprintf("send %s was held until %s, more than %s ago: left held, for an operator to resume", sid,
		model.AtText(at, zone), model.Countdown(r.late()))
	if how == startTakeover {
		reason = fmt.Sprintf("send %s: its runner stopped mid-send, last heard of at %s, more than %s ago: left for an operator to resume (smsdesk history show %s)",
			sid, model.AtText(at, zone), model.Countdown(r.late()), sid)
	}
	return RunnerEvent{Kind: RunnerLeftHeld, ID: id, Continued: how == startHeld, TakenOver: how == startTakeover, Reason: reason}
}

// checkAtStart applies the send rules again to what job would send: a
// refusal is journaled (refuse) and returned.
func (r *Runner) checkAtStart(ctx context.Context, s *Session, j *config.JournalFile, id string, fresh *model.JournalState, job *dispatch.Job, how startHow, now time.Time, f *runnerFacts) error {
	if len(job.ToSend()) == 0 {
		return nil
	}
	ref, err := startCheck(ctx, s, id, fresh, job.ToSend(), f)
	if err != nil || ref == nil {
		return err
	}
	if how != startScheduled {
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
// rules, weighed with the facts the pass asked for (the profile's lines,
// the account's credit) and, read from the ledger now, the sends that took
// any of its pairs since, other than itself and those the operator's say
// named when it was scheduled (its RepeatOf). A key the service refused
// stops it too. A nil refusal lets it go; err is a failure to look (tried
// again at the next look).
func startCheck(ctx context.Context, s *Session, id string, st *model.JournalState, todo []int, f *runnerFacts) (*Refusal, error) {
	if f.refusal != nil {
		ref := *f.refusal // each send's own: its id, its reason
		if ref.Rule == RuleKeyRefused {
			ref.SendID = model.SanitizeLine(id)
		}
		return &ref, nil
	}
	rows := make([]model.PairRow, 0, len(todo))
	for _, ix := range todo {
		if it, ok := st.Item(ix); ok {
			rows = append(rows, model.PairRow{Line: it.Line, Recipient: it.Recipient, Message: it.Message})
		}
	}
	plan := model.BuildPlan(st.Plan.Sender, rows, model.PlanOptions{Format: s.Profile.NumberFormat, AllowInternational: s.Profile.AllowInternational})
	facts := f.facts
	if !facts.Since.IsZero() { // the repeat guard: the ledger as it is now, under the start lock
		hist, err := config.RecentPairs(ctx, s.Paths, s.repeatScope(), facts.Since)
		if err != nil {
			return nil, fmt.Errorf("checking earlier sends for repeats: %w; nothing was sent", err)
		}
		facts.History = hist
	}
	skip := append([]string{id}, st.Plan.RepeatOf...)
	facts.History = slices.DeleteFunc(facts.History, func(h model.SentPairs) bool { return slices.Contains(skip, h.SendID) })
	// Quiet hours are not refused here: a run that starts inside them is
	// held at once (its Hold), and goes on at their end.
	p := &PendingSend{SendRequest: SendRequest{Plan: plan, Source: FileSource(st.Plan.Source), IgnoreQuietHours: true}, Facts: facts, Note: f.note, s: s}
	s.check(ctx, p)
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
	switch ev.Kind {
	case RunnerStarted:
		return fmt.Sprintf("send %s %s: %s to go", id, ev.what(), ev.togo())
	case RunnerFinished:
		return ev.finishedText(id)
	case RunnerMissed:
		return fmt.Sprintf("send %s missed: %s", id, model.SanitizeLine(ev.Reason))
	case RunnerRefused:
		return fmt.Sprintf("send %s not started at its time: %s", id, model.SanitizeLine(ev.Reason))
	case RunnerLeftHeld, RunnerLedgerWait:
		return model.SanitizeLine(ev.Reason)
	case RunnerDelivery:
		if ev.Err != nil {
			return "delivery: " + model.SanitizeLine(ev.Err.Error()) + " (tried again at the next look)"
		}
		return ev.Poll.Text(ev.zoneOr())
	case RunnerWaiting:
		if ev.Next.IsZero() {
			return "waiting: no send is scheduled"
		}
		return "waiting: the next send is due " + model.AtText(ev.Next, ev.zoneOr())
	}
	var look *LookWaitError
	switch {
	case errors.As(ev.Err, &look):
		return model.SanitizeLine(look.Error()) + " (it looks again later)"
	case id == "":
		return "looking for due sends: " + model.SanitizeLine(fmt.Sprint(ev.Err))
	}
	return fmt.Sprintf("send %s: %s (tried again at the next look)", id, model.SanitizeLine(fmt.Sprint(ev.Err)))
}

func (ev RunnerEvent) what() string {
	switch {
	case ev.TakenOver:
		return "taken over (its runner stopped mid-send; what may have gone is left as it is)"
	case ev.Continued:
		return "continued (held at quiet hours)"
	}
	return "started"
}

func (ev RunnerEvent) togo() string {
	if ev.Send == nil {
		return "0 messages"
	}
	if n := len(ev.Send.ToSend()); n != 1 {
		return model.Thousands(int64(n)) + " messages"
	}
	return "1 message"
}

func (ev RunnerEvent) zoneOr() *time.Location {
	if ev.zone == nil {
		return time.UTC
	}
	return ev.zone
}

func (ev RunnerEvent) finishedText(id string) string {
	c := ev.Outcome.Summary.Counts
	line := fmt.Sprintf("send %s: %d accepted, %d rejected, %d failed, %d unknown, %d not sent, %d opted out", id,
		c.Accepted, c.Rejected, c.Failed, c.Unknown, c.NotSent, c.OptedOut)
	switch sum := ev.Outcome.Summary; {
	case !sum.HeldUntil.IsZero():
		line += " (held at quiet hours until " + model.AtText(sum.HeldUntil, ev.zoneOr()) + ")"
	case sum.Stopped != "":
		line += " (stopped: " + model.SanitizeLine(sum.Stopped) + ")"
	case sum.Interrupted:
		line += " (interrupted)"
	}
	if ev.Err != nil {
		line += "; " + model.SanitizeLine(ev.Err.Error())
	}
	return line
}
