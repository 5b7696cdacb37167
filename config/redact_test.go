package config

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

func TestFingerprint(t *testing.T) {
	tests := []struct{ key, want string }{
		{"sk_test_4eC39HqLyjWDarjtT1zdp7dca1b2", "sk_test_…a1b2"},
		{"sk_live_Zq8wPLm3VxT9a1b2", "sk_live_…a1b2"},
		{"  sk_live_Zq8wPLm3VxT9a1b2\n", "sk_live_…a1b2"},
		{"sk_live_abcdefghijk", "sk_live_…jk"},         // 11 secret chars: 2 shown
		{"sk_live_abcdef", "sk_live_…ef"},              // 6
		{"sk_live_abc", "sk_live_…"},                   // too short to show any
		{"sk_live_abc_defghijklmnop", "sk_live_…mnop"}, // underscores in the secret stay hidden
		{"sk_LIVE_secretsecret99", "…et99"},            // unknown prefix: all of it is secret
		{"0123456789abcdef", "…cdef"},
		{"token12", "…12"},
		{"abc", "…"},
		{"کلیدکلیدکلیدکلید", "…کلید"},
		{"", ""},
	}
	for _, tt := range tests {
		got := Fingerprint(tt.key)
		if got != tt.want {
			t.Errorf("Fingerprint(%q) = %q, want %q", tt.key, got, tt.want)
		}
		// Whatever the table says: at most 4 characters after "…", a suffix of the key.
		if _, shown, ok := strings.Cut(got, "…"); ok && (len([]rune(shown)) > 4 || !strings.HasSuffix(strings.TrimSpace(tt.key), shown)) {
			t.Errorf("Fingerprint(%q) = %q reveals too much", tt.key, got)
		}
	}
}

// TestSecretFingerprint (issue 42 costs): the webhook secret's fingerprint
// showed its last 2 characters ("…9a"); it is the first 8 hex digits of
// its SHA-256 (sha256sum's, computed apart), none of its characters.
func TestSecretFingerprint(t *testing.T) {
	for _, tt := range []struct{ secret, want string }{
		{"whsec_cli_5d2e9a", "sha256:fb1cf933"},
		{"  whsec_cli_5d2e9a\n", "sha256:fb1cf933"}, // as read from stdin
		{"a", "sha256:ca978112"},
		{"", ""},
		{" \n", ""},
	} {
		if got := SecretFingerprint(tt.secret); got != tt.want {
			t.Errorf("SecretFingerprint(%q) = %q, want %q", tt.secret, got, tt.want)
		}
	}
}

type stringer struct{ s string }

func (s stringer) String() string { return s.s }

func TestRedactingHandler(t *testing.T) {
	var buf bytes.Buffer
	h := RedactingHandler(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}), testKey)
	log := slog.New(h).With("key", testKey).WithGroup("req")
	log.Debug("calling with "+testKey,
		"header", "Bearer "+testKey,
		"err", errors.New("rejected "+testKey),
		"url", stringer{"https://h/?k=" + testKey},
		slog.Group("auth", "token", testKey, "n", 3),
		"status", 401,
	)
	out := buf.String()
	if strings.Contains(out, testKey) || strings.Contains(out, "Zq8wPLm3") {
		t.Fatalf("key in log:\n%s", out)
	}
	for _, want := range []string{`"msg":"calling with [REDACTED]"`, `"key":"[REDACTED]"`, `"header":"Bearer [REDACTED]"`,
		`"err":"rejected [REDACTED]"`, `"url":"https://h/?k=[REDACTED]"`, `"auth":{"token":"[REDACTED]","n":3}`, `"status":401`, `"req":{`} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %s:\n%s", want, out)
		}
	}
	if h.Enabled(context.Background(), slog.LevelDebug-1) {
		t.Error("Enabled not delegated")
	}
}
