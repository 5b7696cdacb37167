package sandbox

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxMessageRunes is the longest message the service takes, in characters.
const MaxMessageRunes = 600

// Delivery states GET /sms/{message_id}/status answers.
const (
	StatusPending   = "pending"
	StatusSent      = "sent"
	StatusDelivered = "delivered"
	StatusFailed    = "failed"
)

// sendItemJSON is one item of a send-pair answer.
type sendItemJSON struct {
	Index     int    `json:"index"`
	Recipient string `json:"recipient"`
	Status    string `json:"status"`
	MessageID string `json:"message_id,omitempty"`
	ErrorCode string `json:"error_code,omitempty"`
	Message   string `json:"message,omitempty"`
}

type sendJSON struct {
	BatchID  string         `json:"batch_id"`
	Items    []sendItemJSON `json:"items"`
	Accepted int            `json:"accepted"`
	Rejected int            `json:"rejected"`
}

// sendPair: POST /sms/send-pair {sender, items:[{recipient, message}]} → 200
// with a verdict per item.
func (s *Server) sendPair(w http.ResponseWriter, r *http.Request, _ []string) {
	var req struct {
		Sender json.RawMessage `json:"sender"`
		Items  []struct {
			Recipient json.RawMessage `json:"recipient"`
			Message   json.RawMessage `json:"message"`
		} `json:"items"`
	}
	if !readJSON(w, r, &req) {
		return
	}
	errs := map[string][]string{}
	sender := textField(req.Sender, "sender", 64, true, errs)
	if len(req.Items) == 0 {
		errs["items"] = []string{"The items field is required and must hold at least one item."}
	}
	if len(errs) > 0 {
		validationError(w, errs)
		return
	}
	if len(req.Items) > s.opts.MaxItems {
		writeError(w, http.StatusUnprocessableEntity, "too_many_items",
			fmt.Sprintf("%d items in one request; at most %d are allowed, send smaller chunks", len(req.Items), s.opts.MaxItems),
			map[string][]string{"items": {fmt.Sprintf("The items may not have more than %d items.", s.opts.MaxItems)}})
		return
	}
	if !s.senders[sender] {
		writeError(w, http.StatusForbidden, "sender_not_allowed",
			fmt.Sprintf("sender %q is not a line of this account; use one of the account's sender lines", sender), nil)
		return
	}

	out := sendJSON{Items: make([]sendItemJSON, len(req.Items))}
	texts := make([]string, len(req.Items))
	for i, it := range req.Items {
		out.Items[i] = checkItem(i, it.Recipient, it.Message, &texts[i])
	}

	s.mu.Lock()
	var need int64
	for i := range out.Items {
		if out.Items[i].Status == "accepted" {
			need += messageParts(texts[i])
		}
	}
	if have := s.state.credit(); !s.state.charge(need) {
		s.mu.Unlock()
		insufficientCredit(w, need, have)
		return
	}
	now := s.opts.Now()
	st := s.state
	out.BatchID = fmt.Sprintf("batch_%d", st.NextBatchID)
	st.NextBatchID++
	var accepted []*message
	for i := range out.Items {
		it := &out.Items[i]
		if it.Status != "accepted" {
			out.Rejected++
			continue
		}
		m := &message{ID: fmt.Sprintf("msg_%d", st.NextMessageID), BatchID: out.BatchID,
			Sender: sender, Recipient: it.Recipient, Message: texts[i], At: now}
		st.NextMessageID++
		st.Messages = append(st.Messages, m)
		st.messageByID[m.ID] = m
		it.MessageID = m.ID
		out.Accepted++
		accepted = append(accepted, m)
	}
	s.mu.Unlock()
	s.changed()
	wall := time.Now()
	for _, m := range accepted {
		s.scheduleEvents(m, wall)
	}
	writeData(w, http.StatusOK, out, nil)
}

// checkItem validates one item. An accepted item's recipient is normalised
// (09…) and its text stored in *text; a rejected one echoes the recipient as sent.
func checkItem(i int, rawRecipient, rawMessage json.RawMessage, text *string) sendItemJSON {
	recipient, ok := jsonText(rawRecipient)
	it := sendItemJSON{Index: i, Recipient: recipient, Status: "rejected"}
	if !ok {
		it.ErrorCode, it.Message = "invalid_recipient", "recipient must be a string"
		return it
	}
	mobile, reason := iranianMobile(recipient)
	if reason != "" {
		it.ErrorCode, it.Message = "invalid_recipient", reason
		return it
	}
	it.Recipient = mobile
	msg, ok := jsonText(rawMessage)
	switch n := utf8.RuneCountInString(msg); {
	case !ok:
		it.ErrorCode, it.Message = "invalid_message", "message must be a string"
	case strings.TrimSpace(msg) == "":
		it.ErrorCode, it.Message = "empty_message", "message is empty"
	case n > MaxMessageRunes:
		it.ErrorCode, it.Message = "message_too_long", fmt.Sprintf("message is %d characters; at most %d", n, MaxMessageRunes)
	default:
		it.Status, *text = "accepted", msg
	}
	return it
}

// jsonText reads a JSON string (or, for lenience, a number's digits); missing
// and null read as "".
func jsonText(raw json.RawMessage) (string, bool) {
	t := strings.TrimSpace(string(raw))
	switch {
	case t == "" || t == "null":
		return "", true
	case t[0] == '"':
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err == nil
	case t[0] >= '0' && t[0] <= '9':
		var n json.Number
		err := json.Unmarshal(raw, &n)
		return n.String(), err == nil
	}
	return "", false
}

// statusJSON is the answer of GET /sms/{message_id}/status.
type statusJSON struct {
	MessageID string `json:"message_id"`
	Recipient string `json:"recipient"`
	Status    string `json:"status"`
	UpdatedAt string `json:"updated_at"`
}

// messageStatus: GET /sms/{message_id}/status.
func (s *Server) messageStatus(w http.ResponseWriter, _ *http.Request, seg []string) {
	s.mu.Lock()
	m := s.state.messageByID[seg[1]]
	var out statusJSON
	if m != nil {
		st, at := deliveryState(m.ID, m.Recipient, m.At, s.opts.Now(), s.opts.DeliveryDelay, s.opts.failPercent())
		out = statusJSON{MessageID: m.ID, Recipient: m.Recipient, Status: st, UpdatedAt: timestamp(at)}
	}
	s.mu.Unlock()
	if m == nil {
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("message %q not found", seg[1]), nil)
		return
	}
	writeData(w, http.StatusOK, out, nil)
}

// deliveryState is where a message accepted at `at` stands at `now`: pending for
// one delay step, then sent, then after one or two more steps (chosen by the id's
// hash) delivered — or failed, for recipients ending in 0000 and for
// failPct% of ids by hash (5 by default: Options.DeliveredShare). A negative
// step makes the final state immediate. The outcome depends only on the id
// and recipient, so it is stable across runs.
func deliveryState(id, recipient string, at, now time.Time, step time.Duration, failPct uint32) (string, time.Time) {
	h := fnv.New32a()
	h.Write([]byte(id))
	sum := h.Sum32()
	final := StatusDelivered
	if strings.HasSuffix(recipient, "0000") || sum%100 < failPct {
		final = StatusFailed
	}
	if step < 0 {
		return final, at
	}
	sentAt := at.Add(step)
	finalAt := sentAt.Add(step * time.Duration(1+(sum/100)%2))
	switch {
	case now.Before(sentAt):
		return StatusPending, at
	case now.Before(finalAt):
		return StatusSent, sentAt
	}
	return final, finalAt
}
