package app

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/smsdesk/smsdesk/client/dispatch"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// A new send has a resume's shape: PrepareSend (sendrequest.go) checks it
// and returns a PendingSend, which a face shows in its confirmation; its
// Start, on the operator's yes, looks again (under config.LockSendStart)
// for what may have changed meanwhile, then journals and sends. No face
// assembles the steps itself, so none can leave the look at start out.

// PendingSend is a new send checked and waiting for the operator's yes:
// what a face shows in its confirmation (the plan, the facts it was checked
// with, the verdict) and why it may not go as asked (Refusal). Nothing is
// locked, journaled or sent until Start. Its exported fields are the whole
// of what was decided, so that a send confirmed now can be kept and started
// later (the facts' Since and History say what the check had seen).
type PendingSend struct {
	SendRequest
	// Facts are what the rules weighed besides the plan (Session.Facts).
	Facts model.SendFacts
	// Note says why a fact is missing (the account's credit unknown), for
	// the confirmation; "" when none is.
	Note    string
	Verdict model.Verdict
	// OptedOut are the plan's recipients on the opt-out list for
	// its line: left out, journaled as opted out, never sent.
	OptedOut []model.PlanItem
	// Quiet warns that the estimate reaches the start of quiet hours (nil
	// when it does not, or the operator ignores them).
	Quiet *QuietForecast
	// Refusal is why the send may not go as asked (rows that cannot be
	// sent, a plan-wide problem, repeats not allowed); nil when it may.
	// Start refuses with it. Two refusals are questions a face may put to
	// the operator: RuleRepeat (yes: AllowRepeats) and RuleQuietHours (yes,
	// for a role that may: the same request with IgnoreQuietHours).
	Refusal *Refusal
	// Layout is how a pairs file's columns were read (File without
	// Template), for the face to say; nil for other rows.
	Layout *model.PairsLayout
	// Line are the rules the send's line adds to the profile's (its
	// kind's quiet hours and suffix), and why, for every face to say
	// (Line.Texts); its Quiet are the windows the send keeps.
	Line model.LineRules

	s       *Session
	mu      sync.Mutex
	started bool
}

// prepareSend is PrepareSend on the session with the settings read now.
func (s *Session) prepareSend(ctx context.Context, req SendRequest) (*PendingSend, error) {
	if err := s.allowQuiet(req.IgnoreQuietHours); err != nil {
		return nil, err
	}
	// Marking who is opted out (now and again at Start) never writes the
	// face's plan, which the console draws while this runs in a Cmd: the
	// marks go on the pending send's own copy (markOptedOut).
	plan, optedOut, err := s.markOptedOut(ctx, req.Plan)
	if err != nil {
		return nil, err
	}
	req.Plan = plan
	if s.line == nil || s.line.Line != plan.Sender { // a resend goes from its send's line, known once planned
		if s, err = s.forLine(ctx, plan.Sender, plan.NoSuffix, 0, 0); err != nil {
			return nil, err
		}
	}
	s.decideLine(plan)                     // the line's quiet hours hold when a recipient is MCI's
	quiet := s.quietNow(req.when(s.now())) // a scheduled send: at its time
	if req.IgnoreQuietHours {
		quiet = nil
	}
	facts, note, err := s.facts(ctx, quiet == nil, nil) // inside quiet hours: not even a credit look-up
	if err != nil {
		return nil, err
	}
	facts.History = req.taken.excuse(facts.History) // a resend's pairs are no repeat of the send they failed in
	if req.ChunkSize > 0 {
		facts.ChunkSize = req.ChunkSize // the estimate counts the requests this send will make
	}
	p := &PendingSend{SendRequest: req, Facts: facts, Note: note, OptedOut: optedOut, s: s}
	if s.line != nil {
		p.Line = *s.line
	}
	s.check(ctx, p)
	s.noteResentAlready(ctx, p)
	// A once-only id used already decides before any other rule: a re-run
	// of the same send is reported, not refused as a repeat of itself.
	r, err := s.onceConflict(ctx, p)
	if err != nil {
		return nil, err
	}
	if r != nil {
		p.Refusal = r
	}
	if !req.IgnoreQuietHours {
		p.Quiet = s.forecast(p.Verdict.Summary, facts.ChunkSize, req.when(facts.Now))
	}
	return p, nil
}

