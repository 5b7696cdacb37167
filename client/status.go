package client

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// MessageStatus returns a message's delivery state: pending, sent, delivered,
// failed or rejected (other words the service uses are mapped to these where
// their meaning is clear, else kept, lower-cased and sanitised).
// GET /sms/{message_id}/status
func (c *Client) MessageStatus(ctx context.Context, messageID string) (DeliveryStatus, error) {
	if strings.TrimSpace(messageID) == "" {
		return DeliveryStatus{}, errors.New("message status: the message id is empty")
	}
	r := &request{method: http.MethodGet, u: c.resolve("sms/" + url.PathEscape(messageID) + "/status"), policy: retrySafe}
	res, err := c.do(ctx, r)
	if err != nil {
		return DeliveryStatus{}, err
	}
	st := DeliveryStatus{MessageID: messageID}
	doc, ok := documented[statusJSON](res.body)
	if !ok {
		v, err := c.decodeBody(r, res)
		if err != nil {
			return st, err
		}
		doc = statusFrom(v)
	}
	if doc.Status == "" {
		return st, errorf(r.method, c.shortPath(r.u), "the answer holds no status; it starts %q", c.clean(string(res.body), 80))
	}
	st.MessageID = cmp.Or(c.clean(doc.MessageID, 100), st.MessageID)
	st.State = deliveryState(c.clean(doc.Status, 40))
	st.UpdatedAt = timeOf(doc.UpdatedAt)
	return st, nil
}

// statusJSON is the documented delivery status.
type statusJSON struct {
	MessageID string `json:"message_id"`
	Recipient string `json:"recipient"`
	Status    string `json:"status"`
	UpdatedAt any    `json:"updated_at"`
}

// statusFrom reads a tolerant status answer: a bare word, or a record (under
// data, message or sms) with a status, an id and a time.
func statusFrom(v any) statusJSON {
	if m, ok := v.(map[string]any); ok && textOf(m["data"]) != "" {
		v = m["data"]
	}
	if w := textOf(v); w != "" {
		return statusJSON{Status: w}
	}
	m := record(v, "message", "sms")
	st := statusJSON{Status: text(m, namesDelivery...), MessageID: text(m, "message_id", "id")}
	for _, n := range namesUpdatedAt {
		if t := find(m, n); !timeOf(t).IsZero() {
			st.UpdatedAt = t
			break
		}
	}
	return st
}

// deliveryState maps a service's word to a DeliveryState.
func deliveryState(w string) DeliveryState {
	w = strings.ToLower(strings.TrimSpace(w))
	switch w {
	case "pending", "queued", "accepted", "enroute", "scheduled", "processing", "sending", "buffered":
		return DeliveryPending
	case "sent", "submitted":
		return DeliverySent
	case "delivered", "delivrd", "success":
		return DeliveryDelivered
	case "failed", "undelivered", "undeliv", "expired", "error", "failure":
		return DeliveryFailed
	case "rejected", "blocked", "refused":
		return DeliveryRejected
	}
	return DeliveryState(w)
}

// timeOf reads a time given as RFC 3339, "2006-01-02 15:04:05" or epoch
// seconds (or milliseconds); zero when it does not read.
func timeOf(v any) time.Time {
	switch x := v.(type) {
	case string:
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05", "2006-01-02T15:04:05"} {
			if t, err := time.Parse(layout, strings.TrimSpace(x)); err == nil {
				return t
			}
		}
	case json.Number:
		if n, err := x.Int64(); err == nil && n > 1e12 {
			return time.UnixMilli(n)
		} else if err == nil && n > 0 {
			return time.Unix(n, 0)
		}
	}
	return time.Time{}
}
