package model

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

// AppendJournalRecord appends rec's journal line (MarshalJournalRecord's bytes)
// to dst, so that a writer can reuse one buffer. Plans, intents and outcomes —
// the records written for every chunk, and the one holding every item — are
// encoded by hand, byte for byte as encoding/json would write them
// (TestAppendJournalRecord_SameBytes); the others go through encoding/json.
func AppendJournalRecord(dst []byte, rec JournalRecord) ([]byte, error) {
	var err error
	switch r := rec.(type) {
	case *JournalIntent:
		dst, err = appendIntent(dst, r)
	case *JournalOutcome:
		dst, err = appendOutcome(dst, r)
	case *JournalPlan:
		dst, err = appendPlan(dst, r)
	default:
		var b []byte
		if b, err = marshalJournalRecordReflect(rec); err == nil {
			return append(dst, b...), nil
		}
		return dst, err
	}
	if err != nil {
		return dst, fmt.Errorf("journal: encoding %s record: %w", rec.RecordType(), err)
	}
	return append(dst, '\n'), nil
}

func appendIntent(b []byte, r *JournalIntent) ([]byte, error) {
	b = append(b, `{"type":"intent","time":`...)
	b, err := appendTime(b, r.Time)
	if err != nil {
		return b, err
	}
	b = append(b, `,"chunk":`...)
	b = strconv.AppendInt(b, int64(r.Chunk), 10)
	b = append(b, `,"indexes":`...)
	b = appendInts(b, r.Indexes)
	b = append(b, `,"key":`...)
	b = appendString(b, r.Key)
	if r.Attempt != 0 {
		b = append(b, `,"attempt":`...)
		b = strconv.AppendInt(b, int64(r.Attempt), 10)
	}
	return append(b, '}'), nil
}

func appendOutcome(b []byte, r *JournalOutcome) ([]byte, error) {
	b = append(b, `{"type":"outcome","time":`...)
	b, err := appendTime(b, r.Time)
	if err != nil {
		return b, err
	}
	b = append(b, `,"chunk":`...)
	b = strconv.AppendInt(b, int64(r.Chunk), 10)
	b = appendStringField(b, `,"batch_id":`, r.BatchID)
	if r.Status != 0 {
		b = append(b, `,"status":`...)
		b = strconv.AppendInt(b, int64(r.Status), 10)
	}
	b = appendStringField(b, `,"code":`, r.Code)
	b = appendStringField(b, `,"error":`, r.Error)
	if r.Retry {
		b = append(b, `,"retry":true`...)
	}
	if r.Split {
		b = append(b, `,"split":true`...)
	}
	b = append(b, `,"results":`...)
	if r.Results == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, res := range r.Results {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"index":`...)
			b = strconv.AppendInt(b, int64(res.Index), 10)
			b = append(b, `,"state":`...)
			b = appendString(b, string(res.State))
			b = appendStringField(b, `,"message_id":`, res.MessageID)
			b = appendStringField(b, `,"code":`, res.Code)
			b = appendStringField(b, `,"error":`, res.Error)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}'), nil
}

func appendPlan(b []byte, r *JournalPlan) ([]byte, error) {
	b = append(b, `{"type":"plan","id":`...)
	b = appendString(b, r.ID)
	b = append(b, `,"time":`...)
	b, err := appendTime(b, r.Time)
	if err != nil {
		return b, err
	}
	b = appendStringField(b, `,"profile":`, r.Profile)
	b = append(b, `,"sender":`...)
	b = appendString(b, r.Sender)
	b = appendStringField(b, `,"source":`, r.Source)
	if r.ChunkSize != 0 {
		b = append(b, `,"chunk_size":`...)
		b = strconv.AppendInt(b, int64(r.ChunkSize), 10)
	}
	b = append(b, `,"items":`...)
	need := 0
	for _, it := range r.Items {
		need += len(it.Recipient) + len(it.Message) + 64
	}
	b = slices.Grow(b, need)
	if r.Items == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, it := range r.Items {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"index":`...)
			b = strconv.AppendInt(b, int64(it.Index), 10)
			b = append(b, `,"recipient":`...)
			b = appendString(b, it.Recipient)
			b = append(b, `,"message":`...)
			b = appendString(b, it.Message)
			if it.Parts != 0 {
				b = append(b, `,"parts":`...)
				b = strconv.AppendInt(b, int64(it.Parts), 10)
			}
			if it.Line != 0 {
				b = append(b, `,"line":`...)
				b = strconv.AppendInt(b, int64(it.Line), 10)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}'), nil
}

// appendTime writes t as time.Time's MarshalJSON does (RFC 3339 with
// nanoseconds, in quotes); it fails where MarshalJSON fails.
func appendTime(b []byte, t time.Time) ([]byte, error) {
	b = append(b, '"')
	b, err := t.AppendText(b)
	return append(b, '"'), err
}

// appendInts writes a JSON array of ints (null for a nil slice, as
// encoding/json does).
func appendInts(b []byte, xs []int) []byte {
	if xs == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(x), 10)
	}
	return append(b, ']')
}

// appendStringField writes name and s unless s is empty (omitempty).
func appendStringField(b []byte, name, s string) []byte {
	if s == "" {
		return b
	}
	return appendString(append(b, name...), s)
}

// appendString writes s as a JSON string exactly as encoding/json does. Text
// needing no escape (printable ASCII other than " \ < > &, and valid UTF-8
// other than U+2028 and U+2029) is copied as is; anything else is left to
// encoding/json, whose escaping then applies unchanged.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
				return appendStringSlow(b, s)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			return appendStringSlow(b, s)
		}
		i += size
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func appendStringSlow(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always encodes
	return append(b, q...)
}
