package console

import (
	"errors"
	"fmt"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// repeatQuestion is what the send confirmation asks when n pairs repeat
// an earlier send: the console's answer to a repeat refusal (the CLI's is
// --allow-repeat on top of --yes). The answer is the count typed, not the y
// that confirms every send: one y too many, or another operator's over
// smsdesk serve, must not send a campaign again.
func repeatQuestion(n int) string {
	return fmt.Sprintf("Type %d, then enter, to send them again; y alone does not; the default is No.", n)
}

// repeatSafeWay is, for a repeat of a send that left outcomes unknown, the
// way on that never sends a copy, named before the repeat's own answer: R
// in the history resumes what that send never sent and leaves the unknown
// ones alone; its recipients list them ("" for other repeats).
func (c *common) repeatSafeWay(r *app.Refusal) string {
	rc := r.Repeat
	if rc == nil || rc.Running || rc.Unknown == 0 || r.SendID != "" {
		return ""
	}
	k := c.keys
	return fmt.Sprintf("First, the safe way: %s, then %s on send %s sends what it never sent and leaves the unknown ones alone; its rows show which are unknown (the provider's panel says whether they went). Only then:",
		k.History.Help().Key, k.Resume.Help().Key, model.SanitizeLine(rc.SendID))
}

// refusalLine is an error for one line: a refusal's reason (the
// application layer's words, as the CLI gives them) and what to do, in the
// console's words (its keys); any other error as errorLine says it.
func (c *common) refusalLine(err error) string {
	var r *app.Refusal
	if !errors.As(err, &r) {
		return errorLine(err)
	}
	if h := c.refusalHint(r); h != "" {
		return model.SanitizeLine(r.Reason + " → " + h)
	}
	return model.SanitizeLine(r.Reason)
}

// refusalText is a refusal whole, a paragraph each: its reason, its
// details (each earlier send, with who made it) and what to do.
func (c *common) refusalText(r *app.Refusal) []string {
	out := []string{"✗ " + r.Reason, ""}
	out = append(out, r.Details...)
	if h := c.refusalHint(r); h != "" {
		out = append(out, "", "→ "+h)
	}
	return out
}

// refusalHint is what to do about a refusal in the console, worded from the
// refusal's data: the console's keys where it has a way on, the command to
// start it with where it has none.
func (c *common) refusalHint(r *app.Refusal) string {
	k := c.keys
	switch r.Rule {
	case app.RuleSetting:
		return fmt.Sprintf("fix it with smsdesk --profile %s config set … (or config unset it), then %s again", r.Profile, k.Send.Help().Key)
	case app.RuleSettingsChanged:
		return k.Send.Help().Key + " again asks with the settings as they are now"
	case app.RuleNoSender:
		return k.Sender.Help().Key + " chooses a line"
	case app.RulePlan, app.RuleCredit:
		return c.planHint(r)
	case app.RuleRepeat:
		if r.Repeat == nil {
			return ""
		}
		id := model.SanitizeLine(r.Repeat.SendID)
		switch {
		case r.SendID != "": // a resume
			return fmt.Sprintf("check send %s in the history; to resume anyway, from a shell: smsdesk send-pair --resume %s --allow-repeat", id, r.SendID)
		case r.Repeat.Meanwhile:
			return fmt.Sprintf("check send %s in the history (%s); %s again asks about it", id, k.History.Help().Key, k.Send.Help().Key)
		}
	case app.RuleQuietHours:
		return c.quietHint(r)
	case app.RuleOptedOut:
		return "o on a contact takes it off the opt-out list (recorded); smsdesk optout list shows the list"
	case app.RuleProfile:
		return fmt.Sprintf("start the console under that profile: smsdesk --profile %s", r.Profile)
	case app.RuleBaseURL:
		return fmt.Sprintf("start the console against that service: smsdesk --base-url %s", r.BaseURL)
	}
	return ""
}

// planHint is what to do about a plan-wide problem: one the console has a
// way on (another sender line, more credit).
func (c *common) planHint(r *app.Refusal) string {
	k := c.keys
	if len(r.Problems) != 1 {
		return ""
	}
	switch r.Problems[0].Kind {
	case model.ProblemSenderLine:
		return fmt.Sprintf("%s chooses another line, or record the account's lines: smsdesk --profile %s config set senders LINE1,LINE2", k.Sender.Help().Key, r.Profile)
	case model.ProblemCreditParts, model.ProblemCreditRial:
		return "top up the account, then " + k.Send.Help().Key + " again"
	}
	return ""
}

// quietHint is what to do about quiet hours: for a new send, t sends it
// later, the time form opening on their end (issue 40 item 2: a sender was
// offered only "ctrl+s again from then"), ctrl+s from then, or, for an
// admin, the question's yes; for a time asked, a time from their end; for
// a resume, R from then.
func (c *common) quietHint(r *app.Refusal) string {
	k := c.keys
	switch {
	case !r.At.IsZero(): // a time asked for a scheduled send
		return fmt.Sprintf("pick a time from %s", quietEnd(r.Quiet)) // the date too: 08:00 in the form is the next 08:00 from now
	case r.SendID != "": // a resume: no question offers to send through them here
		hint := fmt.Sprintf("%s again from then (a running serve or scheduler continues a held send by itself)", k.Resume.Help().Key)
		if c.session.May(app.ActionIgnoreQuietHours) {
			hint += "; to send through them: smsdesk send-pair --resume " + r.SendID + " --ignore-quiet-hours"
		}
		return hint
	}
	later := c.quietLater(r)
	if c.session.May(app.ActionIgnoreQuietHours) {
		return later + "; yes below sends now (recorded)"
	}
	return later + "; sending through them needs the admin role"
}

// quietLater is the way on from quiet hours for a new send, whatever the
// role: t sends it later, or ctrl+s from their end.
func (c *common) quietLater(r *app.Refusal) string {
	k := c.keys
	later := k.Send.Help().Key + " again from then"
	if r.Quiet != nil {
		later = fmt.Sprintf("%s sends it later (%s filled in), or %s", k.SendAt.Help().Key, r.Quiet.UntilText(c.now()), later)
	}
	return later
}

// quietEnd is when quiet hours end, as the time form reads it: the date
// and the time in their zone ("2026-11-29 08:00").
func quietEnd(q *app.QuietWindow) string { return q.Until.In(q.Zone).Format("2006-01-02 15:04") }
