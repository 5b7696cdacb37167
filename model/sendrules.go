package model

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The send rules: one place that decides whether a planned paired send may go
// out, and what the operator must see and agree to first. The CLI and the
// console build a SendPlan, gather SendFacts (profile settings, the history of
// this profile's sends, the account's credit) and show CheckSend's Verdict
// each in their own way; neither decides on its own.

// SendFacts is what the rules weigh besides the plan.
type SendFacts struct {
	Profile string // the profile's name, for messages
	// Lines are the profile's sender lines (its senders, else its one sender;
	// see KnownLines). When there are none the service decides.
	Lines []string
	// History holds the pairs earlier sends of this profile had accepted
	// (config.RecentPairs); pairs accepted before Since do not count. A zero
	// Since turns the repeat check off (repeat_window = 0).
	History []SentPairs
	Since   time.Time
	// Credit is the account's credit, nil when the service does not tell.
	Credit *Credit
	// Prices are the profile's prices per SMS part, for the cost line.
	Prices Prices
	// RatePerMinute and ChunkSize pace the send (for the duration estimate).
	RatePerMinute, ChunkSize int
	// Pace is the budget the send will keep to, as far as it is known (the
	// service's when it said it); zero: the profile's RatePerMinute.
	Pace Pace
	// Now is the time repeats are measured from ("2h ago").
	Now time.Time
}

// Credit is what GET /account/credit tells: rial and SMS parts left. A zero
// Has… field means the service did not give that figure.
type Credit struct {
	Rial     int64
	Parts    int64 // sms_count: SMS parts the account can still send
	HasRial  bool
	HasParts bool
}

// Prices are rial per SMS part, by encoding; 0 means not set. Iranian panels
// price a Latin (GSM-7) part about twice a Persian (UCS-2) one.
type Prices struct {
	GSM7, UCS2 int64
}

// ProblemKind names a plan-wide problem, so that a face or the layer can
// react to it (a credit problem is a credit refusal) without reading its
// words.
type ProblemKind string

// The plan-wide problems.
const (
	ProblemNoRows      ProblemKind = "no_rows"      // the plan has no rows
	ProblemNoSender    ProblemKind = "no_sender"    // no sender line
	ProblemSenderLine  ProblemKind = "sender_line"  // the sender is not one of the profile's lines (Sender, Lines)
	ProblemCreditParts ProblemKind = "credit_parts" // the plan needs more SMS parts than the account has (Need, Have)
	ProblemCreditRial  ProblemKind = "credit_rial"  // the plan costs more rial than the account has (Need, Have)
)

// Problem is one plan-wide reason nothing may be sent: a kind, its figures,
// and the same in words for people (Text, with no face's flags or keys).
type Problem struct {
	Kind ProblemKind
	Text string
	// Need and Have are the credit problems' figures (parts, or rial).
	Need, Have int64
	// Sender and Lines are ProblemSenderLine's line and the profile's.
	Sender string
	Lines  []string
}

func (p Problem) String() string { return p.Text }

// IsCredit reports whether the problem is credit too short.
func (p Problem) IsCredit() bool { return p.Kind == ProblemCreditParts || p.Kind == ProblemCreditRial }

// Verdict is the rules' decision on a plan.
type Verdict struct {
	// Problems are plan-wide reasons nothing may be sent: no rows, no sender
	// line, a line the profile does not list, credit too short.
	Problems []Problem
	// Bad are the items with problems (each names its own); any of them stops
	// the whole send.
	Bad []PlanItem
	// Repeats are earlier sends that already accepted some of these pairs. The
	// send may go only when the operator says so (--allow-repeat, or yes).
	Repeats []Repeat
	// Summary is what the confirmation shows.
	Summary PlanSummary
}

// Blocked reports whether nothing may be sent (exit 2 in the CLI).
func (v *Verdict) Blocked() bool { return len(v.Problems) > 0 || len(v.Bad) > 0 }

// RepeatedPairs counts the plan's items some earlier send already accepted.
func (v *Verdict) RepeatedPairs() int {
	seen := map[int]bool{}
	for _, r := range v.Repeats {
		for _, i := range r.Items {
			seen[i] = true
		}
	}
	return len(seen)
}

// PlanSummary is a plan in figures, for the confirmation.
type PlanSummary struct {
	// Recipients are those the send goes to; OptedOut those left out as on
	// the opt-out list (MarkOptedOut).
	Recipients, OptedOut int
	Sender               string
	// Messages and parts by encoding.
	GSM7, UCS2           int
	GSM7Parts, UCS2Parts int
	Parts                int
	// Cost in rial, when the profile prices every encoding the plan uses.
	Cost      int64
	CostKnown bool
	// Credit before the send and what would be left after it, when known.
	Credit *Credit
	After  Credit
	// Requests and the estimated time they take at Pace (a lower bound
	// unless the service said its limit and window: Pace.AtLeast).
	Requests int
	Duration time.Duration
	Pace     Pace
	// Longest is the estimate's other end: when only the service's limit is
	// known, at the documented window of a minute (Duration takes a
	// second); else Duration. The quiet-hours forecast errs this way.
	Longest time.Duration
	// Samples are the first messages exactly as they will be sent.
	Samples []PlanItem
}

