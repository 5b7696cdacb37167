package client

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/smsdesk/smsdesk/model"
)

// Sentinels matched by errors.Is on an *APIError.
var (
	ErrUnauthorized       = errors.New("unauthorized")        // 401 or code unauthorized
	ErrForbidden          = errors.New("forbidden")           // 403
	ErrNotFound           = errors.New("not found")           // 404
	ErrValidation         = errors.New("validation failed")   // 400 or 422
	ErrRateLimited        = errors.New("rate limited")        // 429 or code rate_limited
	ErrInsufficientCredit = errors.New("insufficient credit") // 402 or code insufficient_credit
	ErrServer             = errors.New("server error")        // 5xx
)

// Outcome sentinels for requests that change something (POST). errors.Is tells
// which applies; errors.As still finds the *APIError when the service answered.
var (
	// ErrOutcomeUnknown: the request's bytes may have reached the service (a
	// timeout, a connection closed after writing, a 5xx, an unreadable 2xx), so it
	// may have taken effect. It was not retried; check before sending again.
	ErrOutcomeUnknown = errors.New("outcome unknown: the request may have reached the service")
	// ErrNotSent: the request certainly did not reach the service or was not
	// processed (connection refused, DNS or TLS failure, 429, cancelled before
	// it was written). Sending it again is safe.
	ErrNotSent = errors.New("not sent: the request did not reach the service")
)

// ErrMissingID is returned (with the record filled from the request) when a
// create succeeded but the answer held no id the client could find.
var ErrMissingID = errors.New("the service's answer holds no id")

// APIError is an error answer from the service (or a proxy in front of it).
// Every string in it is sanitised and has the API key removed.
type APIError struct {
	Method     string              // "POST"
	Path       string              // relative to the API root: "/contacts"
	Status     int                 // HTTP status (200 for success:false inside a 2xx)
	Code       string              // the service's error code, e.g. "invalid_recipient"
	Message    string              // the service's message for people
	Fields     map[string][]string // per-field validation messages
	RetryAfter time.Duration       // how long the service asked to wait (429, 503)
	Snippet    string              // the start of the body, ≤ 200 sanitised characters
	RequestID  string              // the service's request id, for support
	Waited     time.Duration       // how long the client waited on rate limits for this call
}

// Error reads like "POST /contacts: 422 invalid_recipient: The mobile field is
// invalid (mobile: must be 11 digits)".
func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %d", e.Method, e.Path, e.Status)
	if e.Code != "" {
		b.WriteString(" " + e.Code + ":")
	}
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.Status)
	}
	if msg != "" {
		b.WriteString(" " + msg)
	}
	if f := e.fieldText(); f != "" {
		b.WriteString(" (" + f + ")")
	}
	return b.String()
}

// fieldText joins the field messages, fields sorted: "mobile: a; b, name: c".
func (e *APIError) fieldText() string {
	if len(e.Fields) == 0 {
		return ""
	}
	names := make([]string, 0, len(e.Fields))
	for k := range e.Fields {
		names = append(names, k)
	}
	slices.Sort(names)
	parts := make([]string, 0, len(names))
	for _, k := range names {
		msgs := slices.DeleteFunc(slices.Clone(e.Fields[k]), func(s string) bool { return s == "" || s == e.Message })
		if len(msgs) == 0 {
			continue
		}
		parts = append(parts, k+": "+strings.Join(msgs, "; "))
	}
	return strings.Join(parts, ", ")
}

// Is matches the sentinels by status and service code.
func (e *APIError) Is(target error) bool {
	code := strings.ToLower(e.Code)
	switch target {
	case ErrUnauthorized:
		return e.Status == http.StatusUnauthorized || code == "unauthorized" || code == "unauthenticated"
	case ErrForbidden:
		return e.Status == http.StatusForbidden
	case ErrNotFound:
		return e.Status == http.StatusNotFound
	case ErrValidation:
		return e.Status == http.StatusUnprocessableEntity || e.Status == http.StatusBadRequest
	case ErrRateLimited:
		return e.Status == http.StatusTooManyRequests || code == "rate_limited"
	case ErrInsufficientCredit:
		return e.Status == http.StatusPaymentRequired || code == "insufficient_credit"
	case ErrServer:
		return e.Status >= 500 && e.Status <= 599
	}
	return false
}

