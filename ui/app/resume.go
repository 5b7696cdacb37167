package app

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/smsdesk/smsdesk/client/dispatch"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// ResumeOptions say what the operator asked of a resume.
type ResumeOptions struct {
	// IncludeUnknown sends again the items whose outcome is unknown (some may
	// already have gone): only on the operator's explicit say.
	IncludeUnknown bool
	// AnyBaseURL: the operator named the service on purpose (--base-url), so
	// a send made against another base URL may resume here.
	AnyBaseURL bool
	// AllowRepeat sends pairs that other sends accepted, or may have sent,
	// within the repeat window (--allow-repeat): only on the operator's say.
	AllowRepeat bool
	// IgnoreQuietHours resumes inside, or on past the start of, quiet hours
	// (the admin role on a served console): recorded.
	IgnoreQuietHours bool
}

// Resume is a past send prepared to continue: what it would send, counted
// once, for the question the face asks before Start.
type Resume struct {
	ID    string
	State *model.JournalState // the send as it was when prepared
	// Todo are the plan indexes that would go (certainly not taken, and the
	// unknown ones when asked); Parts their SMS parts.
	Todo  []int
	Parts int
	// Unknown are the items whose outcome is unknown (sent again only with
	// IncludeUnknown; then without those in OptedOut, never sent again).
	Unknown []int
	// With IncludeUnknown: AsFirstSent counts the unknown items that go
	// again as they first went (their whole chunk, same items, same order,
	// same Idempotency-Key: a service that honours the key drops a copy);
	// Apart are the chunks whose unknown items cannot, each with why: they
	// go in new chunks under new keys, where a copy cannot be caught. The
	// faces say so before the question.
	AsFirstSent int
	Apart       []model.UnknownChunk
	// OptedOut are the items left to send whose recipients have been put
	// on the opt-out list since: left out of Todo, journaled as opted out
	// when the resume starts.
	OptedOut []int
	// Time is how long Todo takes at the pace the client keeps, as a new
	// send's confirmation says it: "about 52 s (260 requests, 5 per 1 s as
	// the service said)".
	Time string
	// Damage says what damaged journal lines mean ("" for a sound journal).
	Damage string
	opts   ResumeOptions
	s      *Session
}

// PrepareResume reads send id and checks that it may continue from this
// session: the send's profile and service must be the session's, and no
// other run may be working on it. Nothing is locked or sent yet.
func (s *Session) PrepareResume(ctx context.Context, id string, o ResumeOptions) (*Resume, error) {
	if err := s.Allow(ActionResume); err != nil {
		return nil, err
	}
	s, err := s.rulesNow() // the profile's settings as they are now
	if err != nil {
		return nil, err
	}
	if err := s.allowQuiet(o.IgnoreQuietHours); err != nil {
		return nil, err
	}
	st, err := config.ReadJournal(ctx, s.Paths, id)
	if err != nil {
		return nil, err
	}
	if err := s.mayResume(id, st, o); err != nil {
		return nil, err
	}
	if s, err = s.forJournal(ctx, st); err != nil { // its line's quiet hours too
		return nil, err
	}
	if ref := s.runningRefusal(ctx, id); ref != nil {
		return nil, ref
	}
	if now := s.now(); !o.IgnoreQuietHours {
		if w := s.quietNow(now); w != nil {
			return nil, quietRefusal(w, now, id)
		}
	}
	r := &Resume{ID: id, State: st, Todo: st.ResumeIndexes(o.IncludeUnknown), Unknown: st.SortedIndexes(model.StateUnknown),
		Damage: DamageText(st), opts: o, s: s}
	if r.OptedOut, err = s.resumeOptedOut(ctx, st, r.Todo); err != nil {
		return nil, err
	}
	r.Todo = without(r.Todo, r.OptedOut)
	if o.IncludeUnknown {
		r.Unknown = without(r.Unknown, r.OptedOut) // not sent again: said as opted out
		r.unknownChunks(st)
	}
	for _, ix := range r.Todo {
		if it, ok := st.Item(ix); ok {
			r.Parts += it.Parts
		}
	}
	r.Time = s.resumeTime(st, len(r.Todo))
	if err := s.resumeRepeats(ctx, r, st, r.Todo); err != nil {
		return nil, err
	}
	return r, nil
}

// resumeTime estimates how long n items of send st take, in its chunks, at
// the pace the client keeps now (the profile's rate when it knows none).
func (s *Session) resumeTime(st *model.JournalState, n int) string {
	rate := firstPositive(s.Profile.RatePerMinute, config.DefaultRatePerMinute)
	sum := model.PlanSummary{Pace: model.ProfilePace(rate)}
	if s.Client != nil {
		sum.Pace = paceOf(s.Client.RateStatus(), rate)
	}
	sum.Requests, sum.Duration = sum.Pace.Estimate(n, firstPositive(st.Plan.ChunkSize, s.Profile.ChunkSize))
	return sum.DurationText()
}

