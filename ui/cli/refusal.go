package cli

import (
	"errors"
	"fmt"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// refused turns the application layer's refusals into exit-2 errors, its
// details on stderr first and the CLI's own hint (naming its flags and
// commands) after; other errors pass unchanged.
func refused(err error) error {
	var r *app.Refusal
	switch {
	case err == nil:
		return nil
	case errors.As(err, &r):
		return &ExitError{Code: ExitUsage, Kind: ruleKinds[r.Rule], Err: err, Hint: refusalHint(r), Details: r.Details, SendID: refusalSend(r)}
	case app.IsNoSuchSend(err):
		return usageError("%w", err)
	}
	return err
}

// ruleKinds are error.code for each refusal of the application layer.
var ruleKinds = map[app.Rule]string{
	app.RuleSetting: "config", app.RuleSettingsChanged: "config", app.RuleNoSender: "usage", app.RuleTemplate: "input", app.RuleRows: "input", app.RuleImportRows: "input",
	app.RulePlan: "usage", app.RuleCredit: "credit", app.RuleRepeat: "repeat", app.RuleProfile: "wrong_profile",
	app.RuleBaseURL: "wrong_profile", app.RuleRunning: "running", app.RuleNothing: "usage", app.RuleRole: "usage",
	app.RuleGroup: "usage", app.RuleDuplicate: "usage", app.RuleContact: "usage",
	app.RuleOnce: "usage", app.RuleOnceID: "usage", app.RuleGroupID: "usage",
	app.RuleQuietHours: "quiet_hours", app.RuleOptedOut: "opted_out",
	app.RuleLine: "usage", app.RuleAt: "usage", app.RuleScheduled: "usage", app.RuleCancelled: "usage", app.RuleNotWaiting: "usage", app.RuleKeyRefused: "auth",
}

// refusalSend is the send a refusal is about, for error.send_id: the
// earlier send a repeat conflicts with (the one to look at first), else
// the send a resume would continue or a once-only id was used by.
func refusalSend(r *app.Refusal) string {
	if r.Repeat != nil && r.Repeat.SendID != "" {
		return model.SanitizeLine(r.Repeat.SendID)
	}
	return r.SendID
}

// refusalHint is what to do about a refusal, on the command line: the
// flags and commands that answer it, worded from the refusal's data.
func refusalHint(r *app.Refusal) string {
	if hint, ok := refusalHints[r.Rule]; ok {
		return hint(r)
	}
	return ""
}

// refusalHints word each rule's hint; a rule not here has none.
var refusalHints = map[app.Rule]func(r *app.Refusal) string{
	app.RuleSetting: func(r *app.Refusal) string {
		return fmt.Sprintf("fix it with smsdesk --profile %s config set …, or config unset it", r.Profile)
	},
	app.RuleSettingsChanged: func(*app.Refusal) string { return "run it again: its question shows the settings as they are now" },
	app.RuleNoSender: func(r *app.Refusal) string {
		return fmt.Sprintf("pass --sender LINE, or set one: smsdesk --profile %s config set sender LINE", r.Profile)
	},
	app.RuleImportRows: func(*app.Refusal) string { return "fix them, or pass --skip-invalid to import the others" },
	app.RulePlan:       planHint,
	app.RuleCredit:     planHint,
	app.RuleRepeat:     repeatHint,
	app.RuleProfile: func(r *app.Refusal) string {
		return fmt.Sprintf("smsdesk --profile %s send-pair --resume %s (the console: smsdesk --profile %s)", r.Profile, r.SendID, r.Profile)
	},
	app.RuleBaseURL: func(r *app.Refusal) string {
		return fmt.Sprintf("smsdesk --base-url %s send-pair --resume %s (or --base-url with the other URL to resume here on purpose)", r.BaseURL, r.SendID)
	},
	app.RuleDuplicate: func(r *app.Refusal) string {
		return fmt.Sprintf("the service cannot list groups, so a second %q would be made without a word: to create it anyway, pass --allow-duplicate; to use group %s, see smsdesk contacts list %s",
			r.Name, r.Known.ID, r.Known.ID)
	},
	app.RuleOnce: func(r *app.Refusal) string {
		return fmt.Sprintf("the same --once ID with other pairs is a mistake: give this send its own id; the earlier one: smsdesk history show %s", r.SendID)
	},
	app.RuleQuietHours: quietHint,
	app.RuleOptedOut: func(*app.Refusal) string {
		return "smsdesk optout list shows the list; smsdesk optout remove NUMBER takes a number off it (recorded)"
	},
	app.RuleAt: func(r *app.Refusal) string {
		example := "2026-11-26 08:00"
		if !r.At.IsZero() {
			example = r.At.Format("2006-01-02 15:04")
		}
		return fmt.Sprintf("write --at like 08:00 (the next 08:00), %q, an RFC 3339 time, or +30m", example)
	},
	app.RuleScheduled: func(r *app.Refusal) string {
		return fmt.Sprintf("to send it now instead: smsdesk history cancel %s, then send the file again", r.SendID)
	},
	app.RuleCancelled:  func(*app.Refusal) string { return "send-pair the file again (with --at to schedule it)" },
	app.RuleNotWaiting: notWaitingHint,
	app.RuleRole: func(r *app.Refusal) string {
		return fmt.Sprintf("ask an admin of this server to change your role (smsdesk operators role %s %s)", r.Operator, r.Needs)
	},
}

// planHint is what to do about one plan-wide problem (none for several).
func planHint(r *app.Refusal) string {
	if len(r.Problems) == 1 {
		return problemHint(r.Problems[0], r.Profile)
	}
	return ""
}

// problemHint says what to do about a plan-wide problem.
func problemHint(p model.Problem, profile string) string {
	switch p.Kind {
	case model.ProblemSenderLine:
		return fmt.Sprintf("pass --sender with one of them, or record the account's lines: smsdesk --profile %s config set senders LINE1,LINE2", profile)
	case model.ProblemNoSender:
		return fmt.Sprintf("pass --sender LINE, or set one: smsdesk --profile %s config set sender LINE", profile)
	case model.ProblemCreditParts, model.ProblemCreditRial:
		return "top up the account, then run the same command again"
	}
	return ""
}

// repeatHint names the earlier send to check and the flags that go on: a
// running send is let end (its rest resumes), a send with unknown outcomes
// is checked first, and --allow-repeat sends the pairs anyway.
func repeatHint(r *app.Refusal) string {
	c := r.Repeat
	if c == nil {
		return "pass --allow-repeat to send them again, or set repeat_window"
	}
	id := model.SanitizeLine(c.SendID)
	switch {
	case r.Resent != "": // a resend of failures resent already
		return fmt.Sprintf("send %s resent them already (smsdesk history show %s); what failed there goes with smsdesk send-pair --resend-failed %s; to send these pairs again anyway: --allow-repeat",
			r.Resent, r.Resent, r.Resent)
	case r.SendID != "": // a resume
		return fmt.Sprintf("check send %s (smsdesk history show %s); to resume anyway: smsdesk send-pair --resume %s --allow-repeat", id, id, r.SendID)
	case c.Meanwhile:
		return fmt.Sprintf("check send %s (smsdesk history show %s); to send these pairs anyway, run again with --allow-repeat", id, id)
	case c.Scheduled:
		return fmt.Sprintf("send %s will send them at its time (smsdesk history show %s); to send these now instead: smsdesk history cancel %s, then run again; to send them twice: --allow-repeat", id, id, id)
	case c.Running:
		return fmt.Sprintf("let send %s end (smsdesk history show %s); what it leaves not sent goes with smsdesk send-pair --resume %s; to send these pairs anyway: --allow-repeat", id, id, id)
	case c.Unknown > 0:
		// The safe way first: finish what that send never sent, which
		// never touches an unknown one; then how to look at the unknown
		// ones; only then the ways that may send a copy.
		return fmt.Sprintf("first, finish what send %s never sent: smsdesk send-pair --resume %s (its unknown ones stay as they are); "+
			"check the unknown ones: smsdesk history show %s lists them, and the provider's panel says whether they went; "+
			"only then, on purpose: smsdesk send-pair --resume %s --include-unknown sends them again (as they first went, under the same Idempotency-Key), "+
			"or --allow-repeat sends these pairs anyway", id, id, id, id)
	}
	return "pass --allow-repeat to send them again, or set repeat_window"
}

// quietHint says how a send refused for quiet hours goes on: later (run it
// again from the window's end), or now on purpose.
func quietHint(r *app.Refusal) string {
	if !r.At.IsZero() { // a time asked for a scheduled send
		// The date too: --at 08:00 is the next 08:00 from now, which is not
		// the end of the window the asked time is in when that is tomorrow
		// (at 03:00, --at 22:00 is refused until tomorrow 08:00; --at 08:00
		// would schedule it for today, earlier than asked).
		from := r.Quiet.Until.In(r.Quiet.Zone).Format("2006-01-02 15:04")
		return fmt.Sprintf("pick a time from %s: %s %q; to schedule it inside them anyway: --ignore-quiet-hours (recorded in the journal and the audit trail)",
			from, atFlag, from)
	}
	again := "run the same command again from then (or schedule it: " + atFlag + " " + r.Quiet.Until.In(r.Quiet.Zone).Format("15:04") + ")"
	if r.SendID != "" { // a resume: --resume takes no --at
		again = "smsdesk send-pair --resume " + r.SendID + " from then"
	}
	return again + "; to send now anyway: --ignore-quiet-hours (recorded in the journal and the audit trail)"
}

// atFlag is send-pair's flag that schedules a send (issue 30): the
// quiet-hours hint names it.
const atFlag = "--at"
