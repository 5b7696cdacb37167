package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

const (
	snippetMax = 200
	messageMax = 300
)

// apiError reads an error answer in any of the usual shapes: the documented
// envelope {success:false,error_code,message}, {"error":{"code","message"}},
// {"error":"text"}, Laravel's {"message","errors":{field:[…]}}, RFC 9457
// problem+json, JSON:API {"errors":[…]}, plain text, and HTML pages from proxies.
func (c *Client) apiError(method, path string, status int, h http.Header, body []byte, now time.Time) *APIError {
	e := &APIError{Method: method, Path: path, Status: status}
	e.RetryAfter = parseRetryAfter(h.Get("Retry-After"), now)
	for _, k := range []string{"X-Request-Id", "X-Correlation-Id", "Request-Id", "CF-Ray"} {
		if v := h.Get(k); v != "" {
			e.RequestID = c.clean(v, 100)
			break
		}
	}
	trimmed := bytes.TrimSpace(body)
	switch {
	case len(trimmed) == 0:
	case looksHTML(h, trimmed):
		title := c.clean(htmlTitle(trimmed), 120)
		e.Snippet = title
		st := strconv.Itoa(status)
		title = strings.TrimSpace(strings.TrimPrefix(title, st))
		if title == "" {
			title = http.StatusText(status)
		}
		e.Message = title + " (HTML page from a proxy)"
	case trimmed[0] == '{' || trimmed[0] == '[':
		e.Snippet = c.clean(string(trimmed), snippetMax)
		if v, err := decodeAny(trimmed); err == nil {
			c.fillFromJSON(e, v)
		} else {
			e.Message = "unreadable JSON error body"
		}
	default:
		e.Snippet = c.clean(string(trimmed), snippetMax)
		line, _, _ := strings.Cut(string(trimmed), "\n")
		e.Message = c.clean(line, messageMax)
	}
	return e
}

// fillFromJSON takes code, message, fields and request id from a decoded body.
func (c *Client) fillFromJSON(e *APIError, v any) {
	m, ok := v.(map[string]any)
	if !ok {
		if arr, ok := v.([]any); ok {
			c.fillFromList(e, arr)
		}
		return
	}
	code := firstString(m, "error_code", "errorCode", "code")
	msg := firstString(m, "message", "detail", "error_description", "error_message", "msg")
	switch ev := m["error"].(type) {
	case string:
		if msg == "" {
			msg = ev
		} else if code == "" && !strings.Contains(ev, " ") {
			code = ev
		}
	case map[string]any:
		if s := firstString(ev, "code", "error_code", "type"); s != "" && code == "" {
			code = s
		}
		if s := firstString(ev, "message", "detail", "description"); s != "" {
			msg = s
		}
		c.fillFields(e, ev["errors"])
		c.fillFields(e, ev["fields"])
	}
	// RFC 9457: type names the problem, title and detail describe it.
	if t := firstString(m, "type"); code == "" && t != "" && t != "about:blank" {
		t = strings.TrimRight(t, "/")
		code = t[strings.LastIndexAny(t, "/#")+1:]
	}
	if msg == "" {
		msg = firstString(m, "title")
	}
	switch ev := m["errors"].(type) {
	case map[string]any:
		c.fillFields(e, ev)
	case []any:
		sub := &APIError{}
		c.fillFromList(sub, ev)
		if code == "" {
			code = sub.Code
		}
		if msg == "" {
			msg = sub.Message
		}
		if len(sub.Fields) > 0 {
			e.Fields = sub.Fields
		}
	}
	if msg == "" {
		if d, ok := m["data"].(map[string]any); ok {
			msg = firstString(d, "message", "error")
		}
	}
	e.Code = c.clean(code, 80)
	e.Message = c.clean(msg, messageMax)
	if e.RequestID == "" {
		e.RequestID = c.clean(firstString(m, "request_id", "requestId", "trace_id", "traceId"), 100)
	}
}

// fillFromList reads JSON:API-style [{code,title,detail,source:{pointer}}] or a
// list of strings.
func (c *Client) fillFromList(e *APIError, arr []any) {
	var msgs []string
	for _, it := range arr {
		switch x := it.(type) {
		case string:
			msgs = append(msgs, x)
		case map[string]any:
			if e.Code == "" {
				e.Code = c.clean(firstString(x, "code", "error_code"), 80)
			}
			text := firstString(x, "detail", "message", "title")
			field := firstString(x, "field", "param")
			if src, ok := x["source"].(map[string]any); ok && field == "" {
				field = strings.TrimPrefix(firstString(src, "pointer", "parameter"), "/data/attributes/")
			}
			if field != "" {
				c.addField(e, field, text)
			} else if text != "" {
				msgs = append(msgs, text)
			}
		}
	}
	if e.Message == "" && len(msgs) > 0 {
		e.Message = c.clean(strings.Join(msgs, "; "), messageMax)
	}
}

// fillFields reads {field: ["msg", …]} or {field: "msg"}.
func (c *Client) fillFields(e *APIError, v any) {
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	for k, fv := range m {
		switch x := fv.(type) {
		case string:
			c.addField(e, k, x)
		case []any:
			for _, it := range x {
				if s, ok := it.(string); ok {
					c.addField(e, k, s)
				}
			}
		}
	}
}

func (c *Client) addField(e *APIError, field, msg string) {
	if e.Fields == nil {
		e.Fields = map[string][]string{}
	}
	k := c.clean(field, 60)
	e.Fields[k] = append(e.Fields[k], c.clean(msg, messageMax))
}

// looksHTML reports whether an answer is an HTML page (typically a proxy's).
func looksHTML(h http.Header, b []byte) bool {
	ct := strings.ToLower(h.Get("Content-Type"))
	if strings.Contains(ct, "html") {
		return true
	}
	head := strings.ToLower(string(b[:min(len(b), 64)]))
	return strings.HasPrefix(head, "<!doctype") || strings.HasPrefix(head, "<html") || strings.HasPrefix(head, "<head")
}

var titlePattern = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)

// htmlTitle returns the page's <title> text, or "".
func htmlTitle(b []byte) string {
	m := titlePattern.FindSubmatch(b[:min(len(b), 64<<10)])
	if m == nil {
		return ""
	}
	return htmlUnescapeBasic(string(m[1]))
}

func htmlUnescapeBasic(s string) string {
	return strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">", "&quot;", `"`, "&#39;", "'", "&nbsp;", " ").Replace(s)
}

// parseRetryAfter reads Retry-After as delta seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		if f <= 0 || f > 24*3600 {
			return 0
		}
		return time.Duration(f * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// firstString returns the first of keys whose value is a non-empty string or a
// number, as text.
func firstString(m map[string]any, keys ...string) string {
	for _, k := range keys {
		switch x := m[k].(type) {
		case string:
			if s := strings.TrimSpace(x); s != "" {
				return s
			}
		case json.Number:
			return x.String()
		}
	}
	return ""
}

// errorf builds an error about the service's answer, keeping the method and path.
func errorf(method, path, format string, args ...any) error {
	return fmt.Errorf("%s %s: "+format, append([]any{method, path}, args...)...)
}