// SampleCount is how many messages a plan shows in full.
const SampleCount = 3

// CheckSend applies the send rules to a plan.
func CheckSend(p *SendPlan, f SendFacts) Verdict {
	v := Verdict{Summary: summarize(p, f)}
	if len(p.Items) == 0 {
		v.Problems = append(v.Problems, Problem{Kind: ProblemNoRows, Text: "no rows to send"})
	}
	if text := CheckSender(p.Sender, f.Lines, f.Profile); text != "" {
		pr := Problem{Kind: ProblemSenderLine, Text: text, Sender: p.Sender, Lines: f.Lines}
		if strings.TrimSpace(p.Sender) == "" {
			pr = Problem{Kind: ProblemNoSender, Text: text}
		}
		v.Problems = append(v.Problems, pr)
	}
	v.Bad = p.Invalid()
	s := &v.Summary
	if c := f.Credit; c != nil {
		if c.HasParts && int64(s.Parts) > c.Parts {
			v.Problems = append(v.Problems, Problem{Kind: ProblemCreditParts, Need: int64(s.Parts), Have: c.Parts,
				Text: fmt.Sprintf("not enough credit: the send needs %s parts, the account has %s", Thousands(int64(s.Parts)), Thousands(c.Parts))})
		}
		if c.HasRial && s.CostKnown && s.Cost > c.Rial {
			v.Problems = append(v.Problems, Problem{Kind: ProblemCreditRial, Need: s.Cost, Have: c.Rial,
				Text: fmt.Sprintf("not enough credit: the send costs %s rial, the account has %s", Thousands(s.Cost), Thousands(c.Rial))})
		}
	}
	if !f.Since.IsZero() {
		v.Repeats = FindRepeats(p, f.History, f.Since)
	}
	return v
}

// summarize counts a plan for the confirmation.
func summarize(p *SendPlan, f SendFacts) PlanSummary {
	s := PlanSummary{Sender: p.Sender}
	s.count(p.Items)
	s.Parts = s.GSM7Parts + s.UCS2Parts
	s.CostKnown = (s.GSM7Parts == 0 || f.Prices.GSM7 > 0) && (s.UCS2Parts == 0 || f.Prices.UCS2 > 0) &&
		(f.Prices.GSM7 > 0 || f.Prices.UCS2 > 0)
	if s.CostKnown {
		s.Cost = int64(s.GSM7Parts)*f.Prices.GSM7 + int64(s.UCS2Parts)*f.Prices.UCS2
	}
	s.creditAfter(f.Credit)
	s.Pace = f.Pace
	if s.Pace.Limit <= 0 {
		s.Pace = ProfilePace(f.RatePerMinute)
	}
	s.Requests, s.Duration = s.Pace.Estimate(s.Recipients, f.ChunkSize)
	s.Longest = s.Duration
	if s.Pace.From == PaceLimit {
		_, s.Longest = Pace{Limit: s.Pace.Limit, Window: time.Minute, From: PaceLimit}.Estimate(s.Recipients, f.ChunkSize)
	}
	return s
}

// count counts the recipients and their parts by encoding, keeping the first
// SampleCount as samples; an opted-out item is only counted as such.
func (s *PlanSummary) count(items []PlanItem) {
	for i := range items {
		if items[i].OptedOut {
			s.OptedOut++ // never sent: not counted, not billed, not shown as a sample
			continue
		}
		s.Recipients++
		if len(s.Samples) < SampleCount {
			s.Samples = append(s.Samples, items[i])
		}
		pc := items[i].Parts
		if pc.Encoding == UCS2 {
			s.UCS2++
			s.UCS2Parts += pc.Parts
		} else {
			s.GSM7++
			s.GSM7Parts += pc.Parts
		}
	}
}

// creditAfter keeps the account's credit c (nil: not known) and what is left
// of it after the send: its parts, and its rial when the cost is known.
func (s *PlanSummary) creditAfter(c *Credit) {
	if c == nil {
		return
	}
	cc := *c
	s.Credit = &cc
	s.After = Credit{HasParts: c.HasParts, HasRial: c.HasRial && s.CostKnown}
	s.After.Parts = c.Parts - int64(s.Parts)
	if s.After.HasRial {
		s.After.Rial = c.Rial - s.Cost
	}
}

// EstimateDuration is how many requests n items take in chunks of chunkSize
// (default 100) and about how long they take at ratePerMinute (default 60):
// the first goes at once, the others one rate interval apart.
func EstimateDuration(n, chunkSize, ratePerMinute int) (int, time.Duration) {
	if chunkSize <= 0 {
		chunkSize = 100
	}
	if ratePerMinute <= 0 {
		ratePerMinute = 60
	}
	req := (n + chunkSize - 1) / chunkSize
	if req <= 1 {
		return req, 0
	}
	return req, time.Duration(req-1) * time.Minute / time.Duration(ratePerMinute)
}

