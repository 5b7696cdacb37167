package model

import (
	"crypto/sha256"
	"encoding/hex"
	"net"
	"net/url"
	"strings"
)

// AccountID names one account of the service: what every profile and every
// operator that sends through it shares (the repeat guard, the opt-out
// list, once-only send ids). It is derived from the service's host (and
// port: two sandboxes on one machine are two accounts) and the API key, so
// every accepted spelling of the base URL (https://host, https://host/api,
// https://HOST/api/v1/) and every profile holding the same key give the
// same id. The key itself cannot be read back from it. "" when either is
// missing (offline: no account is known).
func AccountID(baseURL, key string) string {
	key = strings.TrimSpace(key)
	host := accountHost(baseURL)
	if key == "" || host == "" {
		return ""
	}
	sum := sha256.Sum256([]byte("smsdesk-account\x00" + host + "\x00" + key))
	return hex.EncodeToString(sum[:12])
}

// ServiceHost is a base URL's host and port in one spelling
// ("sms.example.com:443"), as AccountID reads it; "" when it has none.
func ServiceHost(baseURL string) string { return accountHost(baseURL) }

// accountHost is a base URL's host and port in one spelling: lower case,
// the scheme's default port made explicit, a trailing dot dropped.
func accountHost(raw string) string {
	s := strings.TrimSpace(raw)
	if !strings.Contains(s, "://") {
		return ""
	}
	u, err := url.Parse(s)
	if err != nil || u.Hostname() == "" {
		return ""
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	port := u.Port()
	if port == "" {
		switch strings.ToLower(u.Scheme) {
		case "http":
			port = "80"
		default:
			port = "443"
		}
	}
	return net.JoinHostPort(host, port)
}
