package client

import (
	"cmp"
	"math"
	"strings"

	"github.com/smsdesk/smsdesk/model"
)

// itemAnswer is what one entry of a send-pair answer's item list says, trimmed,
// before sanitising and matching. The typed reader (sendItemJSON.answer) and
// the tolerant one (itemAnswerOf) both fill it; sendResult reads it.
type itemAnswer struct {
	object    bool   // a JSON object; else bare holds the entry, a message id
	bare      string //
	index     int    // the entry's own index, when hasIndex
	hasIndex  bool   //
	recipient string // as the service echoed it; "" when absent
	messageID string
	code      string // the entry's error code (or its error object's)
	reason    string // the reason given under "error" or a reason field
	message   string // "message": a reason, unless it echoes the SMS text
	status    string // the status word, lower-cased
	success   int8   // a "success" flag: 1 true, -1 false, 0 absent
}

// trimmed trims every field and lower-cases the status word.
func (a itemAnswer) trimmed() itemAnswer {
	for _, s := range []*string{&a.recipient, &a.messageID, &a.code, &a.reason, &a.message} {
		*s = strings.TrimSpace(*s)
	}
	a.status = strings.ToLower(strings.TrimSpace(a.status))
	return a
}

// itemAnswerOf reads one entry of a tolerant item list.
func itemAnswerOf(v any) itemAnswer {
	m, ok := v.(map[string]any)
	if !ok {
		return itemAnswer{bare: textOf(v)}
	}
	a := itemAnswer{
		object:    true,
		recipient: text(m, namesRecipient...),
		messageID: text(m, namesMessageID...),
		code:      text(m, namesCode...),
		status:    strings.ToLower(text(m, namesStatus...)),
		message:   text(m, "message", "msg"),
	}
	switch e := find(m, "error").(type) {
	case string:
		a.reason = strings.TrimSpace(e)
	case map[string]any:
		a.reason = text(e, namesReason...)
		a.code = cmp.Or(a.code, text(e, namesCode...))
	}
	a.reason = cmp.Or(a.reason, text(m, namesItemError...))
	if ok, isBool := find(m, "success").(bool); isBool {
		a.success = map[bool]int8{true: 1, false: -1}[ok]
	}
	a.index, a.hasIndex = number(m, math.MinInt, namesIndex...)
	return a
}

// sendResult places each answer on its request item and reads its verdict.
// When the answers cannot all be placed for certain, the result is
// Unreadable: nothing is guessed on an answer that decides money.
func (c *Client) sendResult(batch string, answers []itemAnswer, req []model.Pair) SendPairResult {
	out := SendPairResult{BatchID: c.clean(batch, 100)}
	at, ok := place(answers, req)
	if !ok {
		out.Unreadable = true
		return out
	}
	out.Items = make([]ItemResult, len(answers))
	for k := range answers {
		a, i := &answers[k], at[k]
		res := ItemResult{Index: i, Status: ItemUnknown, MessageID: c.clean(a.bare, 100)}
		if !a.object {
			if res.MessageID != "" {
				res.Status = ItemAccepted
			}
			out.Items[k] = res
			continue
		}
		res.Recipient = c.clean(a.recipient, 40)
		res.MessageID = c.clean(a.messageID, 100)
		res.Code = c.clean(a.code, 80)
		res.Error = c.clean(a.reason, 300)
		res.Status = a.verdict(res.Error != "" || res.Code != "", res.MessageID != "")
		if res.Status == ItemRejected && res.Error == "" {
			res.Error = c.clean(rejectionMessage(a.message, req[i].Message), 300)
		}
		out.Items[k] = res
	}
	return out
}

// place finds, for each answer, the request item it is about — for certain,
// or not at all (ok false):
//   - by its index, only when the answers make the base plain: an index 0
//     appears (0-based), or the indexes are exactly 1..n, one per answer
//     (1-based); the item must exist and have the number the answer echoes,
//     if it echoes one;
//   - an answer without an index, by the number it echoes, when exactly one
//     item has that number;
//   - else by position, when the answer is a list of exactly n entries in
//     request order (no indexes, every echoed number at its own position);
//
// and no item may be answered twice.
func place(list []itemAnswer, req []model.Pair) (at []int, ok bool) {
	n := len(req)
	keys := make([]string, n)
	for i, p := range req {
		keys[i] = digitsKey(p.Recipient)
	}
	base, indexed := indexBase(list, n)
	inOrder := len(list) == n && !indexed
	for pos := range list {
		if r := digitsKey(list[pos].recipient); inOrder && r != "" && r != keys[pos] {
			inOrder = false
		}
	}
	at = make([]int, len(list))
	taken := make([]bool, n)
	for pos := range list {
		i := list[pos].place(pos, base, inOrder, keys)
		if i < 0 || taken[i] {
			return nil, false
		}
		taken[i], at[pos] = true, i
	}
	return at, true
}

// place is the request index of the answer at pos (see place), or -1.
func (a *itemAnswer) place(pos, base int, inOrder bool, keys []string) int {
	rkey := digitsKey(a.recipient)
	switch {
	case a.hasIndex:
		i := a.index - base
		if base < 0 || i < 0 || i >= len(keys) || rkey != "" && rkey != keys[i] {
			return -1
		}
		return i
	case rkey != "":
		return onlyIndex(keys, rkey)
	case inOrder:
		return pos
	}
	return -1
}

// indexBase is 0 when an index 0 appears, 1 when the indexes are exactly 1..n
// (one per answer), else -1; indexed reports whether any answer has an index.
func indexBase(list []itemAnswer, n int) (base int, indexed bool) {
	seen := make([]bool, n+1)
	distinct := 0
	for _, a := range list {
		switch {
		case !a.hasIndex:
			continue
		case a.index == 0:
			return 0, true
		case a.index >= 1 && a.index <= n && !seen[a.index]:
			seen[a.index] = true
			distinct++
		}
		indexed = true
	}
	if distinct == n && len(list) == n {
		return 1, true
	}
	return -1, indexed
}

// onlyIndex is the position of key in keys when it appears exactly once, else -1.
func onlyIndex(keys []string, key string) int {
	at := -1
	for i, k := range keys {
		if k == key {
			if at >= 0 {
				return -1
			}
			at = i
		}
	}
	return at
}

// verdict decides an answer's status: its status word when known, else its
// success flag, else rejected when it gives an error or a code, else accepted
// when it has a message id and no status word at all.
func (a *itemAnswer) verdict(hasError, hasID bool) ItemStatus {
	switch {
	case acceptedWords[a.status]:
		return ItemAccepted
	case rejectedWords[a.status]:
		return ItemRejected
	case a.status == "" && a.success != 0:
		return map[bool]ItemStatus{true: ItemAccepted, false: ItemRejected}[a.success > 0]
	case hasError:
		return ItemRejected
	case a.status == "" && hasID:
		return ItemAccepted
	}
	return ItemUnknown
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

// digitsKey compares numbers loosely: their ASCII, Persian or Arabic-Indic
// digits, the last 10 of them.
func digitsKey(s string) string {
	var b []byte
	for _, r := range s {
		switch {
		case '0' <= r && r <= '9':
			b = append(b, byte(r))
		case '۰' <= r && r <= '۹':
			b = append(b, byte('0'+r-'۰'))
		case '٠' <= r && r <= '٩':
			b = append(b, byte('0'+r-'٠'))
		}
	}
	return string(b[max(0, len(b)-10):])
}
