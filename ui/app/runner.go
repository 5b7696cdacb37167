package app

// The runner: what starts a scheduled send at its time, continues a send
// held at quiet hours when they end, and takes over a send whose runner
// died mid-send, with no operator at hand. Every smsdesk serve has one for
// the profile it serves; smsdesk scheduler is one in the foreground (a
// systemd unit), and smsdesk scheduler --once one pass of it (a cron job).
//
// Several may run on one ledger, in several processes and on several
// hosts. A pass finds the profile's due sends through the ledger's due
// index (never the whole history: an idle pass reads due rows only), asks
// the service what the rules need (the credit) while holding nothing, then
// claims the due sends in one transaction, each under a lease its run
// renews while it runs (config.ClaimDue): each send starts once, and one
// whose runner died is taken over once its lease ends. Each claimed send
// runs in its own goroutine, so that a long send never keeps another past
// its time. They share the session's one client, and so its one pacer:
// every request of every run waits its turn in the key's one budget (kept
// in the state directory, shared with every smsdesk on this key on this
// host); ten sends at once take as long as one send of all their chunks.
// A runner learns of a new or changed send through the ledger's Watch
// within a second.

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// DefaultLate is how overdue a send may still start (--late): one whose
// time passed longer ago while no runner ran is marked missed, never sent.
const DefaultLate = time.Hour

// DefaultPoll is how often a runner's Loop looks for due sends besides when
// the ledger says something changed and at each send's time.
const DefaultPoll = 30 * time.Second

// failGap is how long a loop waits before it looks again after a due send
// could not be started (its lease let go wakes every runner at once).
const failGap = time.Second

// Runner starts the due sends of its session's profile (against its
// service): scheduled ones at their time, held ones when quiet hours end,
// and those whose runner has gone.
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
	// Report is told what the runner does (nil: nothing). It is called one
	// event at a time, from the runner's goroutines (each send runs in its
	// own).
	Report func(RunnerEvent)
	// LookWait bounds each of its looks at the ledger (its due sends, its
	// claim, when the next is due; runner_look.go); 0: ledger.LookWait.
	LookWait time.Duration
	// PollDelivery: Loop also polls the delivery states of the account's
	// messages that have none final yet (DeliveryPoller, at its share of
	// the budget) beside its sends; serve and scheduler set it.
	PollDelivery bool

	reportMu sync.Mutex
	mu       sync.Mutex
	left     map[string]bool // sends left for an operator, said once
	skip     []string        // sends of another base URL: never claimed again
	starting bool            // a Loop's first look: it verifies the ledger whatever its last verification
}

// CheckEvery is how often the ledger is verified by its runners
// (config.VerifyLedger: its pages, its damage mark, every row): a Loop
// verifies it as it starts, and any look (a Loop's, or scheduler --once's
// pass) once the ledger's last verification, by any runner on it, is this
// old (its time is kept in the ledger). A verification reads every row,
// so no CLI send makes one (BENCHMARKS.md has its cost).
const CheckEvery = time.Hour

// RunnerEventKind says what a RunnerEvent reports.
type RunnerEventKind int

// What a runner reports.
const (
	// RunnerStarted: a scheduled send started, a held one went on
	// (Continued), or one whose runner had gone was taken over
	// (TakenOver); Send is its run.
	RunnerStarted RunnerEventKind = iota
	// RunnerFinished: that run ended; Outcome is as its journal tells it,
	// Err a write to the journal that failed and stopped it.
	RunnerFinished
	// RunnerMissed: a scheduled send overdue past Late was marked missed,
	// never sent (Reason).
	RunnerMissed
	// RunnerRefused: the rules refused the send as it was to start
	// (Refusal), journaled with the reason: nothing of it was sent.
	RunnerRefused
	// RunnerLeftHeld: a held send found more than Late after quiet hours
	// ended, or an open one whose runner has gone found more than Late
	// after it last wrote, is left for an operator to resume (Reason).
	// Said once.
	RunnerLeftHeld
	// RunnerFailed: the send could not be looked at or started (Err); it
	// is tried again at the next look.
	RunnerFailed
	// RunnerWaiting: a Loop has started what was due and waits; Next is
	// when the next send is due (zero: none waits).
	RunnerWaiting
	// RunnerLedgerWait: a write of the runner's (a claim, a start, a
	// record of a send it runs, ID) waits for another writer of the
	// ledger; Reason says what for (LedgerWait.String). Said after about a
	// second and every few seconds while it waits; the write then goes on,
	// or fails past its bound as any write that fails.
	RunnerLedgerWait
	// RunnerDelivery: the delivery poller asked, gave up on messages
	// (no_report), found polling off (Poll), or failed (Err).
	RunnerDelivery
)

