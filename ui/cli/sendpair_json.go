package cli

import (
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// sendPairJSON is send-pair's --json on stdout, whatever the outcome: a dry
// run, a refused plan, a send, a resume. Every key is always there; what does
// not apply is null or [] (README "JSON output").
type sendPairJSON struct {
	ID           *string            `json:"id"` // the send's id; null when nothing was journaled
	DryRun       bool               `json:"dry_run"`
	Sender       string             `json:"sender"`
	Source       string             `json:"source"`
	Counts       *model.StateCounts `json:"counts"` // per status, always: a plan's recipients are all not_sent (or opted_out)
	Totals       *planTotalsJSON    `json:"totals"` // the plan in figures (a new send's as planned); null for a resume
	Items        []planItemJSON     `json:"items"`  // the plan, one per recipient (dry run, refusal)
	Results      []sendResultJSON   `json:"results"`
	Problems     []planProblemJSON  `json:"problems"`      // rows that cannot be sent
	PlanProblems []string           `json:"plan_problems"` // plan-wide: sender, credit
	Repeats      []string           `json:"repeats"`
	Interrupted  bool               `json:"interrupted"` // stopped by a signal (ctrl+c, SIGTERM, a hang-up) before every item went
	Stopped      *string            `json:"stopped"`     // the refusal (or the unknowns) that stopped the send
	StopCause    *string            `json:"stop_cause"`  // credit, key, sender, account, unreachable, unknown
	Resume       *string            `json:"resume"`      // the command that continues the send
	Once         *onceJSON          `json:"once"`        // --once: the id, and the send made with it before; null without --once
	ResendOf     *string            `json:"resend_of"`   // --resend-failed: the send whose failed messages this one sends again; else null
	Rules        *rulesJSON         `json:"rules"`       // the rules of the send's line, and why; null for a resume
}

// rulesJSON is what the send's line adds to the profile's rules (issue 42
// §6): its kind, the quiet hours the send keeps (the line's and the
// profile's), its suffix, and the same in words.
type rulesJSON struct {
	Line          string      `json:"line"`
	Kind          *string     `json:"kind"` // service, advertising, or null: none recorded
	QuietHours    []quietJSON `json:"quiet_hours"`
	Suffix        *string     `json:"suffix"`
	MCIRecipients int         `json:"mci_recipients"`
	Why           []string    `json:"why"`
}

// quietJSON is one quiet window a send keeps: "22:00-07:00" in its zone,
// and whose it is ("profile", or the line's: "advertising line 3000 to
// MCI numbers").
type quietJSON struct {
	Window   string `json:"window"`
	Timezone string `json:"timezone"`
	From     string `json:"from"`
}

// lineRulesJSON is p's line rules for --json.
func lineRulesJSON(p *app.PendingSend) *rulesJSON {
	r := p.Line
	if r.Line == "" {
		return nil
	}
	out := &rulesJSON{Line: r.Line, Kind: nullable(string(r.Kind)), QuietHours: []quietJSON{}, Suffix: nullable(p.Plan.Suffix),
		MCIRecipients: r.MCI, Why: r.Texts()}
	for _, q := range r.Quiet {
		from := q.Why
		if from == "" {
			from = "profile"
		}
		out.QuietHours = append(out.QuietHours, quietJSON{Window: q.Hours.String(), Timezone: q.Zone.String(), From: from})
	}
	return out
}

// onceJSON is send-pair --once's part of the report: the once-only id, and
// the send made with it before this run (null when this run is the first:
// then id is the new send's). When EarlierSend is set and the pairs are the
// same, the report is that send's, and nothing was sent now.
type onceJSON struct {
	ID          string  `json:"id"`
	EarlierSend *string `json:"earlier_send"`
}

// sendResultJSON is one recipient in send-pair's and history show's --json.
// Status is accepted, rejected, failed or unknown — or not_sent for items an
// interrupted send never attempted. Index is its place in the plan (from
// 0); Line the file's line (0 when it did not come from a file).
type sendResultJSON struct {
	Index     int    `json:"index"`
	Line      int    `json:"line"`
	Recipient string `json:"recipient"`
	Message   string `json:"message"`
	Status    string `json:"status"`
	MessageID string `json:"message_id"` // "" when none: every key is always there
	Delivery  string `json:"delivery"`
	Code      string `json:"code"` // the service's error code, when rejected
	Error     string `json:"error"`
}

// planItemJSON is one recipient of a plan.
type planItemJSON struct {
	Line      int      `json:"line"`
	Input     string   `json:"input"`
	Recipient string   `json:"recipient"`
	Message   string   `json:"message"`
	Encoding  string   `json:"encoding"`
	Chars     int      `json:"chars"`
	Parts     int      `json:"parts"`
	Problems  []string `json:"problems"`
	OptedOut  bool     `json:"opted_out"` // on the opt-out list: not sent
}

// planTotalsJSON is a plan in figures.
type planTotalsJSON struct {
	Recipients    int    `json:"recipients"` // those the send goes to
	OptedOut      int    `json:"opted_out"`  // left out: on the opt-out list
	Parts         int    `json:"parts"`
	GSM7          int    `json:"gsm7"`
	UCS2          int    `json:"ucs2"`
	Requests      int    `json:"requests"`
	Seconds       int    `json:"seconds"`
	RepeatedPairs int    `json:"repeated_pairs"`
	CostRial      *int64 `json:"cost_rial"`
	CreditParts   *int64 `json:"credit_parts"`
}

// planProblemJSON is one row that cannot be sent.
type planProblemJSON struct {
	Source   string   `json:"source"`
	Line     int      `json:"line"`
	Input    string   `json:"input"`
	Problems []string `json:"problems"`
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func resultJSON(r model.SentItem) sendResultJSON {
	return sendResultJSON{Index: r.Index, Line: r.Line, Recipient: r.Recipient, Message: r.Message, Status: statusText(r.State),
		MessageID: r.MessageID, Delivery: r.Delivery, Code: r.Code, Error: r.Error}
}

func resultsJSON(results []model.SentItem) []sendResultJSON {
	out := make([]sendResultJSON, len(results))
	for i, r := range results {
		out[i] = resultJSON(r)
	}
	return out
}

// emptySendPairJSON has every list empty, not null.
func emptySendPairJSON() sendPairJSON {
	return sendPairJSON{Items: []planItemJSON{}, Results: []sendResultJSON{}, Problems: []planProblemJSON{},
		PlanProblems: []string{}, Repeats: []string{}}
}

// planJSON is a plan checked but not sent (a dry run, or refused).
func planJSON(p *app.PendingSend, dryRun bool) sendPairJSON {
	plan, v, src := p.Plan, &p.Verdict, p.Source
	out := emptySendPairJSON()
	out.DryRun, out.Sender, out.Source = dryRun, plan.Sender, src.Name
	for _, it := range plan.Items {
		out.Items = append(out.Items, planItemJSON{Line: it.Line, Input: it.Input, Recipient: it.Recipient, Message: it.Message,
			Encoding: string(it.Parts.Encoding), Chars: it.Parts.Chars, Parts: it.Parts.Parts, Problems: append([]string{}, it.Problems...), OptedOut: it.OptedOut})
	}
	out.Totals = planTotals(p)
	out.Counts = planCounts(plan)
	for _, it := range v.Bad {
		out.Problems = append(out.Problems, planProblemJSON{Source: src.Name, Line: it.Line, Input: it.Input, Problems: it.Problems})
	}
	for _, pr := range v.Problems {
		out.PlanProblems = append(out.PlanProblems, pr.Text)
	}
	out.Repeats = append(out.Repeats, p.RepeatTexts()...)
	if c := p.Resent(); c != nil {
		out.ResendOf = &c.Of
	}
	out.Rules = lineRulesJSON(p)
	return out
}

// planTotals is a plan in figures: a dry run's, a refusal's, and a new
// send's once it has run (what it was planned to cost).
func planTotals(p *app.PendingSend) *planTotalsJSON {
	v := &p.Verdict
	sum := v.Summary
	t := &planTotalsJSON{Recipients: sum.Recipients, OptedOut: sum.OptedOut, Parts: sum.Parts, GSM7: sum.GSM7, UCS2: sum.UCS2,
		Requests: sum.Requests, Seconds: int(sum.Duration.Seconds()), RepeatedPairs: v.RepeatedPairs()}
	if sum.CostKnown {
		t.CostRial = &sum.Cost
	}
	if c := sum.Credit; c != nil && c.HasParts {
		t.CreditParts = &c.Parts
	}
	return t
}

// planCounts are a plan's counts by status before anything is sent (a dry
// run, a refusal): every recipient not sent, or opted out; zeros for what
// did not happen. A script reads counts whatever the outcome (they were
// null).
func planCounts(plan *model.SendPlan) *model.StateCounts {
	c := model.StateCounts{Total: len(plan.Items)}
	for _, it := range plan.Items {
		if it.OptedOut {
			c.OptedOut++
		} else {
			c.NotSent++
		}
	}
	return &c
}

// runJSON is a send's (or resume's) outcome; interrupted is true when a
// signal stopped it (a stop for a refusal or for unknown outcomes is
// stopped, with its cause).
func runJSON(id string, results []model.SentItem, sum app.Summary, sender, source string, interrupted bool) sendPairJSON {
	out := emptySendPairJSON()
	out.ID, out.Sender, out.Source = &id, sender, source
	c := sum.Counts
	out.Counts = &c
	out.Results = resultsJSON(results)
	out.Interrupted = interrupted
	out.Stopped, out.StopCause = nullable(sum.Stopped), nullable(string(sum.Cause))
	out.Resume = nullable(resumeHint(id, sum.Counts, sum.Interrupted))
	return out
}

// sendID is the report's send id, "" when there is none.
func (s sendPairJSON) sendID() string {
	if s.ID == nil {
		return ""
	}
	return *s.ID
}
