package client

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/smsdesk/smsdesk/model"
)

// readSendPairFast reads a 2xx send-pair answer in the documented shape (see
// scanSendPair); ok is false for any other answer, which the caller then reads
// with decodeBody and sendResult. Where it says ok, its result is what that
// tolerant path gives (TestReadSendPairFast_SameAsGeneric, FuzzReadSendPairFast).
func (c *Client) readSendPairFast(res *response, req []model.Pair) (SendPairResult, bool) {
	b := bytes.TrimSpace(res.body)
	if len(b) == 0 || looksHTML(res.header, b) {
		return SendPairResult{}, false
	}
	batch, answers, ok := scanSendPair(b)
	if !ok || len(answers) == 0 {
		return SendPairResult{}, false // no items: the tolerant reader decides what that means
	}
	return SendPairResult{BatchID: c.clean(batch, 100), Items: c.matchItems(answers, req)}, true
}

// scanSendPair reads the documented send-pair answer, and only that:
//
//	{"success":true,"data":{"batch_id":"…","accepted":N,"rejected":N,"items":[
//	  {"index":N,"recipient":"…","status":"…","message_id":"…","error_code":"…","message":"…"},…]},
//	 "message":null}
//
// keys in any order; "accepted", "rejected", "message", "batch_id" and any item
// key may be missing; string fields may be null. It returns the raw batch id
// and one itemAnswer per item, filled exactly as itemAnswerOf would fill it
// from the decoded value. Anything else — another key, another type, a
// duplicate key, success other than true, no items list, bad JSON — gives
// ok=false, and the caller falls back to the tolerant reader.
//
// It exists because decoding every answer into map[string]any costs more than
// the rest of a send (BENCHMARKS.md, "send engine").
func scanSendPair(b []byte) (batch string, items []itemAnswer, ok bool) {
	s := scanner{b: b}
	s.ws()
	if !s.eat('{') {
		return "", nil, false
	}
	var seen, dataSeen uint8
	for first := true; ; first = false {
		key, more, ok := s.nextKey(first)
		if !ok {
			return "", nil, false
		}
		if !more {
			break
		}
		var bit uint8
		switch string(key) {
		case "success":
			bit, ok = 1, s.literal("true")
		case "message":
			bit = 2
			_, _, ok = s.nullableString()
		case "data":
			bit = 4
			batch, items, dataSeen, ok = s.data()
		default:
			return "", nil, false
		}
		if !ok || seen&bit != 0 {
			return "", nil, false
		}
		seen |= bit
	}
	s.ws()
	if s.i != len(s.b) || seen&1 == 0 || seen&4 == 0 || dataSeen&8 == 0 {
		return "", nil, false
	}
	return batch, items, true
}

// data reads the "data" object; seen has bit 8 set when it held "items".
func (s *scanner) data() (batch string, items []itemAnswer, seen uint8, ok bool) {
	if !s.eat('{') {
		return "", nil, 0, false
	}
	for first := true; ; first = false {
		key, more, ok := s.nextKey(first)
		if !ok {
			return "", nil, 0, false
		}
		if !more {
			return batch, items, seen, true
		}
		var bit uint8
		switch string(key) {
		case "batch_id":
			bit = 1
			batch, _, ok = s.nullableString()
			batch = strings.TrimSpace(batch)
		case "accepted", "rejected":
			bit = 2
			if string(key) == "rejected" {
				bit = 4
			}
			_, ok = s.number()
		case "items":
			bit = 8
			items, ok = s.items()
		default:
			return "", nil, 0, false
		}
		if !ok || seen&bit != 0 {
			return "", nil, 0, false
		}
		seen |= bit
	}
}

// items reads the item list: objects only.
func (s *scanner) items() ([]itemAnswer, bool) {
	if !s.eat('[') {
		return nil, false
	}
	out := make([]itemAnswer, 0, 100)
	for first := true; ; first = false {
		s.ws()
		if s.eat(']') {
			return out, true
		}
		if !first {
			if !s.eat(',') {
				return nil, false
			}
			s.ws()
		}
		out = append(out, itemAnswer{object: true})
		if !s.item(&out[len(out)-1]) {
			return nil, false
		}
	}
}

