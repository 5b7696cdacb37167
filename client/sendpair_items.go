package client

import (
	"strings"

	"github.com/smsdesk/smsdesk/model"
)

// itemAnswer is what one entry of a send-pair answer's item list says, before
// sanitising and matching. Two readers fill it: itemAnswerOf from a decoded
// JSON value (any shape), and scanSendPair for the documented shape. Both hand
// their answers to matchItems, so they cannot disagree on what an entry means.
type itemAnswer struct {
	object    bool     // the entry is a JSON object (else bare holds its id, if any)
	bare      model.ID // a bare message id standing for the entry
	recipient string   // trimmed, as the service echoed it; "" when absent
	messageID string   // trimmed
	code      string   // the entry's own error code
	errObject bool     // "error" is an object; errCode is its code
	errCode   string
	errText   string // the reason, from "error" or one of the reason fields
	status    string // the status word, trimmed and lower-cased
	success   int8   // a "success" flag: 1 true, -1 false, 0 absent
	index     int
	hasIndex  bool   // index holds an explicit index
	message   string // "message" or "msg": a reason, unless it echoes the SMS text
}

// itemAnswerOf reads one entry of a decoded item list in any field spelling.
func itemAnswerOf(v any) itemAnswer {
	m, ok := v.(map[string]any)
	if !ok {
		return itemAnswer{bare: idValue(v)}
	}
	a := itemAnswer{
		object:    true,
		recipient: firstString(m, "recipient", "mobile", "to", "number", "phone", "receptor", "msisdn"),
		messageID: idFrom(m, "message_id", "messageId", "messageid", "msg_id", "id", "uuid").String(),
		code:      firstString(m, "error_code", "errorCode", "code"),
		status:    strings.ToLower(firstString(m, "status", "state", "result")),
		message:   firstString(m, "message", "msg"),
	}
	switch e := m["error"].(type) {
	case string:
		a.errText = e
	case map[string]any:
		a.errText = firstString(e, "message", "detail", "description")
		a.errObject, a.errCode = true, firstString(e, "code", "error_code")
	}
	if a.errText == "" {
		a.errText = firstString(m, "reason", "error_message", "errorMessage", "description", "detail", "status_text")
	}
	if b, ok := m["success"].(bool); ok {
		a.success = -1
		if b {
			a.success = 1
		}
	}
	a.index, a.hasIndex = indexOf(m)
	return a
}

// matchItems turns each item answer into an ItemResult mapped to a request
// index: by the answer's index (0- or 1-based), by recipient, or by position.
func (c *Client) matchItems(list []itemAnswer, req []model.Pair) []ItemResult {
	n := len(req)
	keys := make([]string, n)
	for i, p := range req {
		keys[i] = digitsKey(p.Recipient)
	}
	used := make([]bool, n)
	// Indexes may be 0- or 1-based: 1-based when none is 0 and one is n.
	sawZero, sawN := false, false
	for i := range list {
		if a := &list[i]; a.object && a.hasIndex {
			sawZero = sawZero || a.index == 0
			sawN = sawN || a.index == n
		}
	}
	oneBased := !sawZero && sawN
	out := make([]ItemResult, 0, len(list))
	for pos := range list {
		a := &list[pos]
		res := ItemResult{Index: -1, Status: ItemUnknown}
		if !a.object {
			// A bare message id per item, in request order.
			if a.bare != "" && len(list) == n {
				res.Index, res.MessageID, res.Status = pos, c.clean(a.bare.String(), 100), ItemAccepted
			}
			out = append(out, res)
			continue
		}
		c.readItem(a, &res)
		rkey := digitsKey(res.Recipient)
		if a.hasIndex {
			i := a.index
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
				res.Error = c.clean(rejectionMessage(a.message, req[res.Index].Message), 300)
			}
		}
		out = append(out, res)
	}
	return out
}

// readItem sanitises an item answer's recipient, message id, code and error
// and decides its status.
func (c *Client) readItem(a *itemAnswer, res *ItemResult) {
	res.Recipient = c.cleanWord(a.recipient, 40)
	res.MessageID = c.cleanWord(a.messageID, 100)
	res.Code = c.cleanWord(a.code, 80)
	if a.errObject && res.Code == "" {
		res.Code = c.cleanWord(a.errCode, 80)
	}
	res.Error = c.cleanWord(a.errText, 300)
	st := a.status
	switch {
	case acceptedWords[st]:
		res.Status = ItemAccepted
	case rejectedWords[st]:
		res.Status = ItemRejected
	case st == "":
		if a.success != 0 {
			res.Status = map[bool]ItemStatus{true: ItemAccepted, false: ItemRejected}[a.success > 0]
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

// cleanWord is c.clean, faster for what most item fields hold: nothing, or
// one short word of printable ASCII (a number, an id, a code), which clean
// would return unchanged unless it holds the key. FuzzCleanWord checks that
// it always agrees with clean.
func (c *Client) cleanWord(s string, max int) string {
	if s == "" {
		return ""
	}
	if len(s) > max || strings.Contains(s, "sk_") || len(c.key) >= 4 && strings.Contains(s, c.key) {
		return c.clean(s, max)
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return c.clean(s, max)
		}
	}
	return s
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
func rejectionMessage(msg, sent string) string {
	if msg != "" && msg != strings.TrimSpace(sent) {
		return msg
	}
	return ""
}

// indexOf reads an item's explicit index.
func indexOf(m map[string]any) (int, bool) {
	for _, k := range []string{"index", "idx", "position", "item_index", "itemIndex"} {
		if i, ok := intOf(m[k]); ok {
			return i, true
		}
	}
	return 0, false
}
