package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"path"
	"strings"

	"github.com/smsdesk/smsdesk/model"
)

// Field names deployments use, in order of preference.
var (
	contactIDKeys = []string{"contact_id", "contactId", "id", "uuid", "_id"}
	groupIDKeys   = []string{"id", "group_id", "groupId", "uuid", "_id"}
	groupRefKeys  = []string{"group_id", "groupId", "contact_group_id", "contactGroupId"}
	nameKeys      = []string{"name", "full_name", "fullName", "display_name", "displayName"}
	mobileKeys    = []string{"mobile", "phone", "number", "recipient", "phone_number", "mobile_number", "msisdn", "cellphone", "to"}
)

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

// decodeBody decodes a 2xx answer. An empty body gives nil. A body that says
// success:false is an *APIError. The envelope is left for the caller
// (unwrapData for records; the pager reads paging fields around the list).
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
	if c.saysFailure(v) {
		ae := c.apiError(r.method, c.shortPath(r.u), res.status, res.header, res.body, c.now())
		return nil, ae
	}
	return v, nil
}

// saysFailure reports whether a 2xx body is an error envelope: success:false,
// ok:false, or JSend's status "error"/"fail".
func (c *Client) saysFailure(v any) bool {
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
		case string:
			if strings.EqualFold(x, "false") {
				return true
			}
		case json.Number:
			if x.String() == "0" {
				return true
			}
		}
	}
	if s, ok := m["status"].(string); ok {
		s = strings.ToLower(s)
		if s == "error" || s == "fail" {
			return true
		}
	}
	return false
}

// unwrapData returns v's "data" when v is an envelope around it. A paginator
// (data beside current_page, meta or links) is left whole for the pager.
func unwrapData(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	d, has := m["data"]
	if !has || d == nil {
		return v
	}
	if _, isList := d.([]any); isList {
		return v // the list reader looks at data and the paging fields around it
	}
	return d
}

// descend returns the object under one of keys ({"group":{…}}), or m itself.
func descend(m map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		if inner, ok := m[k].(map[string]any); ok {
			return inner
		}
	}
	return m
}

// idFrom returns the first of keys that holds a number or a non-empty string,
// exactly as written.
func idFrom(m map[string]any, keys ...string) model.ID {
	for _, k := range keys {
		if id := idValue(m[k]); id != "" {
			return id
		}
	}
	return ""
}

// idValue reads a bare id: a JSON number (its exact text) or a string.
func idValue(v any) model.ID {
	switch x := v.(type) {
	case json.Number:
		return model.ID(x.String())
	case string:
		return model.ID(strings.TrimSpace(x))
	}
	return ""
}

// idFromLocation takes an id from a Location header's last path segment.
func idFromLocation(h http.Header) model.ID {
	loc := h.Get("Location")
	if loc == "" {
		return ""
	}
	loc, _, _ = strings.Cut(loc, "?")
	seg := path.Base(strings.TrimRight(loc, "/"))
	if seg == "." || seg == "/" {
		return ""
	}
	return model.ID(seg)
}

// contactFrom reads a contact record in any of the field spellings.
func (c *Client) contactFrom(m map[string]any) model.Contact {
	ct := model.Contact{
		ID:      idFrom(m, contactIDKeys...),
		GroupID: idFrom(m, groupRefKeys...),
		Name:    c.clean(firstString(m, nameKeys...), 0),
		Mobile:  c.clean(firstString(m, mobileKeys...), 0),
	}
	if ct.GroupID == "" {
		switch g := m["group"].(type) {
		case map[string]any:
			ct.GroupID = idFrom(g, groupIDKeys...)
		default:
			ct.GroupID = idValue(g)
		}
	}
	if ct.Name == "" {
		first, last := firstString(m, "first_name", "firstName"), firstString(m, "last_name", "lastName")
		ct.Name = c.clean(strings.TrimSpace(first+" "+last), 0)
	}
	return ct
}

// listIn returns the first list found under data, items, results, contacts,
// records or rows.
func listIn(m map[string]any) ([]any, bool) {
	for _, k := range []string{"data", "items", "results", "contacts", "records", "rows"} {
		if l, ok := m[k].([]any); ok {
			return l, true
		}
	}
	return nil, false
}
