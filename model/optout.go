package model

import (
	"slices"
	"strings"
	"time"
)

// An opt-out says a number must not be sent to: by the account's every line,
// or by one line only (an opt-out from one service's line must not silence
// the account's other services). The list belongs to the service account
// (AccountID): every profile and operator sending through it keeps it.

// OptOut is one entry of an account's opt-out list.
type OptOut struct {
	// Mobile is the number in its canonical local form (OptOutKey).
	Mobile string `json:"mobile"`
	// Sender is the one line the opt-out holds for; "" for every line.
	Sender string `json:"sender,omitempty"`
	Note   string `json:"note,omitempty"`
	// Added is when it was added, and by whom on a served console.
	Added    time.Time `json:"added"`
	Operator *Operator `json:"operator,omitempty"`
	// Source is who put the number on the list: OptOutOperator (added by
	// hand, and every entry from before sources were kept), OptOutImport
	// (a file imported) or OptOutReply (the recipient replied «۱۱»,
	// MessageID naming the reply).
	Source    string `json:"source,omitempty"`
	MessageID string `json:"message_id,omitempty"`
}

// Where an opt-out came from (OptOut.Source).
const (
	OptOutOperator = "operator"
	OptOutImport   = "import"
	OptOutReply    = "reply"
)

// AllLines reports whether the opt-out holds for every line.
func (o OptOut) AllLines() bool { return o.Sender == "" }

// OptOutKey is the form an opt-out list keys a number by: every spelling of
// one Iranian mobile (+98…, 0098…, 9…, Persian digits) gives 09…, a foreign
// number its E.164 form. A number NormalizeMobile refuses is an error.
func OptOutKey(number string) (string, error) {
	return NormalizeMobile(number, FormatLocal)
}

// OptOutList is an account's opt-outs, looked up by number.
type OptOutList struct {
	byMobile map[string][]OptOut
}

// NewOptOutList indexes entries (whose Mobile is already an OptOutKey).
func NewOptOutList(entries []OptOut) *OptOutList {
	l := &OptOutList{byMobile: make(map[string][]OptOut, len(entries))}
	for _, e := range entries {
		l.byMobile[e.Mobile] = append(l.byMobile[e.Mobile], e)
	}
	return l
}

// Len is the number of entries.
func (l *OptOutList) Len() int {
	if l == nil {
		return 0
	}
	n := 0
	for _, es := range l.byMobile {
		n += len(es)
	}
	return n
}

// Entries returns every entry, by number (in no set order between numbers).
func (l *OptOutList) Entries() []OptOut {
	if l == nil {
		return nil
	}
	out := make([]OptOut, 0, len(l.byMobile))
	for _, es := range l.byMobile {
		out = append(out, es...)
	}
	return out
}

// Blocks returns the opt-out that stops a send from sender to recipient
// (in any spelling): one for every line before one for this line.
func (l *OptOutList) Blocks(recipient, sender string) (OptOut, bool) {
	if l == nil || len(l.byMobile) == 0 {
		return OptOut{}, false
	}
	key, err := OptOutKey(recipient)
	if err != nil {
		return OptOut{}, false
	}
	es := l.byMobile[key]
	if i := slices.IndexFunc(es, OptOut.AllLines); i >= 0 {
		return es[i], true
	}
	sender = strings.TrimSpace(sender)
	if i := slices.IndexFunc(es, func(o OptOut) bool { return o.Sender == sender }); i >= 0 {
		return es[i], true
	}
	return OptOut{}, false
}

// MarkOptedOut marks the plan's items whose recipients the list stops from
// the plan's sender line, and returns them (in plan order). Items already
// marked stay so.
func MarkOptedOut(p *SendPlan, l *OptOutList) []PlanItem {
	var out []PlanItem
	for i := range p.Items {
		it := &p.Items[i]
		if !it.OptedOut && it.Recipient != "" {
			_, it.OptedOut = l.Blocks(it.Recipient, p.Sender)
		}
		if it.OptedOut {
			out = append(out, *it)
		}
	}
	return out
}

// OptedOutRecipients are the recipients of the plan's opted-out items.
func (p *SendPlan) OptedOutRecipients() []string {
	var out []string
	for _, it := range p.Items {
		if it.OptedOut {
			out = append(out, it.Recipient)
		}
	}
	return out
}

// OptedOutCount says how many recipients were left out as opted out, and
// names the first few: "3 opted out: not sent (09121234567, 09351234567, …)".
func OptedOutCount(recipients []string, show int) string {
	if len(recipients) == 0 {
		return ""
	}
	names := recipients[:min(show, len(recipients))]
	more := ""
	if len(recipients) > len(names) {
		more = ", …"
	}
	return Thousands(int64(len(recipients))) + " opted out: not sent (" + strings.Join(names, ", ") + more + ")"
}
