package client

// How the client reads a 2xx answer.
//
// Typed first: each endpoint's documented answer — the envelope
// {"success":true,"data":…,"message":…} around the record the docs show — is
// decoded with encoding/json into a small struct, strictly (decodeStrict): an
// unknown key, another type or a second value makes it fail.
//
// Tolerant second: any other body is decoded into generic values (numbers kept
// exact) and read by four rules, whatever the endpoint:
//
//  1. Refusal: success:false, ok:false or status "error"/"fail" is the
//     service's refusal, an *APIError (saysFailure).
//  2. Envelope: the record is under "data" when there is one, and may sit one
//     level down under a name for it ({"contact":{…}}) (record).
//  3. Names: a field is found under the first of its names in the table below
//     that the object holds, compared without case, "_" or "-", so contactId
//     and contact-id are contact_id (find).
//  4. Values: ids and integers are JSON numbers or strings; a text field is a
//     non-empty string or a number (idOf, intOf, textOf).

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"path"
	"strconv"
	"strings"
	"unicode"

	"github.com/smsdesk/smsdesk/model"
)

// The names deployments give each field the tolerant reader looks for, best
// first. This table is the one place such names are listed.
var (
	namesContactID = []string{"contact_id", "id", "uuid"}
	namesGroupID   = []string{"id", "group_id", "uuid"}
	namesGroupRef  = []string{"group_id", "contact_group_id"}
	namesName      = []string{"name", "full_name", "display_name"}
	namesMobile    = []string{"mobile", "phone", "number", "recipient", "phone_number", "mobile_number", "msisdn", "cellphone", "to"}

	namesList       = []string{"data", "items", "results", "contacts", "records", "rows"}
	namesPaging     = []string{"meta", "pagination", "page_info", "paging"}
	namesCurrent    = []string{"current_page", "page"}
	namesLast       = []string{"last_page", "total_pages", "page_count"}
	namesTotal      = []string{"total", "total_count", "total_items"}
	namesPerPage    = []string{"per_page", "page_size"}
	namesNextURL    = []string{"next_page_url", "next_url", "next", "next_link"}
	namesNextPage   = []string{"next", "next_page"}
	namesNextCursor = []string{"next_cursor"}

	namesBatch     = []string{"batch_id", "bulk_id", "job_id", "request_id", "id", "uuid", "batch"}
	namesItemList  = []string{"items", "results", "messages", "data", "recipients"}
	namesRecipient = []string{"recipient", "mobile", "to", "number", "phone", "receptor", "msisdn"}
	namesMessageID = []string{"message_id", "msg_id", "id", "uuid"}
	namesCode      = []string{"error_code", "code"}
	namesStatus    = []string{"status", "state", "result"}
	namesReason    = []string{"message", "detail", "description"}
	namesItemError = []string{"reason", "error_message", "description", "detail", "status_text"}
	namesIndex     = []string{"index", "idx", "position", "item_index"}
	namesDelivery  = []string{"status", "state", "delivery_status"}
	namesUpdatedAt = []string{"updated_at", "delivered_at", "status_at", "timestamp"}

	namesErrMessage = []string{"message", "detail", "error_description", "error_message", "msg"}
	namesRequestID  = []string{"request_id", "trace_id"}
)

// decodeStrict decodes b into v, a documented answer's struct: any key v does
// not name, another type or trailing data makes it fail. Numbers in fields of
// type any stay json.Number.
func decodeStrict(b []byte, v any) bool {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	d.UseNumber()
	if d.Decode(v) != nil {
		return false
	}
	_, err := d.Token()
	return err == io.EOF
}

// envelope is the documented success answer around T.
type envelope[T any] struct {
	Success bool    `json:"success"`
	Data    T       `json:"data"`
	Message *string `json:"message"`
}

// documented decodes a success answer in the documented envelope around T.
func documented[T any](b []byte) (T, bool) {
	var env envelope[T]
	ok := decodeStrict(b, &env) && env.Success
	return env.Data, ok
}

// decodeAny decodes one JSON value with numbers kept as json.Number, so that ids
// never pass through float64.
func decodeAny(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("more than one JSON value")
	}
	return v, nil
}

// decodeBody decodes a 2xx answer for the tolerant reader. An empty body gives
// nil; an HTML page or bad JSON is an error; a refusal is an *APIError.
func (c *Client) decodeBody(r *request, res *response) (any, error) {
	b := bytes.TrimSpace(res.body)
	if len(b) == 0 {
		return nil, nil
	}
	if looksHTML(res.header, b) {
		return nil, errorf(r.method, c.shortPath(r.u), "the answer (status %d) is an HTML page, not JSON: is the base URL the API's?", res.status)
	}
	v, err := decodeAny(b)
	if err != nil {
		return nil, errorf(r.method, c.shortPath(r.u), "unreadable answer (status %d): %v; it starts %q", res.status, err, c.clean(string(b), 60))
	}
	if saysFailure(v) {
		return nil, c.apiError(r.method, c.shortPath(r.u), res.status, res.header, res.body, c.now())
	}
	return v, nil
}