// unknownChunks counts the unknown items that go again as they first went
// (AsFirstSent) and lists the chunks that cannot (Apart). A chunk that
// holds a recipient opted out since cannot go as it went without reaching
// them (dispatch.Job.OptOut breaks it the same way): its other unknown
// items go apart; the opted-out one is not sent again.
func (r *Resume) unknownChunks(st *model.JournalState) {
	for _, u := range st.UnknownChunks() {
		if u.Whole && slices.ContainsFunc(u.Indexes, func(i int) bool { return slices.Contains(r.OptedOut, i) }) {
			u.Whole = false
			u.Unknown = without(u.Unknown, r.OptedOut)
			u.Why = fmt.Sprintf("a recipient of chunk %d has been put on the opt-out list since (the chunk cannot go again as it went without sending to them)", u.Chunk)
			if len(u.Unknown) == 0 {
				continue
			}
		}
		if u.Whole {
			r.AsFirstSent += len(u.Unknown)
		} else {
			r.Apart = append(r.Apart, u)
		}
	}
}

// resumeRepeats is the repeat rule for a resume: what it would send (todo,
// of send st) must not be pairs that other sends of the profile accepted,
// may have sent, or are sending, within the repeat window (the same file
// sent again with --allow-repeat after this one stopped, then this one
// resumed, sent them twice). It holds when the resume is prepared and again
// when it starts.
func (s *Session) resumeRepeats(ctx context.Context, r *Resume, st *model.JournalState, todo []int) error {
	if r.opts.AllowRepeat || s.Profile.RepeatWindow <= 0 || len(todo) == 0 {
		return nil
	}
	since := s.now().Add(-s.Profile.RepeatWindow)
	hist, err := config.RecentPairs(ctx, s.Paths, s.repeatScope(), since)
	if err != nil {
		return notSent("checking other sends for repeats", err)
	}
	others := hist[:0]
	for _, h := range hist {
		if h.SendID != r.ID {
			others = append(others, h)
		}
	}
	plan := &model.SendPlan{Sender: st.Plan.Sender}
	for _, ix := range todo {
		if it, ok := st.Item(ix); ok {
			plan.Items = append(plan.Items, model.PlanItem{Index: len(plan.Items), Recipient: it.Recipient, Message: it.Message})
		}
	}
	reps := model.FindRepeats(plan, others, since)
	if len(reps) == 0 {
		return nil
	}
	pairs := 0
	for _, rp := range reps {
		pairs += rp.Pairs
	}
	id := model.SanitizeLine(r.ID)
	ref := &Refusal{Rule: RuleRepeat, SendID: id, Repeat: repeatConflict(reps, false), Count: pairs, Of: len(plan.Items),
		Reason: fmt.Sprintf("%d of the %d messages resuming send %s would send are pairs other sends accepted, or may have sent, within the repeat window; nothing was sent", pairs, len(plan.Items), id)}
	for _, rp := range reps {
		ref.Details = append(ref.Details, "repeat: "+model.SanitizeLine(rp.Problem(s.now(), s.Profile.Zone())))
	}
	return ref
}

// mayResume is the profile and base-URL rule: a send goes on where it was
// made. Resuming a live send on the test profile would leave its real
// recipients without their texts while the journal says accepted; the other
// way round, test texts go out for money.
func (s *Session) mayResume(id string, st *model.JournalState, o ResumeOptions) error {
	if err := s.mayStartByHand(id, st); err != nil {
		return err
	}
	id = model.SanitizeLine(id)
	if p := st.Plan.Profile; p != "" && p != s.Profile.Name {
		return &Refusal{Rule: RuleProfile, SendID: id, Profile: model.SanitizeLine(p),
			Reason: fmt.Sprintf("send %s was made with profile %q, not %q: resume it under profile %s", id, model.SanitizeLine(p), s.Profile.Name, model.SanitizeLine(p))}
	}
	if b := st.Plan.BaseURL; b != "" && b != s.Profile.BaseURL && !o.AnyBaseURL {
		return &Refusal{Rule: RuleBaseURL, SendID: id, BaseURL: model.SanitizeLine(b),
			Reason: fmt.Sprintf("send %s went to %s, but this profile uses %s: resume it where it went", id, model.SanitizeLine(b), model.SanitizeLine(s.Profile.BaseURL))}
	}
	return nil
}

