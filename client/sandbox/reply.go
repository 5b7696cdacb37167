package sandbox

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
)

// A recipient who writes back to a line reaches the account as an
// sms.inbound webhook event. The sandbox has no recipients: its admin
// endpoint POST /api/v1/sandbox/reply {"from", "line", "text"} (loopback
// only, with the sandbox's key) makes one and posts it to the webhook URL
// at once, answering what the receiver answered (smsdesk sandbox reply).

// ReplyResult is what a reply made: its message id, and the status the
// receiver answered its post with.
type ReplyResult struct {
	MessageID     string `json:"message_id"`
	WebhookStatus int    `json:"webhook_status"`
}

// ErrNoWebhook: the sandbox was started without a webhook URL.
var ErrNoWebhook = errors.New("this sandbox posts no webhooks: start it with --webhook URL --webhook-secret SECRET")

// Reply posts an sms.inbound event as if from had written text to line,
// and returns its message id and the receiver's answer.
func (s *Server) Reply(ctx context.Context, from, line, text string) (ReplyResult, error) {
	if s.poster == nil {
		return ReplyResult{}, ErrNoWebhook
	}
	id := NewInboundID()
	body := InboundEvent(id, from, line, text, s.opts.Now())
	code, err := PostEvent(ctx, s.poster.client, s.poster.url, s.poster.secret, body)
	if err != nil {
		return ReplyResult{MessageID: id}, fmt.Errorf("the receiver at %s did not answer: %w", s.poster.url, err)
	}
	s.poster.count(code >= 200 && code < 300)
	return ReplyResult{MessageID: id, WebhookStatus: code}, nil
}

// NewInboundID is a fresh message id for an inbound message ("in_" and 12
// random hex digits: a sandbox started again makes no id it made before).
func NewInboundID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "in_" + hex.EncodeToString(b[:])
}

// reply: POST /sandbox/reply, from loopback only.
func (s *Server) reply(w http.ResponseWriter, r *http.Request, _ []string) {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err != nil || !net.ParseIP(host).IsLoopback() {
		writeError(w, http.StatusForbidden, "forbidden", "the sandbox's replies are made from this machine only", nil)
		return
	}
	var req struct {
		From, Line, Text string
	}
	if !readJSON(w, r, &req) {
		return
	}
	errs := map[string][]string{}
	from, reason := iranianMobile(strings.TrimSpace(req.From))
	if reason != "" {
		errs["from"] = []string{reason}
	}
	if strings.TrimSpace(req.Line) == "" {
		errs["line"] = []string{"The line field is required: the line the reply is written to."}
	}
	if strings.TrimSpace(req.Text) == "" {
		errs["text"] = []string{"The text field is required."}
	}
	if len(errs) > 0 {
		validationError(w, errs)
		return
	}
	res, err := s.Reply(r.Context(), from, strings.TrimSpace(req.Line), req.Text)
	switch {
	case errors.Is(err, ErrNoWebhook):
		writeError(w, http.StatusConflict, "no_webhook", err.Error(), nil)
	case err != nil:
		writeError(w, http.StatusBadGateway, "webhook_unreachable", err.Error(), nil)
	default:
		writeData(w, http.StatusOK, res, nil)
	}
}

// RequestReply asks the sandbox at baseURL (its API root, …/api/v1), with
// its key, to post a reply from to line: what smsdesk sandbox reply does.
func RequestReply(ctx context.Context, c *http.Client, baseURL, key, from, line, text string) (ReplyResult, error) {
	body, _ := json.Marshal(map[string]string{"from": from, "line": line, "text": text})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(baseURL, "/")+"/sandbox/reply", bytes.NewReader(body))
	if err != nil {
		return ReplyResult{}, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return ReplyResult{}, err
	}
	defer func() { _ = resp.Body.Close() }() // read to its end: a close error loses nothing
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var env struct {
		Data    ReplyResult         `json:"data"`
		Message string              `json:"message"`
		Errors  map[string][]string `json:"errors"`
	}
	_ = json.Unmarshal(raw, &env)
	if resp.StatusCode != http.StatusOK {
		msg := env.Message
		if msg == "" {
			msg = http.StatusText(resp.StatusCode)
		}
		for _, field := range []string{"from", "line", "text"} {
			for _, m := range env.Errors[field] {
				msg += "; " + field + ": " + m
			}
		}
		return ReplyResult{}, &ReplyError{Status: resp.StatusCode, Message: msg}
	}
	return env.Data, nil
}

// ReplyError is the sandbox's refusal of a reply.
type ReplyError struct {
	Status  int
	Message string
}

// Error says the status and why.
func (e *ReplyError) Error() string {
	return fmt.Sprintf("the sandbox answered %d: %s", e.Status, e.Message)
}