// RepeatTexts says which earlier sends took p's pairs (its verdict's
// repeats), for people: their times in the profile's timezone.
func (p *PendingSend) RepeatTexts() []string {
	out := make([]string, 0, len(p.Verdict.Repeats))
	for _, r := range p.Verdict.Repeats {
		out = append(out, r.Problem(p.Facts.Now, p.s.Profile.Zone()))
	}
	return out
}

// Rules are the profile's settings p was checked with, as the config file
// held them when it was prepared: what its confirmation shows (quiet
// hours, the timezone, the suffix, prices). Start refuses if they are no
// longer the ones that hold (RuleSettingsChanged).
func (p *PendingSend) Rules() Profile { return p.s.Profile }

// Refused is p.Refusal as an error: nil when the send may go (a nil
// *Refusal in an error would not be).
func (p *PendingSend) Refused() error {
	if p.Refusal == nil {
		return nil
	}
	return p.Refusal
}

// AllowRepeats is p with the repeats its check named allowed (the
// operator's yes to them): a copy, not yet started, whose Refusal is nil
// unless another rule refuses.
func (p *PendingSend) AllowRepeats() *PendingSend {
	q := &PendingSend{SendRequest: p.SendRequest, Facts: p.Facts, Note: p.Note, Verdict: p.Verdict, OptedOut: p.OptedOut, Quiet: p.Quiet, Layout: p.Layout,
		Line: p.Line, s: p.s}
	q.AllowRepeat = true
	q.Refusal = refusal(q)
	return q
}

// ErrStarted: a pending send starts once; a second yes sends nothing.
var ErrStarted = errors.New("this send has already been started; nothing more was sent")

// Start sends p, once: under config.LockSendStart, held until the new
// journal holds the plan, it looks again for sends begun since p was
// prepared that took any of its pairs (RuleRepeat with Repeat.Meanwhile,
// nothing sent); then it journals the plan (a new send id) and hands it to
// the engine, paced, chunked and journaled chunk by chunk. ctx ends the run
// after the chunk in flight. o.ChunkSize 0 takes the request's, else the
// profile's. A refused p (Refusal set) is refused again here.
func (p *PendingSend) Start(ctx context.Context, o SendOptions) (*Send, error) {
	if !p.At.IsZero() {
		return nil, errors.New("a send with a time is scheduled (Schedule), not started now; nothing was sent")
	}
	s := p.s
	ctx, waits := relayWaits(ctx) // the journal's waits on the ledger: the run's events once it runs
	jn, unlock, err := p.journal(ctx, o, "nothing was sent")
	if err != nil {
		return nil, err
	}
	defer unlock() // after dispatch.Start: the journal holds the plan then
	run, err := dispatch.Start(ctx, s.Client, jn.job, jn.opts)
	if err != nil {
		jn.discard() // its plan is not whole; nothing was sent
		return nil, notSent("", err)
	}
	waits.running(run)
	p.started = true
	if jn.opts.Plan.IgnoreQuietHours {
		s.auditQuiet(ctx, jn.job.ID, false)
	}
	x := &Send{run: run, chunk: jn.opts.ChunkSize, journal: jn.j, source: p.Source.Name, start: StartNew}
	s.track(x)
	return x, nil
}

// journaled is a checked send with its new journal: what Start hands to
// the engine, and what Schedule keeps for a runner.
type journaled struct {
	job        *dispatch.Job
	j          *config.JournalFile
	opts       dispatch.Options
	forgetOnce func()
}

// discard removes the journal of a send that did not begin (nothing was
// sent), and forgets its once-only id.
func (jn *journaled) discard() {
	_ = jn.j.Discard()
	jn.forgetOnce()
}