// PartsText reads like "312 UCS-2 · 4 GSM-7 → 320 parts" (encodings the plan
// does not use are left out).
func (s PlanSummary) PartsText() string {
	var enc []string
	if s.UCS2 > 0 {
		enc = append(enc, Thousands(int64(s.UCS2))+" UCS-2")
	}
	if s.GSM7 > 0 {
		enc = append(enc, Thousands(int64(s.GSM7))+" GSM-7")
	}
	word := "parts"
	if s.Parts == 1 {
		word = "part"
	}
	return strings.Join(enc, " · ") + " → " + Thousands(int64(s.Parts)) + " " + word
}

// CostText reads like "38,400 rial", or "" when the profile sets no prices
// for the encodings the plan uses.
func (s PlanSummary) CostText() string {
	if !s.CostKnown {
		return ""
	}
	return Thousands(s.Cost) + " rial"
}

// CreditText reads like "5,000 parts → 4,680 after (1,200,000 rial → …)", or
// "" when the credit is unknown.
func (s PlanSummary) CreditText() string {
	c := s.Credit
	if c == nil || !c.HasParts && !c.HasRial {
		return ""
	}
	var out []string
	if c.HasParts {
		out = append(out, fmt.Sprintf("%s parts → %s after", Thousands(c.Parts), Thousands(s.After.Parts)))
	}
	if c.HasRial {
		t := Thousands(c.Rial) + " rial"
		if s.After.HasRial {
			t += " → " + Thousands(s.After.Rial) + " after"
		}
		out = append(out, t)
	}
	return strings.Join(out, " · ")
}

// DurationText says how long the send takes: "about 20 s (300 requests,
// 100 per 10 s as the service said)" when the service said its limit and
// window, else a lower bound: "at least 1 min (300 requests, 5 per window;
// the service has not said its window)" or "at least 4 min (300 requests at
// the profile's 60 per minute; the service has not said its limit)"; and
// "not known" when the profile's budget would take the requests at once
// but the service has said nothing.
func (s PlanSummary) DurationText() string {
	if s.Requests <= 1 {
		return "under a second (1 request)" // one request waits for no pace
	}
	req := Thousands(int64(s.Requests)) + " requests"
	p := s.Pace
	if p.Limit <= 0 {
		p = ProfilePace(0)
	}
	d := "under a second"
	switch {
	case s.Duration >= time.Second && p.AtLeast():
		d = "at least " + roundDuration(s.Duration)
	case s.Duration >= time.Second:
		d = "about " + roundDuration(s.Duration)
	}
	switch p.From {
	case PaceService:
		return fmt.Sprintf("%s (%s, %s as the service said)", d, req, p)
	case PaceLimit:
		return fmt.Sprintf("%s (%s, %d per window; the service has not said its window)", d, req, p.Limit)
	}
	if s.Duration < time.Second && s.Requests > 1 {
		// Within the profile's budget at once, but the service, which has
		// said nothing, may be slower: no bound to give.
		return fmt.Sprintf("not known: under a second at the profile's %s (%s), but the service has not said its limit", p, req)
	}
	return fmt.Sprintf("%s (%s at the profile's %s; the service has not said its limit)", d, req, p)
}

func roundDuration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%d s", int(d.Round(time.Second)/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d.Round(time.Minute)/time.Minute))
	}
	return d.Round(time.Minute).String()
}

// KnownLines are the sender lines a profile knows: its list of the account's
// lines, else its one default line, else none.
func KnownLines(senders []string, sender string) []string {
	if len(senders) > 0 {
		return senders
	}
	if s := strings.TrimSpace(sender); s != "" {
		return []string{s}
	}
	return nil
}

// CheckSender says why sender may not be used, or "": it must be given and,
// when the profile knows its lines, be one of them.
func CheckSender(sender string, lines []string, profile string) string {
	switch {
	case strings.TrimSpace(sender) == "":
		return "no sender line"
	case len(lines) == 0 || slices.Contains(lines, sender):
		return ""
	}
	return fmt.Sprintf("sender %s is not one of profile %s's lines (%s)", SanitizeLine(sender), profile, strings.Join(lines, ", "))
}

// IsIranianMobile reports whether a number NormalizeMobile accepted is an
// Iranian mobile (09… or +989…) rather than a foreign number.
func IsIranianMobile(normalized string) bool {
	return strings.HasPrefix(normalized, "09") || strings.HasPrefix(normalized, "+989")
}

// ForeignNumberProblem is the plan problem of a number outside Iran when the
// profile sends to Iranian mobiles only.
func ForeignNumberProblem(normalized string) string {
	return "foreign number " + normalized + ": this profile sends to Iranian mobiles only (set allow_international = true to send abroad)"
}

// Counted is "1 recipient", "1,200 recipients": n with thousands
// separators and the noun, plural but for one.
func Counted(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return Thousands(int64(n)) + " " + noun + "s"
}

// Thousands writes n with thousands separators: 1240 → "1,240".
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
