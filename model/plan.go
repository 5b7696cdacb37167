package model

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// DefaultMaxChars is the provider's panel cap on one message, in characters.
const DefaultMaxChars = 600

// PlanOptions tune BuildPlan.
type PlanOptions struct {
	Format          NumberFormat // canonical form of Iranian recipients
	MaxChars        int          // longest message in characters; 0 means DefaultMaxChars
	AllowDuplicates bool         // do not flag a recipient that appears twice
	// AllowInternational lets numbers outside Iran through (the profile setting
	// allow_international); otherwise a foreign number is a problem of its row.
	AllowInternational bool
}

// PlanItem is one recipient of a send plan with what it will cost and what is
// wrong with it.
type PlanItem struct {
	Index     int       // position in the plan, from 0
	Line      int       // line in the source file (0 if none)
	Input     string    // recipient as given
	Recipient string    // normalised recipient; "" if invalid
	Message   string    // the text to send
	Parts     PartCount // encoding and SMS parts of Message
	// Problems, for people; an item with problems must not be sent. They read
	// like "invalid number: …", "foreign number: …", "empty message", "message
	// is 712 characters, over the 600 limit", "duplicate recipient (also line
	// 4)", "control characters in message", "message is not UTF-8 text", "empty
	// {name}; …" (from a template).
	Problems []string
	// OptedOut: the recipient is on the account's opt-out list for this
	// sender line (MarkOptedOut): journaled, never sent.
	OptedOut bool
}

// SendPlan is a paired send checked before anything leaves: a sender line and
// one item per recipient.
type SendPlan struct {
	Sender string
	Items  []PlanItem
	// Suffix is the opt-out suffix every message ends with ("" for none);
	// NoSuffix says the operator left the profile's out for this send.
	Suffix   string
	NoSuffix bool
}

// Clone is a copy of the plan whose items can be marked (opted out)
// without touching p's; the items' problem lists are shared, never written.
func (p *SendPlan) Clone() *SendPlan {
	c := *p
	c.Items = slices.Clone(p.Items)
	return &c
}

// BuildPlan checks rows for a paired send from sender: every recipient is
// normalised (opts.Format), every message measured in SMS parts, and each item
// gets the problems that would stop it being sent.
func BuildPlan(sender string, rows []PairRow, opts PlanOptions) *SendPlan {
	b := NewPlanBuilder(sender, opts, len(rows))
	for _, row := range rows {
		b.Add(row)
	}
	return b.Plan()
}

// PlanBuilder is BuildPlan a row at a time, for rows read as they come (a
// file of a million pairs): the rows need not be held as well as the plan.
type PlanBuilder struct {
	p         *SendPlan
	opts      PlanOptions
	maxChars  int
	firstLine map[string]int // recipient → planRef of its first item; nil with AllowDuplicates
}

// NewPlanBuilder starts a plan from sender; sizeHint is how many rows are
// expected (0 if unknown).
func NewPlanBuilder(sender string, opts PlanOptions, sizeHint int) *PlanBuilder {
	b := &PlanBuilder{p: &SendPlan{Sender: strings.TrimSpace(sender), Items: make([]PlanItem, 0, sizeHint)}, opts: opts, maxChars: opts.MaxChars}
	if b.maxChars <= 0 {
		b.maxChars = DefaultMaxChars
	}
	if !opts.AllowDuplicates {
		b.firstLine = make(map[string]int, sizeHint)
	}
	return b
}

