package app

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/model"
)

// The service posts what happened to each message (sms.sent, sms.delivered,
// sms.failed) and what recipients wrote (sms.inbound) to a URL of the
// account's, signed: X-Irnoti-Signature is the lowercase hex HMAC-SHA256 of
// the raw body, keyed with the account's webhook secret. ReceiveEvent is
// the one entry a receiver (ui/webhook) calls for each post: it checks,
// reads and commits the event to the ledger, and says what it did, or why
// not as a *WebhookRefusal whose Problem the face turns into a status.

// WebhookBodyLimit is the largest webhook body received: 64 KB.
const WebhookBodyLimit = 64 << 10

// WebhookProblem is why a webhook post was not taken.
type WebhookProblem string

// The problems, and the status a receiver answers each with.
const (
	WebhookUnknownProfile WebhookProblem = "unknown_profile" // 404: no profile of that name is received here
	WebhookNotConfigured  WebhookProblem = "not_configured"  // 404: the profile has no webhook secret
	WebhookNoSignature    WebhookProblem = "no_signature"    // 401: no X-Irnoti-Signature
	WebhookBadSignature   WebhookProblem = "bad_signature"   // 401: it is not the body's with the profile's secret
	WebhookTooLarge       WebhookProblem = "too_large"       // 413: over WebhookBodyLimit
	WebhookMalformed      WebhookProblem = "malformed"       // 400: not an event as the service posts them
	WebhookUnavailable    WebhookProblem = "unavailable"     // 503: the ledger could not commit it (the service tries again)
)

// WebhookRefusal is a webhook post not taken: nothing of it was stored.
type WebhookRefusal struct {
	Problem WebhookProblem
	Profile string // sanitised
	Reason  string // for the log: never the secret, never the body
	Err     error
}

// Error is the reason.
func (r *WebhookRefusal) Error() string { return r.Reason }

// Unwrap gives the cause (the ledger's error, for WebhookUnavailable).
func (r *WebhookRefusal) Unwrap() error { return r.Err }

// Receipt is what receiving one event did.
type Receipt struct {
	Profile   string
	Event     string // sms.sent, …
	MessageID string
	// Duplicate: the ledger had the event already (the service sent it
	// again): nothing changed.
	Duplicate bool
	// SendID is the send of the message it is about; Unmatched: no message
	// smsdesk sent has its id (yet: it may have come before its send's
	// outcome was recorded, and is applied then).
	SendID    string
	Unmatched bool
	// Moved: the message's delivery state moved forward (a late or second
	// final state moves nothing).
	Moved bool
	// Inbox: an inbound message, filed in the inbox.
	Inbox bool
}

// Webhooks is what an engine needs to receive its profile's webhook
// events (Engine.Webhooks): the secret they are signed with ("": not
// configured), and the commits of what arrives together.
type Webhooks struct {
	Secret string

	once   sync.Once
	commit *eventCommitter
}

// ReceiveEvent takes one webhook post for profile: its raw body and its
// X-Irnoti-Signature. It answers once the event is committed to the
// ledger (with others that arrived together: one transaction), or with a
// *WebhookRefusal and nothing stored: a profile this engine is not, or one
// without a secret; a missing or wrong signature (checked in constant time
// over the raw bytes); a body over WebhookBodyLimit or not an event; a
// ledger that cannot commit it.
func (e *Engine) ReceiveEvent(ctx context.Context, profile string, raw []byte, signature string) (Receipt, error) {
	if profile != e.Profile.Name {
		return Receipt{}, refuse(WebhookUnknownProfile, profile, "no profile of that name receives webhooks here", nil)
	}
	if e.Webhooks == nil || e.Webhooks.Secret == "" {
		return Receipt{}, refuse(WebhookNotConfigured, profile, "the profile has no webhook secret (smsdesk webhook secret set)", nil)
	}
	if len(raw) > WebhookBodyLimit {
		return Receipt{}, refuse(WebhookTooLarge, profile, fmt.Sprintf("the body is %d bytes, over %d", len(raw), WebhookBodyLimit), nil)
	}
	if strings.TrimSpace(signature) == "" {
		return Receipt{}, refuse(WebhookNoSignature, profile, "no X-Irnoti-Signature", nil)
	}
	if !SignatureValid(e.Webhooks.Secret, raw, signature) {
		return Receipt{}, refuse(WebhookBadSignature, profile, "the signature is not the body's with the profile's webhook secret", nil)
	}
	account := ""
	if e.Client != nil {
		account = e.Client.AccountID()
	}
	if account == "" {
		return Receipt{}, refuse(WebhookUnavailable, profile, "no service account: the profile needs its base URL and key", nil)
	}
	ev, err := ReadWebhookEvent(raw)
	if err != nil {
		return Receipt{}, refuse(WebhookMalformed, profile, err.Error(), err)
	}
	ev.Account, ev.Profile, ev.ReceivedAt = account, profile, e.clock().UTC()
	l, err := e.Paths.Ledger(ctx)
	if err != nil {
		return Receipt{}, refuse(WebhookUnavailable, profile, "the ledger does not open: "+err.Error(), err)
	}
	e.Webhooks.once.Do(func() { e.Webhooks.commit = newEventCommitter(l) })
	res, err := e.Webhooks.commit.record(ctx, ev)
	if err != nil {
		return Receipt{}, refuse(WebhookUnavailable, profile, "the ledger did not commit it: "+err.Error(), err)
	}
	return Receipt{Profile: profile, Event: ev.Kind, MessageID: ev.MessageID, Duplicate: res.Duplicate, SendID: res.SendID,
		Unmatched: !res.Duplicate && res.SendID == "" && ev.Kind != ledger.EventInbound, Moved: res.Moved, Inbox: res.Inbox > 0}, nil
}

// clock is the engine's time now.
func (e *Engine) clock() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

func refuse(p WebhookProblem, profile, reason string, err error) *WebhookRefusal {
	return &WebhookRefusal{Problem: p, Profile: model.SanitizeLine(profile), Reason: reason, Err: err}
}

// SignatureValid reports whether signature is the HMAC-SHA256 of raw keyed
// with secret, as hex (either case; a "sha256=" prefix is allowed), by a
// comparison whose time does not depend on where they differ.
func SignatureValid(secret string, raw []byte, signature string) bool {
	s := strings.TrimSpace(signature)
	if len(s) > 7 && strings.EqualFold(s[:7], "sha256=") {
		s = s[7:]
	}
	got, err := hex.DecodeString(s)
	if err != nil || len(got) != sha256.Size {
		return false
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(raw)
	return hmac.Equal(got, mac.Sum(nil))
}

// Sign is the signature the service puts on raw with secret (lowercase
// hex): for tests, and the sandbox that posts as the service does.
func Sign(secret string, raw []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(raw)
	return hex.EncodeToString(mac.Sum(nil))
}

// IsWebhookRefusal reports whether err refuses a post, and which problem.
func IsWebhookRefusal(err error) (WebhookProblem, bool) {
	var r *WebhookRefusal
	if errors.As(err, &r) {
		return r.Problem, true
	}
	return "", false
}