// item reads one item object into a, with itemAnswerOf's trimming rules.
func (s *scanner) item(a *itemAnswer) bool {
	if !s.eat('{') {
		return false
	}
	var seen uint8
	for first := true; ; first = false {
		key, more, ok := s.nextKey(first)
		if !ok {
			return false
		}
		if !more {
			return true
		}
		var bit uint8
		var str string
		switch string(key) {
		case "index":
			bit = 1
			if s.literal("null") {
				break
			}
			var lit []byte
			if lit, ok = s.number(); ok {
				i, err := strconv.Atoi(string(lit))
				a.index, a.hasIndex = i, err == nil
			}
		case "recipient":
			bit = 2
			str, _, ok = s.nullableString()
			a.recipient = strings.TrimSpace(str)
		case "status":
			bit = 4
			var raw []byte
			if raw, _, ok = s.nullableBytes(); ok {
				a.status = statusWord(raw)
			}
		case "message_id":
			bit = 8
			str, _, ok = s.nullableString()
			a.messageID = strings.TrimSpace(str)
		case "error_code":
			bit = 16
			str, _, ok = s.nullableString()
			a.code = strings.TrimSpace(str)
		case "message":
			bit = 32
			str, _, ok = s.nullableString()
			a.message = strings.TrimSpace(str)
		default:
			return false
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
	}
}

// scanner walks one JSON text strictly (RFC 8259 syntax).
type scanner struct {
	b []byte
	i int
}

// ws skips JSON whitespace.
func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// eat consumes c if it comes next.
func (s *scanner) eat(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// literal consumes the literal word (true, null) if it comes next.
func (s *scanner) literal(w string) bool {
	if len(s.b)-s.i >= len(w) && string(s.b[s.i:s.i+len(w)]) == w {
		s.i += len(w)
		return true
	}
	return false
}

// nextKey reads the next key of an object whose "{" is consumed (or the
// object's end: more=false), and the ":" after it. first says no member has
// been read yet.
func (s *scanner) nextKey(first bool) (key []byte, more, ok bool) {
	s.ws()
	if s.eat('}') {
		return nil, false, true
	}
	if !first {
		if !s.eat(',') {
			return nil, false, false
		}
		s.ws()
	}
	if key, ok = s.strBytes(); !ok {
		return nil, false, false
	}
	s.ws()
	if !s.eat(':') {
		return nil, false, false
	}
	s.ws()
	return key, true, true
}

// nullableString reads a string or null (null reads as "", isNull).
func (s *scanner) nullableString() (str string, isNull, ok bool) {
	b, isNull, ok := s.nullableBytes()
	return string(b), isNull, ok
}

// nullableBytes is nullableString without the copy.
func (s *scanner) nullableBytes() (b []byte, isNull, ok bool) {
	if s.literal("null") {
		return nil, true, true
	}
	b, ok = s.strBytes()
	return b, false, ok
}

// statusWord is an item's status trimmed and lower-cased, as itemAnswerOf
// reads it; the documented words come without an allocation.
func statusWord(raw []byte) string {
	switch string(raw) {
	case "accepted":
		return "accepted"
	case "rejected":
		return "rejected"
	}
	return strings.ToLower(strings.TrimSpace(string(raw)))
}

// str reads a JSON string.
func (s *scanner) str() (string, bool) {
	b, ok := s.strBytes()
	return string(b), ok
}

// strBytes reads a JSON string. Plain valid UTF-8 is returned as it stands in
// the body (no copy); anything with an escape or invalid UTF-8 is decoded by
// encoding/json, so it reads exactly as the generic reader would read it.
func (s *scanner) strBytes() ([]byte, bool) {
	if !s.eat('"') {
		return nil, false
	}
	start, escaped := s.i, false
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c == '"':
			raw := s.b[start:s.i]
			s.i++
			if !escaped && utf8.Valid(raw) {
				return raw, true
			}
			var out string
			if json.Unmarshal(s.b[start-1:s.i], &out) != nil {
				return nil, false
			}
			return []byte(out), true
		case c == '\\':
			escaped = true
			s.i += 2
		case c < 0x20:
			return nil, false
		default:
			s.i++
		}
	}
	return nil, false
}

// number reads a JSON number and returns its text.
func (s *scanner) number() ([]byte, bool) {
	start := s.i
	s.eat('-')
	switch {
	case s.eat('0'):
	case s.i < len(s.b) && s.b[s.i] >= '1' && s.b[s.i] <= '9':
		s.digits()
	default:
		return nil, false
	}
	if s.eat('.') && !s.digits() {
		return nil, false
	}
	if s.eat('e') || s.eat('E') {
		if !s.eat('+') {
			s.eat('-')
		}
		if !s.digits() {
			return nil, false
		}
	}
	return s.b[start:s.i], true
}

// digits consumes one or more ASCII digits.
func (s *scanner) digits() bool {
	start := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i > start
}