// Hint says what to do next, for people; "" when there is nothing to add.
func (e *APIError) Hint() string {
	code := strings.ToLower(e.Code)
	switch {
	case errors.Is(e, ErrUnauthorized):
		return "check the API key (smsdesk login)"
	case code == "sender_not_allowed":
		return "this sender line is not allowed for the account; use one of the lines the account owns"
	case errors.Is(e, ErrForbidden):
		return "the key is not allowed to do this; check the account's permissions"
	case errors.Is(e, ErrRateLimited):
		h := fmt.Sprintf("rate limited: waited %d s", int((e.Waited+time.Second/2)/time.Second))
		if e.RetryAfter > 0 {
			h += fmt.Sprintf("; the service asks to wait %d s more", int((e.RetryAfter+time.Second-1)/time.Second))
		}
		return h
	case errors.Is(e, ErrInsufficientCredit):
		return "top up the account"
	case errors.Is(e, ErrServer):
		return "the service failed; try again later"
	case errors.Is(e, ErrNotFound):
		return "check the id and the base URL"
	case errors.Is(e, ErrValidation):
		return "fix the fields named above and try again"
	case e.Status >= 300 && e.Status < 400:
		return "the service redirects; check the base URL (scheme, host and path)"
	}
	return ""
}

// outcomeError marks a POST's failure as ErrOutcomeUnknown or ErrNotSent while
// keeping the cause (an *APIError or a transport error) for errors.As.
type outcomeError struct {
	kind error // ErrOutcomeUnknown or ErrNotSent
	err  error
}

func (e *outcomeError) Error() string {
	if e.kind == ErrOutcomeUnknown {
		return e.err.Error() + " (outcome unknown: it may have reached the service; check before sending again)"
	}
	return e.err.Error() + " (nothing was sent)"
}

func (e *outcomeError) Unwrap() []error { return []error{e.kind, e.err} }

// transportError is a request that got no HTTP answer.
type transportError struct {
	Method, Path string
	Written      bool // the request's bytes were written to the connection
	Reason       string
	Err          error
	final        bool // retrying cannot help (cancelled, bad certificate, unknown host)
}

func (e *transportError) Error() string {
	return fmt.Sprintf("%s %s: %s", e.Method, e.Path, e.Reason)
}

func (e *transportError) Unwrap() error { return e.Err }

// exact is clean for data a person typed (names, descriptions, mobiles): the
// text is kept as the service holds it, control characters included, so that
// --json can show it exactly (escaped); only a key is redacted. Every display
// sanitises it (model.SanitizeLine), and CSV exports defuse it (model.CSVRow).
func (c *Client) exact(s string) string {
	if c != nil && len(c.key) >= 4 {
		s = model.Redact(s, c.key)
	} else {
		s = model.Redact(s)
	}
	return s
}

// clean makes a string from the service safe to show: control characters and
// escapes removed, the key redacted, at most max characters.
func (c *Client) clean(s string, max int) string {
	s = c.exact(model.SanitizeLine(s))
	if strings.Contains(s, "  ") || strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") {
		s = strings.Join(strings.Fields(s), " ")
	}
	return truncate(s, max)
}

// truncate cuts s to at most max characters, marking the cut with "…".
func truncate(s string, max int) string {
	if max <= 0 || utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max-1]) + "…"
}

// sanitizeForError is clean for strings that do not come with a Client (URLs
// given by the operator).
func sanitizeForError(s string) string { return (*Client)(nil).clean(s, 200) }