// RunnerEvent is one thing a runner did.
type RunnerEvent struct {
	Kind RunnerEventKind
	ID   string
	// Continued: a held send went on, rather than a scheduled one starting.
	Continued bool
	// TakenOver: a send whose runner had gone mid-send went on with the
	// items certainly not sent (the unknown ones wait for an operator).
	TakenOver bool
	Send      *Send
	Outcome   Outcome
	Refusal   *Refusal
	Reason    string
	Err       error
	Next      time.Time
	Poll      PollPass // RunnerDelivery's

	zone *time.Location // the profile's, for Text
}

func (r *Runner) late() time.Duration {
	if r.Late > 0 {
		return r.Late
	}
	return DefaultLate
}

func (r *Runner) report(ev RunnerEvent) {
	if r.Report == nil {
		return
	}
	ev.zone = r.Session.Profile.Zone()
	r.reportMu.Lock()
	defer r.reportMu.Unlock()
	r.Report(ev)
}

// query selects the runner's due sends at now: its profile's, on its
// service.
func (r *Runner) query(now time.Time) config.DueQuery {
	p := r.Session.Profile
	r.mu.Lock()
	defer r.mu.Unlock()
	return config.DueQuery{Now: now, Late: r.late(), Profile: p.Name, Host: model.ServiceHost(p.BaseURL), Exclude: slices.Clone(r.skip)}
}

// Next is when the next send of the profile is due after now (zero: none
// is waiting): a look, bounded by the look wait.
func (r *Runner) Next(ctx context.Context) (next time.Time, err error) {
	err = r.looking(ctx, lookNext, func(c context.Context) (err error) {
		next, _, err = config.NextWake(c, r.Session.Paths, r.query(r.Session.now()))
		return err
	})
	return next, err
}

// Pass starts the sends due now, each in its own goroutine, and waits
// until every run it started has ended (its chunk in flight journaled when
// ctx ends). It returns how many it started; err is why it could not look,
// or the first write to a journal that failed and stopped a send (a
// *SendStoppedError: every request was recorded before it left; the chunk
// in flight when it failed may have gone). A damaged ledger starts none of the due
// sends: err is the damage, naming the send whose row does not parse. A send another runner (or an operator's
// resume) holds is left to it.
func (r *Runner) Pass(ctx context.Context) (started int, err error) {
	rs := newRuns()
	err = r.pass(ctx, rs)
	rs.wait()
	if f := rs.failed(); f != nil {
		err = errors.Join(err, f)
	}
	return rs.started, err
}

// Loop looks for due sends at once, then whenever the ledger says sends
// changed, when the next one is due, when a lease on a due send ends, and
// at least every poll (0: DefaultPoll), until ctx ends; the sends it runs
// then stop after their chunk in flight, and Loop returns once they have.
// A write to a journal that fails stops its send and the loop: it claims
// nothing more, waits for its other sends, and returns that failure; so
// does a damaged ledger (a due send's row that does not parse, a page that
// fails the check before a claim), one that has gone or cannot be opened,
// having started nothing. The clock that decides what is due is the session's; the waiting is real
// time.
func (r *Runner) Loop(ctx context.Context, poll time.Duration) error {
	if poll <= 0 {
		poll = DefaultPoll
	}
	watchCtx, stopWatch := context.WithCancel(ctx)
	changes, err := config.WatchSends(watchCtx, r.Session.Paths)
	if err != nil {
		stopWatch()
		return err
	}
	rs := newRuns()
	polled := r.pollDelivery(watchCtx)
	defer func() {
		rs.wait()
		stopWatch()
		<-polled
		for range changes { // the watch has ended when it closes
		}
	}()
	// The first look once the watch is in place: what changes after it is
	// signalled. It verifies the ledger first, as a runner's start.
	if !wake(ctx, changes, nil, poll) {
		return nil
	}
	r.mu.Lock()
	r.starting = true
	r.mu.Unlock()
	for {
		err := r.pass(ctx, rs)
		switch {
		case err == nil || ctx.Err() != nil:
		case ledgerRefusal(err):
			// A damaged ledger (gone, another's) starts nothing: the loop
			// stops and returns it, as at a failed write.
			rs.fail(err)
		default:
			r.report(RunnerEvent{Kind: RunnerFailed, Err: err})
		}
		if err := rs.failed(); err != nil {
			return err
		}
		next, wait := r.nextWait(ctx, poll)
		r.report(RunnerEvent{Kind: RunnerWaiting, Next: next})
		if !wake(ctx, changes, rs.ended, wait) {
			return nil
		}
		if d := failGap - rs.sinceStartFailed(); d > 0 && !wake(ctx, nil, nil, d) {
			return nil
		}
	}
}

