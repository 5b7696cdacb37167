package app

// Scheduled sends (send-pair --at, the console's "at …"): a new send is
// planned, checked and confirmed now, then journaled with its time and the
// operator who scheduled it; nothing is sent. A runner (smsdesk serve, or
// smsdesk scheduler) starts it at its time, checked again (runner.go);
// until then an operator may cancel it. Both take the journal's lock, the
// one that keeps two resumes apart: a send is started once or cancelled,
// never both.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/smsdesk/smsdesk/client/dispatch"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// The rules of scheduled sends.
const (
	RuleAt         Rule = "at"          // a time that does not read, is past, or is too far ahead (Reason)
	RuleScheduled  Rule = "scheduled"   // a resume of a send that waits for its time (SendID, At)
	RuleCancelled  Rule = "cancelled"   // a resume of a send cancelled or missed before it started (SendID)
	RuleNotWaiting Rule = "not_waiting" // a cancel of a send that is not waiting for its time (SendID, Status)
	RuleKeyRefused Rule = "key"         // the service refused the key as a scheduled send was to start
)

// when is the time the send is to start: At for a scheduled one, else now.
func (r SendRequest) when(now time.Time) time.Time {
	if !r.At.IsZero() {
		return r.At
	}
	return now
}

// ScheduleAt reads when a send should start (send-pair --at, the
// console's "at …"): model.ParseAt in the profile's timezone, then
// model.CheckAt from now. A time that does not read, is not ahead, or is
// more than 35 days ahead is refused (RuleAt); one inside the profile's
// quiet hours too (RuleQuietHours, naming when sending may start), unless
// ignoreQuiet (--ignore-quiet-hours: the rules check the operator's role
// when the send is prepared).
func (s *Session) ScheduleAt(text string, ignoreQuiet bool) (time.Time, error) {
	return s.ScheduleAtIn(s.Profile, text, ignoreQuiet)
}

// ScheduleAtIn is ScheduleAt under rules, the profile's rules as a face
// last read them (ReadRules): its timezone and quiet hours as they are
// now, not as the session opened with them (a served console's time form
// refused "+20m" against the quiet hours serve started with). It reads no
// file: a face calls it on its UI loop.
func (s *Session) ScheduleAtIn(rules Profile, text string, ignoreQuiet bool) (time.Time, error) {
	now, loc := s.now(), rules.Zone()
	at, err := model.ParseAt(text, now, loc)
	at = at.Truncate(time.Second) // +30m from 10:00:12.345 is 10:30:12
	if err == nil {
		err = model.CheckAt(at, now, loc)
	}
	if err != nil {
		return time.Time{}, atRefusal(err, now, loc)
	}
	if w := rules.quietNow(at); w != nil && !ignoreQuiet {
		return time.Time{}, atQuietRefusal(w, at, now)
	}
	return at, nil
}

// atRefusal refuses a time that cannot be a send's (RuleAt), with an
// example that can: the next whole hour in loc, dated as there (a hint's
// fixed "2026-11-26" was itself past, or far ahead).
func atRefusal(err error, now time.Time, loc *time.Location) *Refusal {
	l := now.In(loc) // the hour there: Tehran's +03:30 is not UTC's hour
	example := time.Date(l.Year(), l.Month(), l.Day(), l.Hour()+1, 0, 0, 0, loc)
	return &Refusal{Rule: RuleAt, At: example, Reason: "--at " + model.SanitizeLine(err.Error()) + "; nothing was scheduled"}
}

// atQuietRefusal refuses a time inside quiet hours for a scheduled send,
// naming when sending may start (RuleQuietHours, At the time asked).
func atQuietRefusal(w *QuietWindow, at, now time.Time) *Refusal {
	return &Refusal{Rule: RuleQuietHours, Quiet: w, At: at,
		Reason: fmt.Sprintf("%s is inside %s; sending may start at %s; nothing was scheduled",
			model.AtText(at, w.Zone), w.Text(), model.ClockText(w.Until, now, w.Zone))}
}

// Scheduled is a send journaled to start at its time.
type Scheduled struct {
	ID string
	At time.Time
}

// Schedule keeps p to be started at p.At by a runner, once: under
// config.LockSendStart it looks again at what may have changed since p was
// prepared, as Start does (sends begun, or scheduled, meanwhile that took
// its pairs; opt-outs; quiet hours at its time), then journals the plan
// with its time and the operator; nothing is sent. The journal is dated
// its time (JournalFile.CloseScheduled), so that the repeat check counts
// its pairs as going then.
func (p *PendingSend) Schedule(ctx context.Context) (*Scheduled, error) {
	s := p.s
	if p.At.IsZero() {
		return nil, errors.New("no time to schedule the send at; nothing was scheduled")
	}
	if err := model.CheckAt(p.At, s.now(), s.Profile.Zone()); err != nil { // the question may have waited past it
		return nil, atRefusal(err, s.now(), s.Profile.Zone())
	}
	jn, unlock, err := p.journal(ctx, SendOptions{}, "nothing was scheduled")
	if err != nil {
		return nil, err
	}
	defer unlock() // after the journal holds the plan
	if err := dispatch.Schedule(jn.job, jn.opts); err != nil {
		jn.discard()
		return nil, fmt.Errorf("%w; nothing was scheduled", err)
	}
	if err := jn.j.CloseScheduled(p.At); err != nil {
		return nil, err
	}
	p.started = true
	if jn.opts.Plan.IgnoreQuietHours {
		s.auditQuiet(ctx, jn.job.ID, false)
	}
	return &Scheduled{ID: jn.job.ID, At: p.At}, nil
}

