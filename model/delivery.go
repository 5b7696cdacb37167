package model

// A message the service accepted is delivered, or not, later: the service
// says so by webhook (sms.sent, sms.delivered, sms.failed) or, as a
// fallback, when asked (GET /sms/{id}/status). Its delivery state only ever
// moves forward (DeliveryState.Rank): a late sms.sent after sms.delivered
// changes nothing.

// DeliveryState is where an accepted message stands after the service took it.
type DeliveryState string

// Delivery states.
const (
	DeliveryPending   DeliveryState = "pending"   // accepted; nothing heard yet
	DeliverySent      DeliveryState = "sent"      // handed to the operator's network
	DeliveryDelivered DeliveryState = "delivered" // on the recipient's phone
	DeliveryFailed    DeliveryState = "failed"    // the network could not deliver it
	DeliveryRejected  DeliveryState = "rejected"  // the service refused it after accepting (content filter, invalid number)
	// DeliveryNoReport: no final state came within the time the service
	// is waited for (delivery_unknown_after): whether it arrived is not
	// known.
	DeliveryNoReport DeliveryState = "no_report"
)

// DeliveryStates are every state, in the order a report lists them.
var DeliveryStates = []DeliveryState{DeliveryDelivered, DeliveryFailed, DeliveryRejected, DeliveryPending, DeliverySent, DeliveryNoReport}

// Rank orders the states a message passes through, and a state moves only
// to a higher rank: pending 0, sent 1, no report 2, the final states
// (delivered, failed, rejected) 3. No report is the poller's give-up, set
// only over pending or sent; a final state the service tells later still
// replaces it. Of two final states the first told stays. A word this
// version does not know is -1.
func (s DeliveryState) Rank() int {
	switch s {
	case DeliveryPending:
		return 0
	case DeliverySent:
		return 1
	case DeliveryNoReport:
		return 2
	case DeliveryDelivered, DeliveryFailed, DeliveryRejected:
		return 3
	}
	return -1
}

// Final reports whether the service has said its last word on the message
// (delivered, failed or rejected): it is not asked about again.
func (s DeliveryState) Final() bool {
	return s == DeliveryDelivered || s == DeliveryFailed || s == DeliveryRejected
}

// ParseDeliveryState reads a state as the service words it (a status
// answer's, or a polled record's); ok is false for a word it does not know.
func ParseDeliveryState(word string) (DeliveryState, bool) {
	s := DeliveryState(word)
	if s.Rank() < 0 {
		return "", false
	}
	return s, true
}
