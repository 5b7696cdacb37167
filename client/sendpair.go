package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// SendPair sends each item's message to its recipient. It is retried only when
// the request provably did not reach the service (429, connection refused, not
// written). Once its bytes may have reached the service it is never retried: the
// error then matches ErrOutcomeUnknown. Errors matching ErrNotSent mean nothing
// was sent. errors.As finds the *APIError when the service answered.
//
// The result holds per-item answers mapped to request indexes (by the answer's
// index, by recipient — trailing 10 digits — or by position), or only a BatchID
// when the service accepted the whole request without per-item answers. Request
// items missing from Items were not reported on. POST /sms/send-pair
func (c *Client) SendPair(ctx context.Context, req SendPairRequest) (SendPairResult, error) {
	switch {
	case strings.TrimSpace(req.Sender) == "":
		return SendPairResult{}, errors.New("send-pair: the sender line is empty")
	case len(req.Items) == 0:
		return SendPairResult{}, errors.New("send-pair: no items to send")
	}
	key := req.IdempotencyKey
	if key == "" {
		key = newIdempotencyKey()
	}
	body, err := json.Marshal(req)
	if err != nil {
		return SendPairResult{}, fmt.Errorf("send-pair: %w", err)
	}
	r := &request{method: http.MethodPost, u: c.resolve("sms/send-pair"), body: body, idemKey: key, policy: retryUnsent}
	res, err := c.do(ctx, r)
	if err != nil {
		return SendPairResult{}, err
	}
	// The documented answer is read without a map per item; any other shape
	// goes to the tolerant reader below (both end in matchItems).
	if out, ok := c.readSendPairFast(res, req.Items); ok {
		return out, nil
	}
	v, err := c.decodeBody(r, res)
	if err != nil {
		var ae *APIError
		if errors.As(err, &ae) {
			return SendPairResult{}, err // success:false: the service refused the request
		}
		return SendPairResult{}, &outcomeError{kind: ErrOutcomeUnknown, err: err}
	}
	return c.sendResult(v, req.Items), nil
}

// sendResult reads a send-pair answer: per-item results under data.items,
// data.results, data.messages, a bare array or {"data":[…]}; or only a batch id.
func (c *Client) sendResult(v any, req []model.Pair) SendPairResult {
	var out SendPairResult
	var list []any
	found := false
	switch x := v.(type) {
	case []any:
		list, found = x, true
	case map[string]any:
		levels := []map[string]any{x}
		if d, ok := x["data"].(map[string]any); ok {
			levels = append([]map[string]any{d}, levels...)
		}
		for _, l := range levels {
			if out.BatchID == "" {
				out.BatchID = c.clean(idFrom(l, "batch_id", "batchId", "bulk_id", "job_id", "request_id", "id", "uuid", "batch").String(), 100)
			}
			if !found {
				for _, k := range []string{"items", "results", "messages", "data", "recipients"} {
					if l2, ok := l[k].([]any); ok {
						list, found = l2, true
						break
					}
				}
			}
			if !found {
				list, found = keyedByRecipient(l)
			}
		}
		if !found && len(req) == 1 && idFrom(levels[0], "message_id", "messageId") != "" {
			list, found = []any{levels[0]}, true
		}
	}
	if !found || len(list) == 0 {
		out.Unreadable = out.BatchID == "" && (found || !answerSaysNothing(v))
		return out
	}
	answers := make([]itemAnswer, len(list))
	for i, it := range list {
		answers[i] = itemAnswerOf(it)
	}
	out.Items = c.matchItems(answers, req)
	return out
}

// answerSaysNothing reports whether a success answer is a bare acknowledgement
// ({}, {"success":true,"message":"ok"}, {"data":null}, an empty body), as
// opposed to content in a shape the client cannot read.
func answerSaysNothing(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case map[string]any:
		for k, val := range x {
			switch k {
			case "success", "ok", "message", "status", "code":
				continue
			}
			if m, isMap := val.(map[string]any); val == nil || isMap && (len(m) == 0 || k == "data" && answerSaysNothing(m)) {
				continue
			}
			return false
		}
		return true
	}
	return false
}

// keyedByRecipient reads per-item answers given as an object keyed by
// recipient ({"results":{"0912…":{"status":…},…}}) under items, results,
// messages or recipients: every key a number, every value an object. The
// entries come out in key order, each with its key as "recipient" unless it
// names one itself.
func keyedByRecipient(l map[string]any) ([]any, bool) {
	for _, k := range []string{"items", "results", "messages", "recipients"} {
		m, ok := l[k].(map[string]any)
		if !ok || len(m) == 0 {
			continue
		}
		keys := slices.Sorted(maps.Keys(m))
		list := make([]any, 0, len(m))
		for _, rk := range keys {
			v, ok := m[rk].(map[string]any)
			if !ok || len(digitsKey(rk)) < 8 {
				list = nil
				break
			}
			entry := maps.Clone(v)
			if _, has := entry["recipient"]; !has {
				entry["recipient"] = rk
			}
			list = append(list, entry)
		}
		if list != nil {
			return list, true
		}
	}
	return nil, false
}

// matchRecipient finds the request index for a recipient key: the first unused
// one, else the first at all; -1 when none matches.
func matchRecipient(key string, keys []string, used []bool) int {
	first := -1
	for i, k := range keys {
		if k != key {
			continue
		}
		if !used[i] {
			return i
		}
		if first < 0 {
			first = i
		}
	}
	return first
}

// digitsKey compares numbers loosely: its ASCII, Persian or Arabic-Indic digits,
// the last 10 of them.
func digitsKey(s string) string {
	if asciiDigits(s) { // the usual case, without allocating
		return s[max(0, len(s)-10):]
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case r >= '۰' && r <= '۹':
			b.WriteRune('0' + r - '۰')
		case r >= '٠' && r <= '٩':
			b.WriteRune('0' + r - '٠')
		}
	}
	d := b.String()
	if len(d) > 10 {
		d = d[len(d)-10:]
	}
	return d
}

// asciiDigits reports whether s is all ASCII digits.
func asciiDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

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
	v, err := c.decodeBody(r, res)
	if err != nil {
		return DeliveryStatus{}, err
	}
	st := DeliveryStatus{MessageID: messageID}
	var word string
	switch x := unwrapData(v).(type) {
	case string:
		word = x
	case map[string]any:
		m := descend(x, "message", "sms")
		word = firstString(m, "status", "state", "delivery_status", "deliveryStatus")
		if id := idFrom(m, "message_id", "messageId", "id"); id != "" {
			st.MessageID = c.clean(id.String(), 100)
		}
		st.UpdatedAt = parseTime(m, "updated_at", "updatedAt", "delivered_at", "deliveredAt", "status_at", "timestamp")
	}
	if word == "" {
		return st, errorf(r.method, c.shortPath(r.u), "the answer holds no status; it starts %q", c.clean(string(res.body), 80))
	}
	st.State = deliveryState(c.clean(word, 40))
	return st, nil
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

// parseTime reads the first of keys as RFC 3339, "2006-01-02 15:04:05" or epoch
// seconds; zero when none reads.
func parseTime(m map[string]any, keys ...string) time.Time {
	for _, k := range keys {
		switch x := m[k].(type) {
		case string:
			for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05", "2006-01-02T15:04:05"} {
				if t, err := time.Parse(layout, strings.TrimSpace(x)); err == nil {
					return t
				}
			}
		case json.Number:
			if n, err := x.Int64(); err == nil && n > 0 {
				if n > 1e12 {
					return time.UnixMilli(n)
				}
				return time.Unix(n, 0)
			}
		}
	}
	return time.Time{}
}
