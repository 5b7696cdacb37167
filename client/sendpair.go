package client

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/smsdesk/smsdesk/model"
)

// SendPair sends each item's message to its recipient. It is retried only when
// the request provably did not reach the service (429, connection refused, not
// written). Once its bytes may have reached the service it is never retried: the
// error then matches ErrOutcomeUnknown. Errors matching ErrNotSent mean nothing
// was sent. errors.As finds the *APIError when the service answered.
//
// The result holds per-item answers mapped to request indexes for certain (see
// place), or only a BatchID when the service accepted the whole request
// without per-item answers. An answer that cannot be matched to the items for
// certain sets Unreadable instead: what the service took is then unknown.
// Request items missing from Items were not reported on. POST /sms/send-pair
func (c *Client) SendPair(ctx context.Context, req SendPairRequest) (SendPairResult, error) {
	switch {
	case strings.TrimSpace(req.Sender) == "":
		return SendPairResult{}, errors.New("send-pair: the sender line is empty")
	case len(req.Items) == 0:
		return SendPairResult{}, errors.New("send-pair: no items to send")
	}
	body, err := json.Marshal(req)
	if err != nil {
		return SendPairResult{}, fmt.Errorf("send-pair: %w", err)
	}
	key := cmp.Or(req.IdempotencyKey, newIdempotencyKey())
	r := &request{method: http.MethodPost, u: c.resolve("sms/send-pair"), body: body, idemKey: key, policy: retryUnsent}
	res, err := c.do(ctx, r)
	if err != nil {
		return SendPairResult{}, err
	}
	return c.readSendPair(r, res, req.Items)
}

// readSendPair reads a 2xx send-pair answer: the documented one, else any
// known shape. An answer that is not JSON leaves the outcome unknown.
func (c *Client) readSendPair(r *request, res *response, req []model.Pair) (SendPairResult, error) {
	if doc, ok := documented[sendJSON](res.body); ok && len(doc.Items) > 0 {
		answers := make([]itemAnswer, len(doc.Items))
		for i, it := range doc.Items {
			answers[i] = it.answer()
		}
		return c.sendResult(doc.BatchID, answers, req), nil
	}
	v, err := c.decodeBody(r, res)
	var ae *APIError
	switch {
	case errors.As(err, &ae):
		return SendPairResult{}, err // success:false: the service refused the request
	case err != nil:
		return SendPairResult{}, &outcomeError{kind: ErrOutcomeUnknown, err: err}
	}
	batch, list, found := sendAnswer(v, len(req))
	if !found || len(list) == 0 {
		// Without per-item answers: the whole request under the batch id,
		// unless the answer said something the client cannot read.
		unreadable := batch == "" && (found || !answerSaysNothing(v))
		return SendPairResult{BatchID: c.clean(batch, 100), Unreadable: unreadable}, nil
	}
	answers := make([]itemAnswer, len(list))
	for i, it := range list {
		answers[i] = itemAnswerOf(it)
	}
	return c.sendResult(batch, answers, req), nil
}

// sendJSON is the documented send-pair answer's data.
type sendJSON struct {
	BatchID  string         `json:"batch_id"`
	Accepted int            `json:"accepted"`
	Rejected int            `json:"rejected"`
	Items    []sendItemJSON `json:"items"`
}

// sendItemJSON is one item of the documented send-pair answer.
type sendItemJSON struct {
	Index     *int   `json:"index"`
	Recipient string `json:"recipient"`
	Status    string `json:"status"`
	MessageID string `json:"message_id"`
	ErrorCode string `json:"error_code"`
	Message   string `json:"message"`
}

func (j sendItemJSON) answer() itemAnswer {
	a := itemAnswer{object: true, recipient: j.Recipient, messageID: j.MessageID, code: j.ErrorCode, status: j.Status, message: j.Message}
	if j.Index != nil {
		a.index, a.hasIndex = *j.Index, true
	}
	return a.trimmed()
}

// sendAnswer finds the per-item answers and the batch id in a tolerant
// send-pair answer: a bare array; a list under an item-list name, at the top
// or in data; an object keyed by recipient under one; or, for a one-item
// request, a record with a message id.
func sendAnswer(v any, n int) (batch string, list []any, found bool) {
	if l, ok := v.([]any); ok {
		return "", l, true
	}
	top, ok := v.(map[string]any)
	if !ok {
		return "", nil, false
	}
	levels := []map[string]any{top}
	if d, ok := top["data"].(map[string]any); ok {
		levels = []map[string]any{d, top}
	}
	for _, l := range levels {
		batch = cmp.Or(batch, text(l, namesBatch...))
		if !found {
			list, found = listAt(l, namesItemList...)
		}
		if !found {
			list, found = keyedByRecipient(l)
		}
	}
	if !found && n == 1 && text(levels[0], "message_id") != "" {
		list, found = []any{levels[0]}, true
	}
	return batch, list, found
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
// recipient ({"results":{"0912…":{"status":…},…}}) under an item-list name:
// every key a number, every value an object. The entries come out in key
// order, each with its key as "recipient" unless it names one itself.
func keyedByRecipient(l map[string]any) ([]any, bool) {
	for _, k := range namesItemList {
		m, ok := find(l, k).(map[string]any)
		if !ok || len(m) == 0 {
			continue
		}
		list := make([]any, 0, len(m))
		for _, rk := range slices.Sorted(maps.Keys(m)) {
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
