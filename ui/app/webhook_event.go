package app

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/model"
)

// webhookPayload is a webhook event as the service posts it:
// {"event", "message_id", "recipient", "occurred_at"}, "status":
// "rejected" on an sms.failed the service refused, and, on sms.inbound
// (undocumented), the obvious names for who wrote, to which line, what.
type webhookPayload struct {
	Event      string          `json:"event"`
	MessageID  flexString      `json:"message_id"`
	Recipient  flexString      `json:"recipient"`
	OccurredAt flexString      `json:"occurred_at"`
	Status     string          `json:"status"`
	Sender     flexString      `json:"sender"`
	From       flexString      `json:"from"`
	Mobile     flexString      `json:"mobile"`
	To         flexString      `json:"to"`
	Line       flexString      `json:"line"`
	Message    string          `json:"message"`
	Text       string          `json:"text"`
	Body       string          `json:"body"`
	Data       *webhookPayload `json:"data"`
}

// flexString reads a JSON string or number as its text (an id or a
// number the service may write either way); null is "".
type flexString string

// UnmarshalJSON implements json.Unmarshaler.
func (f *flexString) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		*f = ""
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*f = flexString(s)
	default:
		var n json.Number
		if err := json.Unmarshal(b, &n); err != nil {
			return fmt.Errorf("not a string or a number")
		}
		*f = flexString(n.String())
	}
	return nil
}

// ReadWebhookEvent reads a webhook body as an event for the ledger: its
// kind and message id are needed (an inbound message without an id is
// known by its body's digest: the service's second post of it has the same
// body); the time is read from RFC 3339, "2006-01-02 15:04:05" (UTC) or
// Unix seconds, and left out when it is none of them. An event kind this
// version does not know is kept, and changes nothing. NUL characters are
// dropped from every field (a database text cannot hold them).
func ReadWebhookEvent(raw []byte) (ledger.Event, error) {
	var p webhookPayload
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&p); err != nil {
		return ledger.Event{}, fmt.Errorf("the body is not a JSON object of an event: %s", model.SanitizeLine(err.Error()))
	}
	if p.Event == "" && p.Data != nil { // an envelope: {"data": {…}}
		p = *p.Data
	}
	e := ledger.Event{Kind: clean(p.Event), MessageID: clean(string(p.MessageID)), Status: clean(p.Status),
		Recipient: clean(string(p.Recipient)), OccurredAt: parseEventTime(clean(string(p.OccurredAt))), Body: raw}
	if e.Kind == "" {
		return ledger.Event{}, errors.New(`the body has no "event"`)
	}
	if len(e.Kind) > 64 || len(e.MessageID) > 200 {
		return ledger.Event{}, errors.New("the event's kind or message id is too long to be one")
	}
	if e.Kind == ledger.EventInbound {
		e.Inbound = &ledger.Inbound{
			Sender:  canonicalMobile(first(p.Sender, p.From, p.Mobile)),
			Line:    clean(string(first(p.Recipient, p.To, p.Line))),
			Message: clean(firstText(p.Message, p.Text, p.Body)),
		}
		if e.MessageID == "" {
			sum := sha256.Sum256(raw)
			e.MessageID = "sha256:" + hex.EncodeToString(sum[:16])
		}
	}
	if e.MessageID == "" {
		return ledger.Event{}, errors.New(`the body has no "message_id"`)
	}
	return e, nil
}

// clean drops NUL characters and the spaces around.
func clean(s string) string { return strings.TrimSpace(strings.ReplaceAll(s, "\x00", "")) }

func first(list ...flexString) flexString {
	for _, s := range list {
		if strings.TrimSpace(string(s)) != "" {
			return s
		}
	}
	return ""
}

func firstText(list ...string) string {
	for _, s := range list {
		if s != "" {
			return s
		}
	}
	return ""
}

// canonicalMobile is a number as the ledger keys it (model.OptOutKey), or
// as written when it does not read as one.
func canonicalMobile(s flexString) string {
	n := clean(string(s))
	if k, err := model.OptOutKey(n); err == nil {
		return k
	}
	return n
}

// parseEventTime reads the service's time of an event (zero: none).
func parseEventTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05", "2006-01-02T15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 1e9 && n < 1e10 {
		return time.Unix(n, 0).UTC()
	}
	return time.Time{}
}
