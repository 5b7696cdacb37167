package config

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// A profile's webhook secret is what the service signs its webhook events
// with (X-Irnoti-Signature, an HMAC-SHA256 of the body): kept as the API
// key is, in the system keyring beside it (user "<profile>:webhook"), or
// in the plain-text credentials file where the operator chose that, and
// SMSDESK_WEBHOOK_SECRET overrides both (a headless receiver: it holds for
// every profile that process receives for). It is never printed.

// EnvWebhookSecret supplies the webhook secret for every profile, ahead of
// any stored one.
const EnvWebhookSecret = "SMSDESK_WEBHOOK_SECRET"

// SourceWebhookEnv is a webhook secret taken from the environment.
const SourceWebhookEnv Source = "environment (" + EnvWebhookSecret + ")"

// ErrNoWebhookSecret is matched by errors.Is when a profile has no webhook
// secret anywhere.
var ErrNoWebhookSecret = errors.New("no webhook secret")

// webhookUser is the keyring user of a profile's webhook secret (a profile
// name holds no ':', so it is no profile's API key).
func webhookUser(profile string) string { return profile + ":webhook" }

// GetWebhookSecret returns the profile's webhook secret and where it came
// from: SMSDESK_WEBHOOK_SECRET, else the keyring, else the credentials
// file. None anywhere: an error matching ErrNoWebhookSecret that says how
// to set one.
func (s *Secrets) GetWebhookSecret(profile string) (string, Source, error) {
	if err := ValidateProfileName(profile); err != nil {
		return "", "", err
	}
	if v, _ := s.lookupEnv(EnvWebhookSecret); strings.TrimSpace(v) != "" {
		return strings.TrimSpace(v), SourceWebhookEnv, nil
	}
	secret, kerr := s.webhookKeyring("reading", profile, "", func() (string, error) { return s.kr.Get(keyringService, webhookUser(profile)) })
	if kerr == nil && secret != "" {
		return secret, SourceKeyring, nil
	}
	creds, ferr := readCredentials(s.credentials)
	if ferr != nil {
		return "", "", ferr
	}
	if c, ok := creds[profile]; ok && strings.TrimSpace(c.WebhookSecret) != "" {
		return strings.TrimSpace(c.WebhookSecret), fileSource(s.credentials), nil
	}
	var ke *KeyringError
	if errors.As(kerr, &ke) {
		return "", "", fmt.Errorf("%w for profile %q in the credentials file, and the system keyring cannot be read here (%s): export %s, or run `smsdesk webhook secret set --profile %s --insecure-storage`",
			ErrNoWebhookSecret, profile, ke.Reason, EnvWebhookSecret, profile)
	}
	if kerr != nil && !errors.Is(kerr, ErrNotInKeyring) {
		return "", "", fmt.Errorf("%w for profile %q: the keyring could not be read (%w), and the credentials file has none", ErrNoWebhookSecret, profile, kerr)
	}
	return "", "", fmt.Errorf("%w for profile %q: run `smsdesk webhook secret set --profile %s`, or export %s", ErrNoWebhookSecret, profile, profile, EnvWebhookSecret)
}

// SetWebhookSecret stores the profile's webhook secret: in the system
// keyring (a plain-text copy left in the credentials file is removed), or
// with insecure in the 0600 credentials file (a keyring entry is removed,
// so that it cannot shadow the file). As Set: print Source.Warning() when
// the secret went to the file.
func (s *Secrets) SetWebhookSecret(profile, secret string, insecure bool) (Source, error) {
	if err := ValidateProfileName(profile); err != nil {
		return "", err
	}
	secret = strings.TrimSpace(secret)
	if err := checkWebhookSecret(secret); err != nil {
		return "", err
	}
	if !insecure {
		if _, err := s.webhookKeyring("storing", profile, secret, func() (string, error) {
			return "", s.kr.Set(keyringService, webhookUser(profile), secret)
		}); err != nil {
			return "", err
		}
		if err := s.setFileWebhookSecret(profile, ""); err != nil {
			return SourceKeyring, fmt.Errorf("the webhook secret is in the system keyring, but an old plain-text copy could not be removed: %w", err)
		}
		return SourceKeyring, nil
	}
	if err := s.setFileWebhookSecret(profile, secret); err != nil {
		return "", err
	}
	_, _ = s.webhookKeyring("removing", profile, "", func() (string, error) { return "", s.kr.Delete(keyringService, webhookUser(profile)) })
	return fileSource(s.credentials), nil
}

// webhookKeyring is callKeyring for the profile's webhook secret: its
// errors say so.
func (s *Secrets) webhookKeyring(op, profile, secret string, f func() (string, error)) (string, error) {
	v, err := s.callKeyring(op, profile, secret, f)
	var ke *KeyringError
	if errors.As(err, &ke) {
		ke.Webhook = true
	}
	return v, err
}

// setFileWebhookSecret puts secret ("" removes it) in the credentials file.
func (s *Secrets) setFileWebhookSecret(profile, secret string) error {
	if _, err := os.Stat(s.credentials); err != nil && secret == "" {
		return nil // no file: nothing to remove (and no directory to make)
	}
	err := updateCredentials(s.credentials, func(m map[string]credential) bool {
		c, ok := m[profile]
		if !ok && secret == "" || c.WebhookSecret == secret {
			return false
		}
		c.WebhookSecret = secret
		if c == (credential{}) {
			delete(m, profile)
		} else {
			m[profile] = c
		}
		return true
	})
	if err != nil {
		return fmt.Errorf("storing the webhook secret of profile %q in %s: %w", profile, s.credentials, err)
	}
	return nil
}

// checkWebhookSecret refuses what cannot be a webhook secret, without
// quoting it.
func checkWebhookSecret(secret string) error {
	if err := checkKey(secret); err != nil {
		return errors.New(strings.ReplaceAll(err.Error(), "API key", "webhook secret"))
	}
	return nil
}

// WebhookWarning is the text to print whenever a webhook secret is written
// to the plain-text file; "" for other sources.
func (s Source) WebhookWarning() string {
	if !s.Insecure() {
		return ""
	}
	path := strings.TrimSuffix(strings.TrimPrefix(string(s), fileSourcePrefix), fileSourceSuffix)
	return "warning: the webhook secret is stored in plain text in " + path + "; anyone who can read that file can forge the service's events (use the system keyring where one is available)"
}