// saysFailure reports whether a 2xx body is an error envelope: success:false,
// ok:false, or JSend's status "error"/"fail".
func saysFailure(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for _, k := range []string{"success", "ok"} {
		switch x := m[k].(type) {
		case bool:
			if !x {
				return true
			}
		case string, json.Number:
			if s := textOf(x); strings.EqualFold(s, "false") || s == "0" {
				return true
			}
		}
	}
	s, _ := m["status"].(string)
	return strings.EqualFold(s, "error") || strings.EqualFold(s, "fail")
}

// record returns the object an answer is about: v's "data" when present, then
// the object under one of wrappers when there is one ({"group":{…}}); nil when
// the answer is not an object.
func record(v any, wrappers ...string) map[string]any {
	m, _ := v.(map[string]any)
	if d, ok := m["data"].(map[string]any); ok {
		m = d
	}
	if inner, ok := objectAt(m, wrappers...); ok {
		return inner
	}
	return m
}

// find returns the value under name in m: the key itself, else a key that
// differs from it only in case, "_" or "-" (the smallest such key, so that the
// choice does not depend on map order).
func find(m map[string]any, name string) any {
	if v, ok := m[name]; ok {
		return v
	}
	var key string
	var val any
	want := foldName(name)
	for k, v := range m {
		if foldName(k) == want && (key == "" || k < key) {
			key, val = k, v
		}
	}
	return val
}

// foldName is a field name without case, "_" or "-": contactId, contact-id
// and CONTACT_ID are all contactid.
func foldName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' {
			return -1
		}
		return unicode.ToLower(r)
	}, s)
}

// text returns the first of names holding a non-empty string or a number, as
// text, trimmed.
func text(m map[string]any, names ...string) string {
	for _, n := range names {
		if s := textOf(find(m, n)); s != "" {
			return s
		}
	}
	return ""
}

// textOf reads a string (trimmed) or a number (its exact text).
func textOf(v any) string {
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x)
	case json.Number:
		return x.String()
	}
	return ""
}

// link is text for links and cursors: strings only, never numbers.
func link(m map[string]any, names ...string) string {
	for _, n := range names {
		if s, ok := find(m, n).(string); ok && strings.TrimSpace(s) != "" {
			return strings.TrimSpace(s)
		}
	}
	return ""
}

// idOf returns the first of names holding an id (a number or a non-empty string).
func idOf(m map[string]any, names ...string) model.ID {
	return model.ID(text(m, names...))
}

// number returns the first of names holding an integer (a JSON number or a
// numeric string) that is at least min.
func number(m map[string]any, min int, names ...string) (int, bool) {
	for _, n := range names {
		if i, ok := intOf(find(m, n)); ok && i >= min {
			return i, true
		}
	}
	return 0, false
}

// intOf reads an integer given as a JSON number or a numeric string.
func intOf(v any) (int, bool) {
	n, err := strconv.Atoi(textOf(v))
	return n, err == nil
}

// objectAt returns the first of names holding an object.
func objectAt(m map[string]any, names ...string) (map[string]any, bool) {
	for _, n := range names {
		if o, ok := find(m, n).(map[string]any); ok {
			return o, true
		}
	}
	return nil, false
}

// listAt returns the first of names holding a list.
func listAt(m map[string]any, names ...string) ([]any, bool) {
	for _, n := range names {
		if l, ok := find(m, n).([]any); ok {
			return l, true
		}
	}
	return nil, false
}

// idFromLocation takes an id from a Location header's last path segment.
func idFromLocation(h http.Header) model.ID {
	loc, _, _ := strings.Cut(h.Get("Location"), "?")
	if loc == "" {
		return ""
	}
	seg := path.Base(strings.TrimRight(loc, "/"))
	if seg == "." || seg == "/" {
		return ""
	}
	return model.ID(seg)
}

// looksHTML reports whether an answer is an HTML page (typically a proxy's).
func looksHTML(h http.Header, b []byte) bool {
	if strings.Contains(strings.ToLower(h.Get("Content-Type")), "html") {
		return true
	}
	head := strings.ToLower(string(b[:min(len(b), 64)]))
	return strings.HasPrefix(head, "<!doctype") || strings.HasPrefix(head, "<html") || strings.HasPrefix(head, "<head")
}