// Start continues the send, deciding under the journal's lock from the
// journal as it is now: another process may have resumed it while the
// question was on screen. gone counts the items that were settled meanwhile
// (never sent again). Nothing left → a RuleNothing refusal, with r.State the
// send as it is now. The repeat rule is checked again under
// config.LockSendStart, as PendingSend.Start does: a send begun while the
// question was on screen may have taken the same pairs (RuleRepeat, nothing
// sent).
func (r *Resume) Start(ctx context.Context, o SendOptions) (x *Send, gone int, err error) {
	s, err := r.s.rulesNow() // quiet hours, the chunk size and the hold as they are now
	if err != nil {
		return nil, 0, err
	}
	if err := s.Allow(ActionResume); err != nil {
		return nil, 0, err
	}
	if err := s.allowQuiet(r.opts.IgnoreQuietHours); err != nil { // the role as it is now
		return nil, 0, err
	}
	if s.Client == nil {
		return nil, 0, ErrNotSignedIn
	}
	ctx, waits := relayWaits(ctx) // the journal's waits on the ledger: the run's events once it runs
	j, fresh, err := config.OpenJournalLocked(ctx, s.Paths, r.ID)
	if err != nil {
		return nil, 0, s.inUseRefusal(r.ID, err) // another run began while the question was on screen
	}
	if s, err = s.forJournal(ctx, fresh); err != nil { // its line's kind as it is now
		_ = j.Close()
		return nil, 0, err
	}
	if now := s.now(); !r.opts.IgnoreQuietHours {
		if w := s.quietNow(now); w != nil { // they began while the question was on screen
			_ = j.Close()
			return nil, 0, quietRefusal(w, now, r.ID)
		}
	}
	job := dispatch.ResumeJob(fresh, r.opts.IncludeUnknown)
	gone = job.Narrow(append(slices.Clone(r.Todo), r.OptedOut...))
	optedOut, err := s.resumeOptedOut(ctx, fresh, job.ToSend())
	if err != nil {
		_ = j.Close()
		return nil, gone, err
	}
	job.OptOut(optedOut) // journaled as opted out by the resume record
	if len(job.ToSend()) == 0 && len(optedOut) == 0 {
		_ = j.Close()
		r.State = fresh
		return nil, gone, &Refusal{Rule: RuleNothing, SendID: model.SanitizeLine(r.ID), Reason: fmt.Sprintf("nothing left to send: every recipient of send %s was accepted, or its outcome is unknown", model.SanitizeLine(r.ID))}
	}
	unlock, err := r.recheckRepeats(ctx, fresh, job.ToSend())
	if err != nil {
		_ = j.Close()
		return nil, gone, err
	}
	defer unlock() // after dispatch.Start: this run holds the journal then
	opts := s.runOptions(o, firstPositive(o.ChunkSize, fresh.Plan.ChunkSize, s.Profile.ChunkSize), j)
	opts.Resume = s.startRecord(r.opts.IgnoreQuietHours, "")
	s.whenOptions(&opts, r.opts.IgnoreQuietHours)
	run, err := dispatch.Start(ctx, s.Client, job, opts)
	if err != nil {
		_ = j.Close()
		return nil, gone, notSent("", err)
	}
	waits.running(run)
	x = &Send{run: run, chunk: opts.ChunkSize, journal: j, source: fresh.Plan.Source, start: StartResume}
	s.track(x)
	if opts.Resume.IgnoreQuietHours {
		s.auditQuiet(ctx, r.ID, true)
	}
	return x, gone, nil
}

// recheckRepeats looks for repeats again as the resume starts, holding
// config.LockSendStart (released by unlock) so that a new send cannot begin
// between this look and the run.
func (r *Resume) recheckRepeats(ctx context.Context, st *model.JournalState, todo []int) (unlock func(), err error) {
	s := r.s
	if r.opts.AllowRepeat || s.Profile.RepeatWindow <= 0 {
		return func() {}, nil
	}
	unlock, err = config.LockSendStart(ctx, s.Paths)
	if err != nil {
		return nil, notSent("", err)
	}
	if err := s.resumeRepeats(ctx, r, st, todo); err != nil {
		unlock()
		return nil, err
	}
	return unlock, nil
}

// ApartCount counts the unknown items that cannot go again as they first
// went (the items of Apart).
func (r *Resume) ApartCount() int {
	n := 0
	for _, u := range r.Apart {
		n += len(u.Unknown)
	}
	return n
}

// IncludesUnknown reports whether the unknown items are among Todo.
func (r *Resume) IncludesUnknown() bool { return r.opts.IncludeUnknown }

// IsNoSuchSend reports whether err says a send id has no journal.
func IsNoSuchSend(err error) bool { return errors.Is(err, config.ErrNoSuchSend) }

// without is list less the indexes in drop, in order.
func without(list, drop []int) []int {
	if len(drop) == 0 {
		return list
	}
	out := make([]int, 0, len(list))
	for _, i := range list {
		if !slices.Contains(drop, i) {
			out = append(out, i)
		}
	}
	return out
}
