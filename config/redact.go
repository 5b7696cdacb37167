package config

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"

	"github.com/smsdesk/smsdesk/model"
)

// keyPrefix matches the non-secret start of a service key: "sk_live_", "sk_test_".
var keyPrefix = regexp.MustCompile(`^sk_[a-z]{1,10}_`)

// Fingerprint shows a key without revealing it, e.g. "sk_test_…a1b2": the
// sk_<kind>_ prefix, then the last 4 characters of the secret part when it is at
// least 12 long, the last 2 when it is 6 to 11 long, none when shorter. Never
// more than 4 characters of the secret part.
func Fingerprint(key string) string {
	key = strings.TrimSpace(key)
	if key == "" {
		return ""
	}
	prefix := keyPrefix.FindString(key)
	rest := []rune(key[len(prefix):])
	show := 0
	switch {
	case len(rest) >= 12:
		show = 4
	case len(rest) >= 6:
		show = 2
	}
	return prefix + "…" + string(rest[len(rest)-show:])
}

// SecretFingerprint names a shared secret (the webhook's) without any of
// its characters: "sha256:" and the first 8 hex digits of its SHA-256, the
// same for the same secret wherever it is shown; "" for none. A secret's
// own characters (Fingerprint showed its last 2) narrow a guess at an HMAC
// key that has no prefix to hide among; a hash of it tells two secrets apart
// and nothing more.
func SecretFingerprint(secret string) string {
	secret = strings.TrimSpace(secret)
	if secret == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(secret))
	return "sha256:" + hex.EncodeToString(sum[:4])
}

// RedactingHandler wraps h so that the message and every attribute (strings,
// errors, Stringers, groups, attrs added with WithAttrs) pass through model.Redact
// before h sees them. Use it for the --debug log.
func RedactingHandler(h slog.Handler, secrets ...string) slog.Handler {
	return &redactingHandler{next: h, secrets: slices.Clone(secrets)}
}

type redactingHandler struct {
	next    slog.Handler
	secrets []string
}

func (h *redactingHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

func (h *redactingHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, model.Redact(r.Message, h.secrets...), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.redactAttr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

func (h *redactingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		red[i] = h.redactAttr(a)
	}
	return &redactingHandler{next: h.next.WithAttrs(red), secrets: h.secrets}
}

func (h *redactingHandler) WithGroup(name string) slog.Handler {
	return &redactingHandler{next: h.next.WithGroup(name), secrets: h.secrets}
}

func (h *redactingHandler) redactAttr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, model.Redact(v.String(), h.secrets...))
	case slog.KindGroup:
		group := v.Group()
		red := make([]any, len(group))
		for i, g := range group {
			red[i] = h.redactAttr(g)
		}
		return slog.Group(a.Key, red...)
	case slog.KindAny:
		// Errors, Stringers, structs, maps: format, then redact the text.
		text := fmt.Sprint(v.Any())
		if err, ok := v.Any().(error); ok {
			text = err.Error()
		}
		return slog.String(a.Key, model.Redact(text, h.secrets...))
	default: // numbers, bools, times, durations hold no secrets
		return slog.Attr{Key: a.Key, Value: v}
	}
}
