package sandbox

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// maxBodyBytes caps request bodies; larger ones get 413 payload_too_large.
const maxBodyBytes = 8 << 20

// apiPrefix is where the API lives.
const apiPrefix = "/api/v1"

// envelope is the documented success wrapper.
type envelope struct {
	Success bool    `json:"success"`
	Data    any     `json:"data"`
	Message *string `json:"message"`
}

// errorBody is the documented error wrapper; Errors holds per-field messages
// for validation failures.
type errorBody struct {
	Success   bool                `json:"success"`
	ErrorCode string              `json:"error_code"`
	Message   string              `json:"message"`
	Errors    map[string][]string `json:"errors,omitempty"`
}

// routes builds the handler: count, authenticate, rate-limit, replay, route.
func (s *Server) routes() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		s.countRequest(r.Method, r.URL.Path)
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		if s.dropsThis(r) {
			ServeThenLose(http.HandlerFunc(s.serve), w, r)
			s.log.Debug("sandbox request, answer lost", "method", r.Method, "path", r.URL.Path, "took", time.Since(start))
			return
		}
		s.serve(sw, r)
		s.log.Debug("sandbox request", "method", r.Method, "path", r.URL.Path, "status", sw.status, "took", time.Since(start))
	})
}

// dropsThis counts send-pair requests and says whether this one's answer
// is lost (Options.DropEvery).
func (s *Server) dropsThis(r *http.Request) bool {
	if s.opts.DropEvery <= 0 || r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/sms/send-pair") {
		return false
	}
	return s.sends.Add(1)%int64(s.opts.DropEvery) == 0
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != apiPrefix && !strings.HasPrefix(r.URL.Path, apiPrefix+"/") {
		writeError(w, http.StatusNotFound, "not_found", "no such endpoint; the API lives under "+apiPrefix, nil)
		return
	}
	if !s.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="smsdesk sandbox"`)
		writeError(w, http.StatusUnauthorized, "unauthorized", "missing or invalid API key; send Authorization: Bearer <key>", nil)
		return
	}
	if s.limiter != nil {
		v := s.limiter.take(s.opts.Key, s.opts.Now())
		s.limiter.setHeaders(w.Header(), v)
		if !v.allowed {
			writeError(w, http.StatusTooManyRequests, "rate_limited",
				fmt.Sprintf("too many requests: %d per %s allowed; retry in %d s", v.limit, windowText(s.opts.RateWindow), v.retryAfter), nil)
			return
		}
	}
	if s.idem != nil && r.Method == http.MethodPost {
		if k := r.Header.Get("Idempotency-Key"); k != "" {
			s.idem.serve(w, r, r.URL.Path+"\x00"+k, http.HandlerFunc(s.route))
			return
		}
	}
	s.route(w, r)
}

// authorized checks the Bearer key in constant time.
func (s *Server) authorized(r *http.Request) bool {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(tok)), []byte(s.opts.Key)) == 1
}

// endpoint is one route: its method, its path below /api/v1 as segments ("*"
// matches any one segment) and its handler.
type endpoint struct {
	method  string
	pattern []string
	h       func(*Server, http.ResponseWriter, *http.Request, []string)
}

var endpoints = []endpoint{
	{http.MethodPost, []string{"contact-groups"}, (*Server).createGroup},
	{http.MethodGet, []string{"contact-groups", "*", "contacts"}, (*Server).listContacts},
	{http.MethodPost, []string{"contacts"}, (*Server).addContact},
	{http.MethodDelete, []string{"contacts", "*"}, (*Server).deleteContact},
	{http.MethodPost, []string{"sms", "send-pair"}, (*Server).sendPair},
	{http.MethodGet, []string{"sms", "*", "status"}, (*Server).messageStatus},
	{http.MethodGet, []string{"account", "credit"}, (*Server).accountCredit},
	{http.MethodPost, []string{"sandbox", "reply"}, (*Server).reply}, // the sandbox's own: no such endpoint in the service
}

// matches reports whether the path segments fit the pattern.
func (ep endpoint) matches(seg []string) bool {
	if len(seg) != len(ep.pattern) {
		return false
	}
	for i, p := range ep.pattern {
		if p != "*" && p != seg[i] {
			return false
		}
	}
	return true
}

// route dispatches by path segments below /api/v1.
func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	seg := strings.Split(strings.Trim(strings.TrimPrefix(r.URL.Path, apiPrefix), "/"), "/")
	for _, ep := range endpoints {
		if !ep.matches(seg) {
			continue
		}
		if r.Method != ep.method {
			w.Header().Set("Allow", ep.method)
			writeError(w, http.StatusMethodNotAllowed, "method_not_allowed",
				fmt.Sprintf("%s is not allowed here; use %s", r.Method, ep.method), nil)
			return
		}
		ep.h(s, w, r, seg)
		return
	}
	writeError(w, http.StatusNotFound, "not_found", "no such endpoint: "+r.URL.Path, nil)
}

// readJSON decodes the request body into v, answering 400 or 413 itself when
// it cannot; it reports whether the handler should go on.
func readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeError(w, http.StatusRequestEntityTooLarge, "payload_too_large",
				fmt.Sprintf("request body over %d bytes; send fewer items per request", maxBodyBytes), nil)
			return false
		}
		writeError(w, http.StatusBadRequest, "bad_request", "could not read the request body", nil)
		return false
	}
	if err := jsonStrict(b, v); err != nil {
		writeError(w, http.StatusBadRequest, "bad_request", "request body is not valid JSON: "+err.Error(), nil)
		return false
	}
	return true
}

// jsonStrict unmarshals exactly one JSON value (unknown fields are ignored).
func jsonStrict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"success":false,"error_code":"server_error","message":"could not encode the answer"}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n')) // a client that hung up has nothing left to be told
}

// writeData answers {"success":true,"data":…,"message":msg}.
func writeData(w http.ResponseWriter, status int, data any, msg *string) {
	writeJSON(w, status, envelope{Success: true, Data: data, Message: msg})
}

// writeError answers {"success":false,"error_code":…,"message":…[,"errors":…]}.
func writeError(w http.ResponseWriter, status int, code, msg string, fields map[string][]string) {
	writeJSON(w, status, errorBody{ErrorCode: code, Message: msg, Errors: fields})
}

// validationError answers 422 validation_failed naming the fields.
func validationError(w http.ResponseWriter, fields map[string][]string) {
	writeError(w, http.StatusUnprocessableEntity, "validation_failed", "the given data was invalid", fields)
}

// statusWriter remembers the status code for the request log.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// timestamp formats t as the service does (RFC 3339, UTC, seconds).
func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// nullable returns nil for "" so it encodes as JSON null.
func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