// CancelScheduled cancels scheduled send id before its time (sender role
// on a served console), recorded in its journal with the operator and in
// the audit trail. A send that is not waiting is not cancelled
// (RuleNotWaiting, with its status): one that has started, or is being
// started right now, stops only as any send does, and what it leaves goes
// on with a resume.
func (s *Session) CancelScheduled(ctx context.Context, id string) (err error) {
	if err := s.Allow(ActionSend); err != nil {
		return err
	}
	sid := model.SanitizeLine(id)
	j, st, err := config.OpenJournalLocked(ctx, s.Paths, id)
	if errors.Is(err, config.ErrJournalInUse) {
		return &Refusal{Rule: RuleNotWaiting, SendID: sid, Status: "running",
			Reason: fmt.Sprintf("send %s is running (it started, here or in another smsdesk): it was not cancelled", sid)}
	}
	if err != nil {
		return err
	}
	defer closeWritten(j, &err)
	if !st.Waiting() {
		status := SendStatus(st, false)
		r := &Refusal{Rule: RuleNotWaiting, SendID: sid, Status: status,
			Reason: fmt.Sprintf("send %s is %s, not waiting for its time: it was not cancelled", sid, status)}
		switch {
		case !st.Scheduled():
			r.Reason = fmt.Sprintf("send %s was not scheduled (it is %s): it was not cancelled", sid, status)
		case st.Cancel != nil:
			r.Reason = fmt.Sprintf("send %s was %s already; nothing was sent", sid, st.Cancel.Cause)
		case st.Runs > 0:
			r.Reason = fmt.Sprintf("send %s has started (it is %s): it was not cancelled", sid, status)
		}
		return r
	}
	rec := &model.JournalCancel{Time: s.now(), Cause: model.CancelCancelled, Operator: s.operatorRecord()}
	if err := j.Append(rec); err != nil {
		return err
	}
	if err := j.Sync(); err != nil {
		return err
	}
	note := "send " + id + " scheduled for " + model.AtText(st.Plan.ScheduledFor, s.Profile.Zone())
	ctx, done := afterStop(ctx) // cancelled: its id is freed, and audited
	defer done()
	if freed := s.freeOnce(ctx, id, st); len(freed) > 0 {
		note += fmt.Sprintf("; once-only id %q free again", freed[0])
	}
	s.auditAlways(ctx, config.AuditRecord{Action: "cancel_scheduled", Note: note})
	return nil
}

// freeOnce takes back the once-only id of cancelled send id: nothing of it
// went, and the operator said no on purpose, so the id may name the send
// made instead. (Kept, a re-run with it said "unfinished: --resume", and
// a cancelled send is not resumed; the way the repeat refusal names to
// send a scheduled send's pairs now, cancel it and run again, was closed
// to a cron line's --once.) A re-run of the line that scheduled it
// schedules it again: the cancel stops this send, not the job. An id it
// cannot free stays used: the send is cancelled all the same.
func (s *Session) freeOnce(ctx context.Context, id string, st *model.JournalState) []string {
	account := st.Plan.Account
	if account == "" {
		account = s.accountID()
	}
	if account == "" {
		return nil
	}
	freed, _ := config.FreeOnceSend(ctx, s.Paths, account, id)
	return freed
}

// auditAlways records an action with the operator, at a local terminal too
// (the machine's owner cancelling a send another operator scheduled is
// worth a line as much as the other way round).
func (s *Session) auditAlways(ctx context.Context, r config.AuditRecord) {
	r.Time = s.now().UTC()
	if s.Operator != nil {
		op := *s.Operator
		r.Operator = &op
	}
	s.appendAudit(ctx, r) // the journal has it too
}

// mayStartByHand refuses a resume of a scheduled send that is waiting for
// its time (a runner starts it then; cancel it first to send it now
// another way) or that was cancelled (the operator's no stands; a missed
// one may be resumed: nothing went, and the resume asks first).
func (s *Session) mayStartByHand(id string, st *model.JournalState) error {
	sid := model.SanitizeLine(id)
	switch {
	case st.Waiting():
		return &Refusal{Rule: RuleScheduled, SendID: sid, At: st.Plan.ScheduledFor,
			Reason: fmt.Sprintf("send %s is scheduled for %s (%s): a runner starts it then; nothing was sent", sid,
				model.AtText(st.Plan.ScheduledFor, s.Profile.Zone()), model.DueText(st.Plan.ScheduledFor, s.now()))}
	case st.Cancelled():
		by := ""
		if st.Cancel.Operator != nil {
			by = " by " + model.SanitizeLine(st.Cancel.Operator.Name)
		}
		return &Refusal{Rule: RuleCancelled, SendID: sid,
			Reason: fmt.Sprintf("send %s was cancelled%s before its time; nothing was sent, and a cancelled send is not resumed: plan it again", sid, by)}
	}
	return nil
}
