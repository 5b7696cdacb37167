package client

import (
	"bytes"
	"cmp"
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
		c.fillFromJSON(e, trimmed)
	default:
		e.Snippet = c.clean(string(trimmed), snippetMax)
		line, _, _ := strings.Cut(string(trimmed), "\n")
		e.Message = c.clean(line, messageMax)
	}
	return e
}

// errorJSON is the documented error answer.
type errorJSON struct {
	Success   bool                `json:"success"`
	ErrorCode string              `json:"error_code"`
	Message   string              `json:"message"`
	Errors    map[string][]string `json:"errors"`
}

// fillFromJSON takes code, message, fields and request id from an error body:
// the documented answer, else any of the usual shapes.
func (c *Client) fillFromJSON(e *APIError, b []byte) {
	var doc errorJSON
	if decodeStrict(b, &doc) && !doc.Success {
		e.Code, e.Message = c.clean(doc.ErrorCode, 80), c.clean(doc.Message, messageMax)
		for f, msgs := range doc.Errors {
			for _, m := range msgs {
				c.addField(e, f, m)
			}
		}
		return
	}
	v, err := decodeAny(b)
	if err != nil {
		e.Message = "unreadable JSON error body"
		return
	}
	if arr, ok := v.([]any); ok {
		c.fillFromList(e, arr)
		return
	}
	m, _ := v.(map[string]any)
	code, msg := c.errorKey(e, m)
	// RFC 9457: type names the problem, title and detail describe it.
	if t := strings.TrimRight(text(m, "type"), "/"); code == "" && t != "" && t != "about:blank" {
		code = t[strings.LastIndexAny(t, "/#")+1:]
	}
	switch ev := find(m, "errors").(type) {
	case map[string]any:
		c.fillFields(e, ev)
	case []any:
		sub := &APIError{Fields: e.Fields}
		c.fillFromList(sub, ev)
		code, msg, e.Fields = cmp.Or(code, sub.Code), cmp.Or(msg, sub.Message), sub.Fields
	}
	data, _ := m["data"].(map[string]any)
	msg = cmp.Or(msg, text(m, "title"), text(data, "message", "error"))
	e.Code = c.clean(code, 80)
	e.Message = c.clean(msg, messageMax)
	e.RequestID = cmp.Or(e.RequestID, c.clean(text(m, namesRequestID...), 100))
}

// errorKey reads the code and message at the top of an error body and in its
// "error": a string (the message, or the code when a message is given and it
// is one word) or an object with its own code, message and fields.
func (c *Client) errorKey(e *APIError, m map[string]any) (code, msg string) {
	code, msg = text(m, namesCode...), text(m, namesErrMessage...)
	switch ev := find(m, "error").(type) {
	case string:
		if msg == "" {
			msg = strings.TrimSpace(ev)
		} else if code == "" && !strings.Contains(ev, " ") {
			code = ev
		}
	case map[string]any:
		code = cmp.Or(code, text(ev, "code", "error_code", "type"))
		msg = cmp.Or(text(ev, namesReason...), msg)
		c.fillFields(e, find(ev, "errors"))
		c.fillFields(e, find(ev, "fields"))
	}
	return code, msg
}

// fillFromList reads JSON:API-style [{code,title,detail,source:{pointer}}] or a
// list of strings.
func (c *Client) fillFromList(e *APIError, arr []any) {
	var msgs []string
	for _, it := range arr {
		x, _ := it.(map[string]any)
		if s, ok := it.(string); ok {
			msgs = append(msgs, s)
		}
		if x == nil {
			continue
		}
		e.Code = cmp.Or(e.Code, c.clean(text(x, namesCode...), 80))
		msg := text(x, "detail", "message", "title")
		field := text(x, "field", "param")
		if src, ok := objectAt(x, "source"); ok && field == "" {
			field = strings.TrimPrefix(text(src, "pointer", "parameter"), "/data/attributes/")
		}
		if field != "" {
			c.addField(e, field, msg)
		} else if msg != "" {
			msgs = append(msgs, msg)
		}
	}
	if e.Message == "" && len(msgs) > 0 {
		e.Message = c.clean(strings.Join(msgs, "; "), messageMax)
	}
}

// fillFields reads {field: ["msg", …]} or {field: "msg"}.
func (c *Client) fillFields(e *APIError, v any) {
	m, _ := v.(map[string]any)
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

// errorf builds an error about the service's answer, keeping the method and path.
func errorf(method, path, format string, args ...any) error {
	return fmt.Errorf("%s %s: "+format, append([]any{method, path}, args...)...)
}