// Add checks row and adds it to the plan as its next item.
func (b *PlanBuilder) Add(row PairRow) {
	i := len(b.p.Items)
	b.p.Items = append(b.p.Items, PlanItem{Index: i, Line: row.Line, Input: row.Recipient, Message: row.Message})
	it := &b.p.Items[i]
	it.Problems = append(it.Problems, row.Problems...)
	rcpt, err := NormalizeMobile(row.Recipient, b.opts.Format)
	switch {
	case err != nil:
		reason := err.Error()
		if me, ok := err.(*MobileError); ok {
			reason = me.Reason
		}
		it.Problems = append(it.Problems, "invalid number: "+reason)
	case !b.opts.AllowInternational && !IsIranianMobile(rcpt):
		it.Problems = append(it.Problems, ForeignNumberProblem(rcpt))
	default:
		if rcpt == row.Recipient {
			rcpt = row.Recipient // already canonical: one string for both, not two
		}
		it.Recipient = rcpt
		if b.firstLine != nil {
			if first, dup := b.firstLine[rcpt]; dup {
				it.Problems = append(it.Problems, duplicateProblem(first))
			} else {
				b.firstLine[rcpt] = planRef(row.Line, i)
			}
		}
	}
	valid := utf8.ValidString(row.Message)
	it.Parts = partsOf(row.Message, valid)
	switch {
	case strings.TrimSpace(row.Message) == "":
		it.Problems = append(it.Problems, "empty message")
	case it.Parts.Chars > b.maxChars:
		it.Problems = append(it.Problems, fmt.Sprintf("message is %d characters, over the %d limit", it.Parts.Chars, b.maxChars))
	}
	if hasControls(row.Message) {
		it.Problems = append(it.Problems, "control characters in message")
	}
	if !valid {
		it.Problems = append(it.Problems, "message is not UTF-8 text")
	} else if p := textProblem(row.Message, true); p != "" {
		it.Problems = append(it.Problems, p)
	}
}

// Plan is the plan built so far; the builder is done with it (its
// duplicate index is let go).
func (b *PlanBuilder) Plan() *SendPlan {
	b.firstLine = nil
	return b.p
}

// planRef is how a duplicate names the first occurrence: its line, or its item
// number (negative, to tell them apart) when rows carry no lines.
func planRef(line, index int) int {
	if line > 0 {
		return line
	}
	return -(index + 1)
}

func duplicateProblem(ref int) string {
	if ref < 0 {
		return fmt.Sprintf("duplicate recipient (also item %d)", -ref)
	}
	return fmt.Sprintf("duplicate recipient (also line %d)", ref)
}

// OK reports whether the plan can be sent: a sender, at least one item, and no
// item with problems.
func (p *SendPlan) OK() bool {
	if p.Sender == "" || len(p.Items) == 0 {
		return false
	}
	for i := range p.Items {
		if len(p.Items[i].Problems) > 0 {
			return false
		}
	}
	return true
}

// Invalid returns the items that have problems, in order.
func (p *SendPlan) Invalid() []PlanItem {
	var bad []PlanItem
	for _, it := range p.Items {
		if len(it.Problems) > 0 {
			bad = append(bad, it)
		}
	}
	return bad
}

// TotalParts is the number of SMS parts the plan would be billed for: an
// opted-out item is never sent, and not billed (as CheckSend's summary
// counts).
func (p *SendPlan) TotalParts() int {
	n := 0
	for i := range p.Items {
		if !p.Items[i].OptedOut {
			n += p.Items[i].Parts.Parts
		}
	}
	return n
}

// Recipients is how many items the plan sends: every one but the opted-out
// (as CheckSend's summary counts).
func (p *SendPlan) Recipients() int {
	n := 0
	for i := range p.Items {
		if !p.Items[i].OptedOut {
			n++
		}
	}
	return n
}

// Pairs returns the items as pairs with normalised recipients, in order.
func (p *SendPlan) Pairs() []Pair {
	out := make([]Pair, len(p.Items))
	for i, it := range p.Items {
		out[i] = Pair{Recipient: it.Recipient, Message: it.Message}
	}
	return out
}

// Encodings counts the items sent as GSM-7 and as UCS-2.
func (p *SendPlan) Encodings() (gsm, ucs2 int) {
	for i := range p.Items {
		if p.Items[i].Parts.Encoding == UCS2 {
			ucs2++
		} else {
			gsm++
		}
	}
	return gsm, ucs2
}
