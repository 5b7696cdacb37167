package model

import (
	"strings"
	"testing"
)

func TestAccountID(t *testing.T) {
	const key = "sk_live_0123456789abcdef"
	same := []string{
		"https://sms.example.com",
		"https://sms.example.com/api",
		"https://SMS.example.com/api/v1/",
		"https://sms.example.com:443/v1",
		"https://sms.example.com./api/v1/sms/send-pair",
	}
	want := AccountID(same[0], key)
	if want == "" || len(want) != 24 {
		t.Fatalf("AccountID = %q, want 24 hex characters", want)
	}
	for _, u := range same[1:] {
		if got := AccountID(u, key); got != want {
			t.Errorf("AccountID(%q) = %q, want %q (the same account as %q)", u, got, want, same[0])
		}
	}
	other := []struct{ url, key string }{
		{"https://sms.example.com", "sk_live_0123456789abcdeX"}, // another key
		{"https://other.example.com", key},                      // another service
		{"https://sms.example.com:8443", key},                   // another port
		{"http://sms.example.com", key},                         // port 80, not 443
	}
	for _, o := range other {
		if got := AccountID(o.url, o.key); got == want || got == "" {
			t.Errorf("AccountID(%q, …) = %q, want another account than %q", o.url, got, want)
		}
	}
	for _, o := range []struct{ url, key string }{{"", key}, {"sms.example.com", key}, {"https://sms.example.com", " "}} {
		if got := AccountID(o.url, o.key); got != "" {
			t.Errorf("AccountID(%q, %q) = %q, want \"\" (no account)", o.url, o.key, got)
		}
	}
	// The id is a digest: no 8 characters of the key's secret part show in it.
	got := AccountID(same[0], key)
	for i := len("sk_live_"); i+8 <= len(key); i++ {
		if strings.Contains(got, key[i:i+8]) {
			t.Errorf("AccountID %q shows part of the key", got)
		}
	}
}
