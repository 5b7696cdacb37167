package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
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
		}
		if !found && len(req) == 1 && idFrom(levels[0], "message_id", "messageId") != "" {
			list, found = []any{levels[0]}, true
		}
	}
	if !found {
		return out
	}
	out.Items = c.matchItems(list, req)
	return out
}

// matchItems reads each item's answer and maps it to a request index.
func (c *Client) matchItems(list []any, req []model.Pair) []ItemResult {
	n := len(req)
	keys := make([]string, n)
	for i, p := range req {
		keys[i] = digitsKey(p.Recipient)
	}
	used := make([]bool, n)
	// Indexes may be 0- or 1-based: 1-based when none is 0 and one is n.
	oneBased, sawZero, sawN := false, false, false
	for _, it := range list {
		if m, ok := it.(map[string]any); ok {
			if i, ok := indexOf(m); ok {
				sawZero = sawZero || i == 0
				sawN = sawN || i == n
			}
		}
	}
	oneBased = !sawZero && sawN
	out := make([]ItemResult, 0, len(list))
	for pos, it := range list {
		res := ItemResult{Index: -1, Status: ItemUnknown}
		m, ok := it.(map[string]any)
		if !ok {
			// A bare message id per item, in request order.
			if id := idValue(it); id != "" && len(list) == n {
				res.Index, res.MessageID, res.Status = pos, c.clean(id.String(), 100), ItemAccepted
			}
			out = append(out, res)
			continue
		}
		c.readItem(m, &res)
		rkey := digitsKey(res.Recipient)
		if i, ok := indexOf(m); ok {
			if oneBased {
				i--
			}
			if i >= 0 && i < n && (rkey == "" || rkey == keys[i]) {
				res.Index = i
			}
		}
		if res.Index < 0 && rkey != "" {
			res.Index = matchRecipient(rkey, keys, used)
		}
		if res.Index < 0 && rkey == "" && len(list) == n {
			res.Index = pos
		}
		if res.Index >= 0 {
			used[res.Index] = true
			if res.Status == ItemRejected && res.Error == "" {
				res.Error = c.clean(rejectionMessage(m, req[res.Index].Message), 300)
			}
		}
		out = append(out, res)
	}
	return out
}

// readItem takes an item answer's recipient, message id, status and error.
func (c *Client) readItem(m map[string]any, res *ItemResult) {
	res.Recipient = c.clean(firstString(m, "recipient", "mobile", "to", "number", "phone", "receptor", "msisdn"), 40)
	res.MessageID = c.clean(idFrom(m, "message_id", "messageId", "messageid", "msg_id", "id", "uuid").String(), 100)
	res.Code = c.clean(firstString(m, "error_code", "errorCode", "code"), 80)
	var errText string
	switch e := m["error"].(type) {
	case string:
		errText = e
	case map[string]any:
		errText = firstString(e, "message", "detail", "description")
		if res.Code == "" {
			res.Code = c.clean(firstString(e, "code", "error_code"), 80)
		}
	}
	if errText == "" {
		errText = firstString(m, "reason", "error_message", "errorMessage", "description", "detail", "status_text")
	}
	res.Error = c.clean(errText, 300)
	st := strings.ToLower(firstString(m, "status", "state", "result"))
	switch {
	case acceptedWords[st]:
		res.Status = ItemAccepted
	case rejectedWords[st]:
		res.Status = ItemRejected
	case st == "":
		if b, ok := m["success"].(bool); ok {
			res.Status = map[bool]ItemStatus{true: ItemAccepted, false: ItemRejected}[b]
		} else if res.Error != "" || res.Code != "" {
			res.Status = ItemRejected
		} else if res.MessageID != "" {
			res.Status = ItemAccepted
		}
	default: // a status word we do not know
		if res.Error != "" || res.Code != "" {
			res.Status = ItemRejected
		}
	}
}

var (
	acceptedWords = wordSet("accepted", "queued", "sent", "pending", "success", "successful", "ok", "delivered", "submitted", "enroute", "scheduled", "processing", "sending", "buffered")
	rejectedWords = wordSet("rejected", "failed", "failure", "fail", "error", "invalid", "refused", "blocked", "undeliverable")
)

func wordSet(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// rejectionMessage uses an item's "message" as its reason unless it is the
// echoed SMS text.
func rejectionMessage(m map[string]any, sent string) string {
	if s := firstString(m, "message", "msg"); s != "" && s != strings.TrimSpace(sent) {
		return s
	}
	return ""
}

// indexOf reads an item's explicit index.
func indexOf(m map[string]any) (int, bool) {
	for _, k := range []string{"index", "idx", "position", "item_index", "itemIndex"} {
		var s string
		switch x := m[k].(type) {
		case json.Number:
			s = x.String()
		case string:
			s = x
		default:
			continue
		}
		if i, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
			return i, true
		}
	}
	return 0, false
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
