package model

import (
	"regexp"
	"slices"
	"strings"
)

// Redacted replaces secrets in text.
const Redacted = "[REDACTED]"

var (
	// bearerToken matches "Bearer <token>" in any case.
	bearerToken = regexp.MustCompile(`(?i)\b(bearer)\s+[^\s"',;\]]+`)
	// keyShaped matches anything shaped like a service key (sk_live_…, sk_test_…).
	keyShaped = regexp.MustCompile(`\bsk_[a-z]{1,10}_[A-Za-z0-9_\-]+`)
	// urlUserinfo matches the user name and password of a URL
	// (https://user:pass@host): group 1 is the scheme and its //.
	urlUserinfo = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.\-]*://)[^\s/?#@"'<>]+@`)
)

// RedactURLs returns s with the user name and password of every URL in it
// replaced by [REDACTED] ("http://[REDACTED]@host/api"): a base URL pasted
// with credentials in it must not reach a screen, a log or a file.
func RedactURLs(s string) string {
	if !strings.Contains(s, "@") || !strings.Contains(s, "://") {
		return s
	}
	return urlUserinfo.ReplaceAllString(s, "${1}"+Redacted+"@")
}

// Redact returns s with every occurrence of the given secrets, of
// "Bearer <token>", of sk_…-shaped keys and of URLs' user names and
// passwords replaced by [REDACTED]. Empty
// secrets are ignored. It is the one redaction of keys: errors, logs and
// strings from the service all pass through it.
func Redact(s string, secrets ...string) string {
	if s == "" {
		return s
	}
	// Patterns first, so "Bearer <secret>" becomes "Bearer [REDACTED]" once.
	if strings.ContainsAny(s, "bB") {
		s = bearerToken.ReplaceAllString(s, "${1} "+Redacted)
	}
	if strings.Contains(s, "sk_") {
		s = keyShaped.ReplaceAllString(s, Redacted)
	}
	s = RedactURLs(s)
	sorted := slices.Clone(secrets)
	slices.SortFunc(sorted, func(a, b string) int { return len(b) - len(a) }) // longest first
	for _, sec := range sorted {
		if sec != "" {
			s = strings.ReplaceAll(s, sec, Redacted)
		}
	}
	return s
}
