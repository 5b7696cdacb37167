package console

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/smsdesk/smsdesk/model"
)

// What became of a recipient, in words, kept apart from what became of
// the message after: the outcome is the service's answer to the send
// (accepted, rejected, failed, unknown) or why it never went (not sent,
// opted out, cancelled); the delivery is what the service later reported
// of an accepted message (pending, delivered, not delivered…). A send's
// detail said "297 accepted, 0 rejected, 0 failed" over a STATUS column
// showing "failed" (a delivery) and "opted_out" (the journal's spelling):
// issue 40 item 12.

// outcomeWord is a recipient's outcome in words. sending: its send is
// still going (a recipient not sent yet is queued, not "not sent");
// cancel: the send was cancelled or missed before it started (its
// recipients were never to go).
func outcomeWord(st model.ItemState, sending bool, cancel *model.JournalCancel) string {
	switch st {
	case model.StateQueued:
		switch {
		case cancel != nil && cancel.Cause == model.CancelMissed:
			return "missed"
		case cancel != nil:
			return "cancelled"
		case sending:
			return "queued"
		}
		return "not sent"
	case model.StateOptedOut:
		return "opted out"
	case model.StateAccepted, model.StateRejected, model.StateFailed, model.StateUnknown, model.StateSending:
		return string(st)
	}
	return "unknown" // a word of a newer version replays as unknown
}

// deliveryWord is what the service reported of an accepted message's
// delivery, in words ("" when it has reported nothing).
func deliveryWord(d string) string {
	switch d {
	case "":
		return ""
	case "failed", "rejected":
		return "not delivered"
	case "sent":
		return "in transit" // handed on to the network, not delivered yet
	case "no_report":
		return "no report" // the service never said, within delivery_unknown_after
	case "pending", "delivered":
		return d
	}
	return model.SanitizeLine(d)
}

// outcomeCounts says how many recipients had each outcome, in words, the
// outcomes none had left out ("297 accepted, 3 opted out").
func outcomeCounts(c model.StateCounts, cancel *model.JournalCancel) string {
	notSent := outcomeWord(model.StateQueued, false, cancel)
	var parts []string
	for _, n := range []struct {
		n    int
		word string
	}{{c.Accepted, "accepted"}, {c.Rejected, "rejected"}, {c.Failed, "failed"}, {c.Unknown, "unknown"},
		{c.Sending, "sending"}, {c.NotSent, notSent}, {c.OptedOut, "opted out"}} {
		if n.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n.n, n.word))
		}
	}
	if len(parts) == 0 {
		return "no recipients"
	}
	return strings.Join(parts, ", ")
}

// deliveryCounts says what the service reported of the accepted messages'
// delivery ("250 delivered, 7 not delivered, 40 pending"), or "" when it
// reported none.
func deliveryCounts(items []model.SentItem) string {
	n := map[string]int{}
	var order []string
	for _, it := range items {
		if it.State != model.StateAccepted || it.Delivery == "" {
			continue
		}
		w := deliveryWord(it.Delivery)
		if n[w] == 0 {
			order = append(order, w)
		}
		n[w]++
	}
	rank := func(w string) int { // the settled first; a word of the service's own last
		if r := slices.Index([]string{"delivered", "not delivered", "in transit", "pending"}, w); r >= 0 {
			return r
		}
		return 4
	}
	slices.SortStableFunc(order, func(a, b string) int { return cmp.Compare(rank(a), rank(b)) })
	parts := make([]string, len(order))
	for i, w := range order {
		parts[i] = fmt.Sprintf("%d %s", n[w], w)
	}
	return strings.Join(parts, ", ")
}
