package config

import (
	"errors"
	"os"
	"strings"
	"testing"
)

const testWebhookSecret = "whsec_Ny7Qd1oP0zRt5uVw"

// TestWebhookSecretKeptBesideTheKey: a webhook secret is kept in the
// keyring under its own entry, or in the credentials file beside the API
// key without disturbing it (and logging in to the keyring later leaves
// it); the environment wins over both; none anywhere says how to set one.
func TestWebhookSecretKeptBesideTheKey(t *testing.T) {
	p := testPaths(t)
	s := newMockSecrets(t, p, withDBus)
	if _, _, err := s.GetWebhookSecret("work"); !errors.Is(err, ErrNoWebhookSecret) || !strings.Contains(err.Error(), "smsdesk webhook secret set --profile work") {
		t.Fatalf("none: %v", err)
	}
	if src, err := s.SetWebhookSecret("work", testWebhookSecret, false); err != nil || src != SourceKeyring {
		t.Fatalf("keyring: %q %v", src, err)
	}
	if _, _, err := s.Get("work"); !errors.Is(err, ErrNoKey) {
		t.Errorf("the webhook secret read as the API key: %v", err)
	}
	if got, src, err := s.GetWebhookSecret("work"); err != nil || got != testWebhookSecret || src != SourceKeyring {
		t.Fatalf("get: %q %v", src, err)
	}

	// In the file, beside the key of an insecure login.
	if _, err := s.Set("work", testKey, true); err != nil {
		t.Fatal(err)
	}
	src, err := s.SetWebhookSecret("work", testWebhookSecret, true)
	if err != nil || !src.Insecure() {
		t.Fatalf("file: %q %v", src, err)
	}
	assertMode(t, p.CredentialsFile, 0o600)
	if key, _, err := s.Get("work"); err != nil || key != testKey {
		t.Fatalf("the key after the secret went in: %v", err)
	}
	if got, src2, err := s.GetWebhookSecret("work"); err != nil || got != testWebhookSecret || src2 != src {
		t.Fatalf("get from the file: %q %v (the keyring entry should be gone)", src2, err)
	}
	// The key moved to the keyring: the secret stays in the file.
	if _, err := s.Set("work", testKey, false); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p.CredentialsFile)
	if strings.Contains(string(data), testKey) || strings.Count(string(data), testWebhookSecret) != 1 {
		t.Fatalf("after the key went to the keyring the file holds:\n%s", data)
	}
	if got, _, err := s.GetWebhookSecret("work"); err != nil || got != testWebhookSecret {
		t.Fatalf("the secret after the key moved: %v", err)
	}
	// To the keyring: the plain-text copy goes.
	if _, err := s.SetWebhookSecret("work", testWebhookSecret, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p.CredentialsFile); !os.IsNotExist(err) {
		data, _ := os.ReadFile(p.CredentialsFile)
		t.Errorf("the file is left with:\n%s", data)
	}

	env := newMockSecrets(t, p, map[string]string{"DBUS_SESSION_BUS_ADDRESS": "x", EnvWebhookSecret: " from-env "})
	if got, src, err := env.GetWebhookSecret("work"); err != nil || got != "from-env" || src != SourceWebhookEnv {
		t.Errorf("env: %q %q %v", got, src, err)
	}
	for _, bad := range []string{"", "two words", "tab\there"} {
		if _, err := s.SetWebhookSecret("work", bad, true); err == nil || (bad != "" && strings.Contains(err.Error(), bad)) {
			t.Errorf("secret %q: %v", bad, err)
		}
	}
}
