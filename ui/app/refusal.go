package app

import (
	"strings"
	"time"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// Rule is a refusal's kind: the rule that refused, so that a face can react
// to it (the console asks about repeats, the CLI picks its error code) and
// word its own hint from the refusal's data, while the reason's words come
// from here.
type Rule string

// The rules.
const (
	RuleSetting    Rule = "setting"     // a profile setting that does not read (Profile)
	RuleNoSender   Rule = "no_sender"   // no sender line given or set (Profile)
	RuleTemplate   Rule = "template"    // a template that does not parse, or a row leaves a variable empty
	RuleRows       Rule = "rows"        // rows that cannot be sent: bad, foreign or non-mobile numbers, empty messages… (Count of Of, Source)
	RuleImportRows Rule = "import_rows" // rows of a contacts file that cannot be imported (Count, Source)
	RulePlan       Rule = "plan"        // plan-wide: no rows, a sender line the profile does not list (Problems, Profile)
	RuleCredit     Rule = "credit"      // the plan needs more credit than the account has (Problems)
	RuleRepeat     Rule = "repeat"      // pairs an earlier send accepted, or may have sent, within the repeat window (Repeat, Count of Of)
	RuleProfile    Rule = "profile"     // a resume under another profile than the send's (SendID, Profile: the send's)
	RuleBaseURL    Rule = "base_url"    // a resume against another service than the send's (SendID, BaseURL: the send's)
	RuleRunning    Rule = "running"     // a resume of a send another run is still working on (SendID, Holder)
	RuleNothing    Rule = "nothing"     // a resume with nothing left to send (SendID)
	RuleGroup      Rule = "group"       // a new group's name or description the service would refuse
	RuleDuplicate  Rule = "duplicate"   // a new group's name a known group has (Known, Name, Profile)
	RuleContact    Rule = "contact"     // a contact's number or name the service or the profile would refuse
	RuleOnce       Rule = "once"        // a send was made already with the request's once-only id (Once, SendID)
	RuleQuietHours Rule = "quiet_hours" // a send or resume that would start inside quiet hours (Quiet; SendID for a resume)
	RuleOptedOut   Rule = "opted_out"   // every recipient the send would go to is on the opt-out list (Count)
)

// Refusal is why nothing was sent (or done): its kind (Rule), the reason in
// plain words, one line a row or problem, and the data a face words its own
// hint from (the CLI names its flags, the console its keys). Reason and
// Details name no face's flags, keys or commands. Only the fields its rule
// uses are set.
type Refusal struct {
	Rule    Rule
	Reason  string   // one line, for people
	Details []string // one line a row, problem or repeat (already sanitised)

	// Profile is the session's profile (RuleSetting, RuleNoSender, RulePlan,
	// RuleCredit), or the send's own (RuleProfile): sanitised.
	Profile string
	// SendID is the send a resume would continue (RuleProfile, RuleBaseURL,
	// RuleRunning, RuleNothing, and a resume's RuleRepeat): sanitised.
	SendID string
	// BaseURL is the service the send went to (RuleBaseURL): sanitised.
	BaseURL string
	// Source names where the rows came from (RuleRows, RuleImportRows).
	Source string
	// Count of Of: rows that cannot be sent of the plan's (RuleRows), rows
	// that cannot be imported (RuleImportRows, Of the file's), pairs that
	// repeat of those that would go (RuleRepeat).
	Count, Of int
	// Problems are the plan-wide problems (RulePlan, RuleCredit).
	Problems []model.Problem
	// Repeat is the earlier sends that have the pairs (RuleRepeat).
	Repeat *RepeatConflict
	// Resent is, for a resend of a send's failures refused as a repeat,
	// an earlier resend of the same send that took them (RuleRepeat):
	// what failed there is resent from it.
	Resent string
	// Known is the known group that has the name asked for, and Name that
	// name (RuleDuplicate).
	Known *config.KnownGroup
	Name  string
	// Once is the send made with the request's once-only id (RuleOnce).
	Once *OnceConflict
	// At is a scheduled send's time (RuleScheduled), or for a time that
	// cannot be a send's (RuleAt) one that can, for the hint's example: the
	// next whole hour, in the profile's timezone. Status is the status of a
	// send that is not waiting for its time (RuleNotWaiting).
	At     time.Time
	Status string

	// Action and Needs are what the operator tried and the role it needs
	// (RuleRole), and Operator who they are.
	Action   Action
	Needs    model.Role
	Operator string
	// Quiet is the window the send would start in and when sending may
	// start (RuleQuietHours).
	Quiet *QuietWindow
	// Holder is the run still working on the send (RuleRunning), and when
	// its lease ends.
	Holder *RunHolder
}

// QuietWindow is the profile's quiet hours, or a line's (Why), as a
// refusal or a warning names them: the window, its zone and when sending
// may start again.
type QuietWindow struct {
	Hours model.QuietHours
	Zone  *time.Location
	// Why names where the window comes from when it is not the profile's
	// quiet_hours: "advertising line 3000 to MCI numbers" (model.QuietRule).
	Why string
	// Start is when the window begins (now or ahead), Until when it ends:
	// when sending may start.
	Start, Until time.Time
}

// Text is the window for people: "quiet hours 22:00–08:00 Asia/Tehran",
// or "advertising line 3000 to MCI numbers: quiet hours 22:00–07:00
// Asia/Tehran".
func (q *QuietWindow) Text() string {
	return model.QuietRule{Hours: q.Hours, Zone: q.Zone, Why: q.Why}.Text()
}

// UntilText is when sending may start, for people, in the window's zone,
// seen from now: "08:00", "tomorrow 08:00".
func (q *QuietWindow) UntilText(now time.Time) string { return model.ClockText(q.Until, now, q.Zone) }

// StartText is when the window begins, for people: "22:00".
func (q *QuietWindow) StartText(now time.Time) string { return model.ClockText(q.Start, now, q.Zone) }

// RepeatConflict is what a repeat refusal is about: the earlier sends that
// accepted, may have sent, or are sending the pairs.
type RepeatConflict struct {
	// SendID is the send to look at first: one still running, else one
	// that left outcomes unknown, else the newest.
	SendID string
	// Running: SendID is still running (here or in another smsdesk).
	Running bool
	// Unknown counts the pairs of unknown outcome in sends that are not
	// running: they may have gone.
	Unknown int
	// Meanwhile: the sends began while this one was being checked (it is
	// refused as it starts).
	Meanwhile bool
	// Scheduled: SendID is a scheduled send that has not started; its
	// pairs go at its time (Sends[i].At).
	Scheduled bool
	// Sends are every earlier send with the pairs, newest first.
	Sends []model.Repeat
}

// OnceConflict is the send made already with a once-only id (RuleOnce):
// the same send again when SamePairs (a re-run: report it, send nothing),
// a mistake when not.
type OnceConflict struct {
	ID     string // the once-only id (sanitised)
	SendID string // the send made with it
	// SamePairs: this plan sends what that send sent (model.PairsDigest).
	SamePairs bool
	// Running: that send is still running (here or in another smsdesk).
	Running bool
	// Count, Source, Time, Profile and Operator are that send's: its
	// items, where its rows came from, when, and who made it.
	Count             int
	Source            string
	Time              time.Time
	Profile, Operator string
}

func (r *Refusal) Error() string { return r.Reason }

// Text is the refusal's details, then its reason, one per line (a face adds
// its hint).
func (r *Refusal) Text() string {
	var b strings.Builder
	for _, d := range r.Details {
		b.WriteString(d + "\n")
	}
	b.WriteString(r.Reason)
	return b.String()
}

// repeatConflict names the send to look at first among reps (newest
// first): one still running, else one that left outcomes unknown, else the
// newest.
func repeatConflict(reps []model.Repeat, meanwhile bool) *RepeatConflict {
	c := &RepeatConflict{Sends: reps, Meanwhile: meanwhile}
	if len(reps) > 0 {
		c.SendID = reps[0].SendID
	}
	unknownFrom, scheduled := "", ""
	for _, rp := range reps {
		switch {
		case rp.Running && !c.Running:
			c.Running, c.SendID = true, rp.SendID
		case rp.Scheduled: // its pairs have not gone: they will
			if scheduled == "" {
				scheduled = rp.SendID
			}
			continue
		case !rp.Running && rp.Unknown > 0 && unknownFrom == "":
			unknownFrom = rp.SendID
		}
		if !rp.Running {
			c.Unknown += rp.Unknown
		}
	}
	switch {
	case c.Running:
	case unknownFrom != "":
		c.SendID = unknownFrom
	case scheduled != "" && c.SendID == scheduled:
		c.Scheduled = true
	}
	return c
}
