package app

import (
	"context"
	"fmt"
	"time"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// The send rules, in one place: what a new send's plan is checked with when
// it is prepared (check), and what is looked at again as it starts
// (recheck). A new rule is a new kind of model.Problem or Refusal added
// here; every face, and every way a send starts, then gets it.

// check applies the send rules to p's plan and facts: rows that cannot be
// sent, plan-wide problems, and repeats unless the operator allowed them.
// It fills p.Verdict and p.Refusal (nil when the send may go).
func (s *Session) check(ctx context.Context, p *PendingSend) {
	v := model.CheckSend(p.Plan, p.Facts)
	s.nameOperators(ctx, v.Repeats)
	p.Verdict = v
	p.Refusal = refusal(p)
}

// recheckWhen is what the rules of issue 29 look at again as a send starts:
// quiet hours may have begun while the question was on screen (refused,
// nothing sent), and numbers may have been put on the opt-out list (they
// are left out, journaled as opted out).
func (s *Session) recheckWhen(ctx context.Context, p *PendingSend) error {
	if r := quietRule(p, s.now()); r != nil {
		return r
	}
	plan, optedOut, err := s.markOptedOut(ctx, p.Plan)
	if err != nil {
		return err
	}
	p.Plan, p.OptedOut = plan, optedOut
	if r := allOptedOut(p.Plan); r != nil {
		return r
	}
	return nil
}

// quietRule refuses p when it would start inside quiet hours, seen from
// now: now itself, or a scheduled send's time (naming when sending may
// start); nil when it would not, or the operator ignores them.
func quietRule(p *PendingSend, now time.Time) *Refusal {
	if p.IgnoreQuietHours {
		return nil
	}
	w := p.s.quietNow(p.when(now))
	switch {
	case w == nil:
		return nil
	case !p.At.IsZero():
		return atQuietRefusal(w, p.At, now)
	}
	return quietRefusal(w, now, "")
}

// refusal is why p may not go as asked, or nil.
func refusal(p *PendingSend) *Refusal {
	plan, v := p.Plan, &p.Verdict
	if len(v.Bad) > 0 {
		return rowsRefusal(plan, v.Bad, p.Source)
	}
	switch len(v.Problems) {
	case 0:
	case 1:
		pr := v.Problems[0]
		rule := RulePlan
		if pr.IsCredit() {
			rule = RuleCredit
		}
		return &Refusal{Rule: rule, Reason: model.SanitizeLine(pr.Text) + "; nothing was sent", Problems: v.Problems, Profile: model.SanitizeLine(p.Facts.Profile)}
	default:
		r := &Refusal{Rule: RulePlan, Reason: fmt.Sprintf("%d problems above; nothing was sent", len(v.Problems)), Problems: v.Problems,
			Profile: model.SanitizeLine(p.Facts.Profile)}
		for _, pr := range v.Problems {
			r.Details = append(r.Details, model.SanitizeLine(pr.Text))
		}
		return r
	}
	if r := quietRule(p, p.Facts.Now); r != nil {
		return r
	}
	if r := allOptedOut(plan); r != nil {
		return r
	}
	if len(v.Repeats) == 0 || p.AllowRepeat {
		return nil
	}
	return repeatRefusal(plan, v, p.Facts.Now, p.s.Profile.Zone())
}

// repeatRefusal says which earlier sends took the plan's pairs: accepted,
// of unknown outcome, or in a send still running.
func repeatRefusal(plan *model.SendPlan, v *model.Verdict, now time.Time, loc *time.Location) *Refusal {
	c := repeatConflict(v.Repeats, false)
	n := v.RepeatedPairs()
	r := &Refusal{Rule: RuleRepeat, Repeat: c, Count: n, Of: len(plan.Items),
		Reason: fmt.Sprintf("%d of %d pairs were already accepted within the repeat window; nothing was sent", n, len(plan.Items))}
	// Pairs whose outcome is unknown may have gone: a re-run (a cron job
	// retrying on failure) must not send them again without a word. Those
	// of a send still running are in flight: the way on is to let it end.
	switch {
	case c.Running:
		r.Reason = fmt.Sprintf("%d of %d pairs are in send %s, which is still running (here or in another smsdesk), or were accepted within the repeat window; nothing was sent",
			n, len(plan.Items), c.SendID)
	case c.Scheduled:
		r.Reason = fmt.Sprintf("%d of %d pairs are in send %s, which is scheduled and will send them at its time, or were accepted within the repeat window; nothing was sent",
			n, len(plan.Items), c.SendID)
	case c.Unknown > 0:
		r.Reason = fmt.Sprintf("%d of %d pairs were already accepted or may already have gone (%d with an unknown outcome) within the repeat window; nothing was sent",
			n, len(plan.Items), c.Unknown)
	}
	for _, rp := range v.Repeats {
		r.Details = append(r.Details, "repeat: "+model.SanitizeLine(rp.Problem(now, loc)))
	}
	return r
}

// recheck is what a pending send looks at again as it starts, holding
// config.LockSendStart (see PendingSend.Start): a send begun since its facts
// were gathered that took any of its pairs. Two runs started together
// (overlapping cron jobs, a second terminal that waited at its question, two
// operators of one server) both passed the check, and would both send. The
// repeats the operator agreed to were named at the check; a send begun since
// was not, and refuses whatever the operator said then.
func (s *Session) recheck(ctx context.Context, p *PendingSend) error {
	checked := &p.Facts
	if checked.Since.IsZero() { // no repeat window
		return nil
	}
	hist, err := config.RecentPairs(ctx, s.Paths, s.repeatScope(), checked.Since)
	if err != nil {
		return notSent("checking earlier sends for repeats", err)
	}
	seen := make(map[string]bool, len(checked.History))
	for _, h := range checked.History {
		seen[h.SendID] = true
	}
	var fresh []model.SentPairs
	for _, h := range hist {
		if !seen[h.SendID] {
			fresh = append(fresh, h)
		}
	}
	reps := model.FindRepeats(p.Plan, fresh, checked.Since)
	if len(reps) == 0 {
		return nil
	}
	s.nameOperators(ctx, reps)
	pairs := 0
	for _, rp := range reps {
		pairs += rp.Pairs
	}
	c := repeatConflict(reps, true)
	began := "another smsdesk" // a run elsewhere on this host
	for _, rp := range reps {
		if rp.SendID == c.SendID && rp.Operator != "" {
			began = model.SanitizeLine(rp.Operator) // an operator of this server
		}
	}
	r := &Refusal{Rule: RuleRepeat, Repeat: c, Count: pairs, Of: len(p.Plan.Items),
		Reason: fmt.Sprintf("%d of %d pairs are in send %s, which %s began while this one was being checked; nothing was sent", pairs, len(p.Plan.Items), c.SendID, began)}
	now := s.now()
	for _, rp := range reps {
		r.Details = append(r.Details, "repeat: "+model.SanitizeLine(rp.Problem(now, s.Profile.Zone())))
	}
	return r
}