// wake waits for a signal on changes or ended, or for d; false when ctx
// ended first.
func wake(ctx context.Context, changes <-chan struct{}, ended chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-changes:
	case <-ended:
	case <-t.C:
	}
	return ctx.Err() == nil
}

// nextWait is when the next send is due, and how long a loop waits at most
// before it looks again: until then, until a lease on a due send ends, or
// poll.
func (r *Runner) nextWait(ctx context.Context, poll time.Duration) (next time.Time, wait time.Duration) {
	now := r.Session.now()
	var leaseEnds time.Time
	err := r.looking(ctx, lookNext, func(c context.Context) (err error) {
		next, leaseEnds, err = config.NextWake(c, r.Session.Paths, r.query(now))
		return err
	})
	wait = poll
	if err != nil {
		return time.Time{}, wait
	}
	if !next.IsZero() {
		wait = min(wait, max(next.Sub(now), 0)+10*time.Millisecond)
	}
	if !leaseEnds.IsZero() {
		wait = min(wait, max(time.Until(leaseEnds), 0)+10*time.Millisecond)
	}
	return next, wait
}

// pass claims the profile's due sends and starts each in its own goroutine
// (counted in rs); it returns once they are started. The service is asked
// what the rules need before anything is claimed or locked; nothing is
// asked when nothing is due.
//
// The profile's settings are read as they are now (Session.Settings), once
// a pass: a runner started before `config set quiet_hours …` starts its
// sends under the new hours. Settings that cannot be read start nothing
// (tried again at the next look).
func (r *Runner) pass(ctx context.Context, rs *runs) error {
	ctx = r.ledgerWaits(ctx)
	if r.Session.Client == nil {
		return ErrNotSignedIn
	}
	// The time a send is due by is taken before the rules are read: a send
	// due by then starts under rules read after it (a `config set` made
	// before that time counts; the claim used a later time, after the
	// service was asked, and a pass could start a send that came due
	// meanwhile under rules read before a change made before it came due).
	now := r.Session.now()
	s, err := r.Session.rulesNow()
	var ref *Refusal
	if errors.As(err, &ref) {
		return errors.New(ref.Reason) // not refused at its time: tried again
	}
	if err != nil {
		return err
	}
	if err := r.verify(ctx, s); err != nil {
		return err
	}
	q := r.query(now)
	if err := r.reportLeft(ctx, s, q); err != nil {
		return err // the ledger is held: the pass gives up at its first look that waited
	}
	var due []config.DueSend
	if err := r.looking(ctx, lookDue, func(c context.Context) (err error) {
		due, err = config.DueSends(c, s.Paths, q)
		return err
	}); err != nil {
		return err
	}
	if !slices.ContainsFunc(due, func(d config.DueSend) bool { return !d.Leased }) {
		return nil
	}
	f, err := r.askFacts(ctx, s)
	if err != nil {
		return err
	}
	q.Now = now
	claimed, err := config.ClaimDue(ctx, s.Paths, q, r.lookWait())
	if err := r.lookFailed(ctx, lookClaim, err); err != nil {
		return err
	}
	reads, err := r.readClaimed(ctx, s, claimed)
	if err != nil {
		return err
	}
	for i, c := range claimed {
		rs.add()
		go r.run(ctx, s, c, reads[i], f, now, rs)
	}
	return nil
}

// verify verifies the ledger (config.VerifyLedger) at a Loop's start, and
// on any look once its last verification is CheckEvery old: a page
// overwritten where no send reads (the audit trail, an index), or a
// record that does not parse in a finished send, refuses every start, in
// every process on the ledger (the damage is marked in it).
func (r *Runner) verify(ctx context.Context, s *Session) error {
	r.mu.Lock()
	force := r.starting
	r.mu.Unlock()
	if err := r.looking(ctx, lookCheck, func(c context.Context) error { return config.VerifyLedger(c, s.Paths, CheckEvery, force) }); err != nil {
		return err
	}
	r.mu.Lock()
	r.starting = false
	r.mu.Unlock()
	return nil
}

