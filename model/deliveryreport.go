package model

import (
	"fmt"
	"strings"
)

// DeliveryCounts counts a send's accepted messages by delivery state.
type DeliveryCounts struct {
	Messages  int `json:"messages"` // accepted: the sum of the states
	Delivered int `json:"delivered"`
	Failed    int `json:"failed"`
	Rejected  int `json:"rejected"`
	Pending   int `json:"pending"`
	Sent      int `json:"sent"`
	NoReport  int `json:"no_report"`
}

// Add counts n messages in state s (a state this version does not know is
// not counted).
func (c *DeliveryCounts) Add(s DeliveryState, n int) {
	p := c.field(s)
	if p == nil {
		return
	}
	*p += n
	c.Messages += n
}

// Of is how many messages are in state s.
func (c DeliveryCounts) Of(s DeliveryState) int {
	if p := c.field(s); p != nil {
		return *p
	}
	return 0
}

func (c *DeliveryCounts) field(s DeliveryState) *int {
	switch s {
	case DeliveryDelivered:
		return &c.Delivered
	case DeliveryFailed:
		return &c.Failed
	case DeliveryRejected:
		return &c.Rejected
	case DeliveryPending:
		return &c.Pending
	case DeliverySent:
		return &c.Sent
	case DeliveryNoReport:
		return &c.NoReport
	}
	return nil
}

// Text is the counts for a table's cell: "8/10 delivered · 1 failed · 1
// pending" (the states with messages, delivered first), "-" for none.
func (c DeliveryCounts) Text() string {
	if c.Messages == 0 {
		return "-"
	}
	parts := []string{fmt.Sprintf("%d/%d delivered", c.Delivered, c.Messages)}
	for _, s := range DeliveryStates[1:] {
		if n := c.Of(s); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s.Words()))
		}
	}
	return strings.Join(parts, " · ")
}

// Words is the state for people: "no report" for no_report, else its name.
func (s DeliveryState) Words() string {
	if s == DeliveryNoReport {
		return "no report"
	}
	return string(s)
}

// DeliveryShare is one state's part of a send's delivery report.
type DeliveryShare struct {
	State DeliveryState `json:"state"`
	Count int           `json:"count"`
	// Share is Count over the report's Messages (0 to 1; 0 when none).
	Share float64 `json:"share"`
	Parts int     `json:"parts"` // SMS parts of those messages
	// Cost is what those parts cost at the profile's prices, in rial (nil
	// when a price it needs is not set).
	Cost *int64 `json:"cost"`
}

// DeliveryReport is a send's delivery: its accepted messages counted by
// state, with each state's share, SMS parts and cost.
type DeliveryReport struct {
	DeliveryCounts
	Parts  int             `json:"parts"`
	Cost   *int64          `json:"cost"`
	States []DeliveryShare `json:"states"` // every state, in DeliveryStates order
}

// DeliveredMessage is one accepted message for a report: its state, and
// its SMS parts as sent.
type DeliveredMessage struct {
	State DeliveryState
	Parts PartCount
}

// NewDeliveryReport counts messages by state, with their parts and, with
// prices, their cost.
func NewDeliveryReport(messages []DeliveredMessage, prices Prices) DeliveryReport {
	var r DeliveryReport
	type sum struct{ gsm, ucs int }
	byState := map[DeliveryState]*sum{}
	for _, s := range DeliveryStates {
		byState[s] = &sum{}
	}
	var all sum
	for _, m := range messages {
		t, ok := byState[m.State]
		if !ok {
			continue
		}
		r.Add(m.State, 1)
		if m.Parts.Encoding == UCS2 {
			t.ucs += m.Parts.Parts
			all.ucs += m.Parts.Parts
		} else {
			t.gsm += m.Parts.Parts
			all.gsm += m.Parts.Parts
		}
	}
	cost := func(s sum) *int64 {
		if (s.gsm > 0 && prices.GSM7 <= 0) || (s.ucs > 0 && prices.UCS2 <= 0) || (prices.GSM7 <= 0 && prices.UCS2 <= 0) {
			return nil
		}
		c := int64(s.gsm)*prices.GSM7 + int64(s.ucs)*prices.UCS2
		return &c
	}
	r.Parts, r.Cost = all.gsm+all.ucs, cost(all)
	r.States = make([]DeliveryShare, len(DeliveryStates))
	for i, s := range DeliveryStates {
		t := byState[s]
		sh := DeliveryShare{State: s, Count: r.Of(s), Parts: t.gsm + t.ucs, Cost: cost(*t)}
		if r.Messages > 0 {
			sh.Share = float64(sh.Count) / float64(r.Messages)
		}
		r.States[i] = sh
	}
	return r
}