// journal is what Start and Schedule share, once: it takes p (a second
// yes gets ErrStarted) and config.LockSendStart, both held until unlock,
// which the caller calls once the journal holds the plan; it looks again at
// the rules that may have changed since p was prepared (a once-only id
// used meanwhile, quiet hours at its time, opt-outs, sends begun since that
// took its pairs), then creates the send's journal and its run options.
// nothing ends its refusals ("nothing was sent", "nothing was scheduled").
func (p *PendingSend) journal(ctx context.Context, o SendOptions, nothing string) (jn *journaled, unlock func(), err error) {
	s := p.s
	if p.DryRun {
		return nil, nil, fmt.Errorf("a dry run is checked, never sent; %s", nothing)
	}
	if err := s.Allow(ActionSend); err != nil {
		return nil, nil, err
	}
	// The role as it is now, not as it was when the question opened: an
	// admin made a sender meanwhile no longer sends through quiet hours.
	if err := s.allowQuiet(p.IgnoreQuietHours); err != nil {
		return nil, nil, err
	}
	if s.Client == nil {
		return nil, nil, ErrNotSignedIn
	}
	if p.Refusal != nil {
		return nil, nil, p.Refusal
	}
	if err := p.sameSettings(ctx, nothing); err != nil {
		return nil, nil, err
	}
	p.mu.Lock()
	if p.started {
		p.mu.Unlock()
		return nil, nil, ErrStarted
	}
	unlockStart, err := config.LockSendStart(ctx, s.Paths)
	if err != nil {
		p.mu.Unlock()
		return nil, nil, fmt.Errorf("%w; %s", err, nothing)
	}
	release := func() { unlockStart(); p.mu.Unlock() }
	defer func() {
		if err != nil {
			release() // refused, or failed: nothing is held
		}
	}()
	if err := p.lookAgain(ctx); err != nil {
		return nil, nil, err
	}
	if jn, err = p.create(ctx, o, nothing); err != nil {
		return nil, nil, err
	}
	return jn, release, nil
}

// sameSettings refuses p when the profile's settings are not, now, the
// ones it was checked with and its question showed (config set on the host
// while the question was open), or its line's kind is not (lines set):
// nothing starts under rules the operator was not shown.
func (p *PendingSend) sameSettings(ctx context.Context, nothing string) error {
	now, err := p.s.rulesNow()
	if err != nil {
		return err
	}
	if r := changedRefusal(p.s.Profile, now.Profile, nothing); r != nil {
		return r
	}
	return p.sameLineKind(ctx, nothing)
}

// lookAgain applies, under the start lock, the rules that may have changed
// since p was prepared: a once-only id used meanwhile (two runs with one id
// both prepared before either started: the second finds the first's record
// here), quiet hours at its time and opt-outs, sends begun since that took
// its pairs. A once-only or repeat refusal is told to the server's other
// sessions.
func (p *PendingSend) lookAgain(ctx context.Context) error {
	s := p.s
	r, err := s.onceConflict(ctx, p)
	if err != nil {
		return err
	}
	if r == nil {
		if err := s.recheckWhen(ctx, p); err != nil {
			return err
		}
		if err = s.recheck(ctx, p); err == nil || !errors.As(err, &r) {
			return err
		}
	}
	s.Tracker.refused(s.operatorRecord(), r)
	return r
}

// create journals p's plan as a new send (recording its once-only id) and
// gives the run's options.
func (p *PendingSend) create(ctx context.Context, o SendOptions, nothing string) (*journaled, error) {
	s, plan := p.s, p.Plan
	items := make([]model.JournalItem, len(plan.Items))
	for i, it := range plan.Items {
		items[i] = model.JournalItem{Index: it.Index, Recipient: it.Recipient, Message: it.Message, Parts: it.Parts.Parts, Line: it.Line, OptedOut: it.OptedOut}
	}
	job := dispatch.NewJob(dispatch.NewID(s.now()), plan.Sender, items)
	j, err := config.CreateJournal(ctx, s.Paths, job.ID)
	if err != nil {
		return nil, fmt.Errorf("%w; %s", err, nothing)
	}
	forgetOnce, err := s.recordOnce(ctx, p, job.ID)
	if err != nil {
		_ = j.Discard()
		return nil, err
	}
	opts := s.runOptions(o, firstPositive(o.ChunkSize, p.ChunkSize, s.Profile.ChunkSize), j)
	opts.Plan = p.planRecord()
	s.whenOptions(&opts, p.IgnoreQuietHours)
	return &journaled{job: job, j: j, opts: opts, forgetOnce: forgetOnce}, nil
}
