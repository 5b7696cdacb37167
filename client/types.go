package client

import (
	"fmt"
	"math"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// NewGroup is the body of POST /contact-groups.
type NewGroup struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// NewContact is the body of POST /contacts.
type NewContact struct {
	GroupID model.ID `json:"group_id"`
	Name    string   `json:"name,omitempty"`
	Mobile  string   `json:"mobile"`
}

// SendPairRequest is the body of POST /sms/send-pair. IdempotencyKey, when set, is
// sent as the Idempotency-Key header (a fresh one is made when empty).
type SendPairRequest struct {
	Sender         string       `json:"sender"`
	Items          []model.Pair `json:"items"`
	IdempotencyKey string       `json:"-"`
}

// ItemStatus is the service's verdict on one item of a paired send.
type ItemStatus string

// Item statuses. Accepted means the service took the message (it may still fail
// to deliver later); Rejected means it refused the item and nothing was sent;
// Unknown means the answer named the item but its status could not be read
// (treat it as outcome unknown, never as sent or not sent).
const (
	ItemAccepted ItemStatus = "accepted"
	ItemRejected ItemStatus = "rejected"
	ItemUnknown  ItemStatus = "unknown"
)

// ItemResult is the service's answer for one item of a paired send.
type ItemResult struct {
	Index     int        // position in the request's items; -1 when the answer did not say
	Recipient string     // as the service echoed it, sanitised; may be empty
	MessageID string     // the service's message id, when it gave one
	Status    ItemStatus // accepted, rejected or unknown
	Code      string     // the service's error code for a rejected item
	Error     string     // the service's reason for a rejected item, sanitised
}

// SendPairResult is the service's answer to a paired send. Items holds the
// per-item answers when the service gave them; otherwise it is empty and the
// whole request was accepted under BatchID — unless Unreadable is set.
type SendPairResult struct {
	BatchID string
	Items   []ItemResult
	// Unreadable marks a success answer the client cannot match to the items
	// for certain: content in a shape it does not know (neither per-item
	// results nor a batch id), or per-item results whose indexes or recipients
	// do not say for certain which item each is about. What the service took
	// is then not known.
	Unreadable bool
}

// DeliveryState is what GET /sms/{message_id}/status answers.
type DeliveryState string

// Delivery states as documented.
const (
	DeliveryPending   DeliveryState = "pending"
	DeliverySent      DeliveryState = "sent"
	DeliveryDelivered DeliveryState = "delivered"
	DeliveryFailed    DeliveryState = "failed"
	DeliveryRejected  DeliveryState = "rejected"
)

// DeliveryStatus is one message's delivery state.
type DeliveryStatus struct {
	MessageID string
	State     DeliveryState
	UpdatedAt time.Time // zero when the service did not say
}

// RateStatus is the client's view of the request budget, for status bars.
type RateStatus struct {
	Limit   int           // requests per Window the client paces itself to; 0: none
	Window  time.Duration // the budget's window: a minute unless the service said otherwise
	Learned bool          // Limit came from the service (announced, or counted before a 429), not the profile
	// WindowLearned: Window came from the service's Reset or Retry-After; else
	// it is the documented minute.
	WindowLearned bool
	Remaining     int           // requests the client may make now without waiting; -1 when unknown
	Waiting       time.Duration // how long the current request is waiting (0 if none)
	Reason        string        // why it is waiting: "rate limit" or "server asked (429)"
}

// PerMinute is the budget as requests per minute (0 when there is none).
func (s RateStatus) PerMinute() int {
	if s.Limit <= 0 || s.Window <= 0 {
		return 0
	}
	return int(math.Round(float64(s.Limit) * float64(time.Minute) / float64(s.Window)))
}

// Budget says the budget for people: "60 per minute", "20 per 2 s", "" when
// there is none.
func (s RateStatus) Budget() string {
	switch {
	case s.Limit <= 0 || s.Window <= 0:
		return ""
	case s.Window == time.Minute:
		return fmt.Sprintf("%d per minute", s.Limit)
	case s.Window%time.Minute == 0:
		return fmt.Sprintf("%d per %d min", s.Limit, s.Window/time.Minute)
	case s.Window%time.Second == 0:
		return fmt.Sprintf("%d per %d s", s.Limit, s.Window/time.Second)
	}
	return fmt.Sprintf("%d per %s", s.Limit, s.Window)
}

// ListProgress reports how far a multi-page list has come. Total is -1 when the
// service does not say. Contacts are the page just read, so a caller can show
// rows as they arrive; the slice is the caller's to keep.
type ListProgress struct {
	Loaded   int
	Total    int
	Page     int
	Contacts []model.Contact
}