// claimRead is a claimed send's journal as read under its new lease.
type claimRead struct {
	state *model.JournalState
	err   error // it could not be read (the send's run says so)
}

// readClaimed reads every claimed send's journal before any starts: one
// that does not parse means a damaged ledger, which starts no send at all
// (issue 36: a damaged ledger refuses every send, not only the one whose
// row is damaged: what else it lost cannot be known). Then every claim is
// let go and the damage returned, naming the send.
func (r *Runner) readClaimed(ctx context.Context, s *Session, claimed []config.ClaimedSend) ([]claimRead, error) {
	reads := make([]claimRead, len(claimed))
	for i, c := range claimed {
		var st *model.JournalState
		err := r.looking(ctx, lookRead, func(look context.Context) (err error) {
			st, err = config.ReadJournal(look, s.Paths, c.Send.ID)
			return err
		})
		if ledgerRefusal(err) {
			for _, c := range claimed {
				_ = c.Journal.Close()
			}
			return nil, err
		}
		reads[i] = claimRead{state: st, err: err}
	}
	return reads, nil
}

// run starts claimed send c and waits for its run to end, telling what it
// did; a send it does not start is let go.
func (r *Runner) run(ctx context.Context, s *Session, c config.ClaimedSend, read claimRead, f *runnerFacts, now time.Time, rs *runs) {
	defer rs.done()
	id := c.Send.ID
	x, how, err := read.start(ctx, r, s, c, f, now)
	var ref *Refusal
	switch {
	case errors.As(err, &ref):
		r.report(RunnerEvent{Kind: RunnerRefused, ID: id, Refusal: ref, Reason: ref.Reason})
	case err != nil:
		rs.startFailed()
		r.report(RunnerEvent{Kind: RunnerFailed, ID: id, Err: err})
	}
	if x == nil {
		_ = c.Journal.Close()
		return
	}
	rs.didStart()
	continued, takenOver := how == startHeld, how == startTakeover
	r.report(RunnerEvent{Kind: RunnerStarted, ID: id, Continued: continued, TakenOver: takenOver, Send: x})
	out, runErr := x.Finish()
	r.report(RunnerEvent{Kind: RunnerFinished, ID: id, Continued: continued, TakenOver: takenOver, Send: x, Outcome: out, Err: runErr})
	if runErr != nil {
		rs.fail(&SendStoppedError{ID: id, Err: runErr})
	}
}

// reportLeft says once of each send left for an operator: held past Late
// after quiet hours ended, or open with its runner gone past Late after
// it last wrote. Its look that waited past the look wait is its error (a
// *LookWaitError): the pass ends there, within one look wait of a ledger
// held from its start, rather than wait again in its look for due sends.
// Another failure of its look is left for the pass's next look to say.
func (r *Runner) reportLeft(ctx context.Context, s *Session, q config.DueQuery) error {
	var left []config.DueSend
	if err := r.looking(ctx, lookLeft, func(c context.Context) (err error) {
		left, err = config.LeftDue(c, s.Paths, q)
		return err
	}); err != nil {
		if _, busy := errors.AsType[*LookWaitError](err); busy || ctx.Err() != nil {
			return err
		}
		return nil // the look for due sends says why
	}
	for _, d := range left {
		r.mu.Lock()
		said := r.left[d.ID]
		if r.left == nil {
			r.left = map[string]bool{}
		}
		r.left[d.ID] = true
		r.mu.Unlock()
		if said {
			continue
		}
		how, at := startHeld, d.DueAt
		if d.HeldUntil.IsZero() { // an open run, not a held one
			how, at = startTakeover, d.Touched
		}
		r.report(r.leftEvent(s, d.ID, how, at))
	}
	return nil
}

// pollDelivery starts the delivery poller when the runner polls (its
// goroutine ends with ctx); the channel closes once it has ended.
func (r *Runner) pollDelivery(ctx context.Context) <-chan struct{} {
	done := make(chan struct{})
	if !r.PollDelivery || r.Session.Client == nil {
		close(done)
		return done
	}
	p := &DeliveryPoller{Session: r.Session}
	go func() {
		defer close(done)
		p.Loop(ctx, DefaultPoll, func(res PollPass, err error) {
			r.report(RunnerEvent{Kind: RunnerDelivery, Poll: res, Err: err})
		})
	}()
	return done
}
