package app

import "strings"

// Rule names the send rule behind a refusal, so that a face can react to it
// (the console asks about repeats, the CLI picks its exit code) while the
// words come from here.
type Rule string

// The rules.
const (
	RuleSetting  Rule = "setting"   // a profile setting that does not read
	RuleNoSender Rule = "no_sender" // no sender line given or set
	RuleTemplate Rule = "template"  // a template that does not parse, or a row leaves a variable empty
	RuleRows     Rule = "rows"      // rows that cannot be sent: bad, foreign or non-mobile numbers, empty messages…
	RulePlan     Rule = "plan"      // plan-wide: no rows, a sender line the profile does not list, credit short
	RuleCredit   Rule = "credit"    // the plan needs more credit than the account has
	RuleRepeat   Rule = "repeat"    // pairs an earlier send accepted, or may have sent, within the repeat window
	RuleProfile  Rule = "profile"   // a resume under another profile than the send's
	RuleBaseURL  Rule = "base_url"  // a resume against another service than the send's
	RuleRunning  Rule = "running"   // a resume of a send another run is still working on
	RuleNothing  Rule = "nothing"   // a resume with nothing left to send
)

// Refusal is why nothing was sent, for people: Reason is one line, Details
// one line a row or problem (already sanitised), Hint what to do next.
type Refusal struct {
	Rule    Rule
	Reason  string
	Details []string
	Hint    string
}

func (r *Refusal) Error() string { return r.Reason }

// Text is the refusal whole: its details, the reason and the hint, one per
// line.
func (r *Refusal) Text() string {
	var b strings.Builder
	for _, d := range r.Details {
		b.WriteString(d + "\n")
	}
	b.WriteString(r.Reason)
	if r.Hint != "" {
		b.WriteString("\n  → " + r.Hint)
	}
	return b.String()
}
