package config

import (
	"errors"
	"fmt"
	"time"

	"github.com/smsdesk/smsdesk/model"
	"github.com/zalando/go-keyring"
)

// keyringService is the service name of smsdesk's keyring entries; the user is
// the profile's name.
const keyringService = appName

// DefaultKeyringTimeout bounds every keyring call. go-keyring has no timeout of
// its own and hangs on some headless systems.
const DefaultKeyringTimeout = 3 * time.Second

// ErrNotInKeyring is what a Keyring returns (errors.Is) when it holds no secret
// for the service and user.
var ErrNotInKeyring = errors.New("no entry in the keyring")

// ErrKeyringUnavailable is matched by errors.Is when the system keyring did not
// answer in time, failed, or was not tried (no D-Bus session on Linux).
var ErrKeyringUnavailable = errors.New("system keyring unavailable")

// Keyring stores secrets by service and user. Implementations return an error
// matching ErrNotInKeyring when there is no such entry.
type Keyring interface {
	Get(service, user string) (string, error)
	Set(service, user, secret string) error
	Delete(service, user string) error
}

// SystemKeyring returns the OS keyring (Secret Service over D-Bus on Linux,
// Keychain on macOS, Credential Manager on Windows) through
// github.com/zalando/go-keyring. Calls may hang; Secrets bounds them.
func SystemKeyring() Keyring { return systemKeyring{} }

type systemKeyring struct{}

func (systemKeyring) Get(service, user string) (string, error) {
	s, err := keyring.Get(service, user)
	return s, mapNotFound(err)
}

func (systemKeyring) Set(service, user, secret string) error {
	return keyring.Set(service, user, secret)
}

func (systemKeyring) Delete(service, user string) error {
	return mapNotFound(keyring.Delete(service, user))
}

func mapNotFound(err error) error {
	if errors.Is(err, keyring.ErrNotFound) {
		return ErrNotInKeyring
	}
	return err
}

// KeyringError explains why the system keyring could not be used and what to
// do instead. errors.Is(err, ErrKeyringUnavailable) is true.
type KeyringError struct {
	Op      string // "reading", "storing" or "removing"
	Profile string
	Reason  string // sanitised; never holds the key
	Err     error  // the keyring's own error, when its text is free of the key
	// Webhook: it was the profile's webhook secret, not its API key.
	Webhook bool
}

// Error says what is wrong and what to do next.
func (e *KeyringError) Error() string {
	if e.Webhook {
		return e.webhookError()
	}
	msg := fmt.Sprintf("system keyring unavailable while %s the API key of profile %q: %s; ", e.Op, e.Profile, e.Reason)
	if e.Op == "removing" {
		return msg + fmt.Sprintf("the key may still be in the keyring: run `smsdesk logout --profile %s` again where the keyring works, or delete the entry %q/%q with your keyring tool", e.Profile, keyringService, e.Profile)
	}
	return msg + fmt.Sprintf("instead, export SMSDESK_API_KEY for this shell, or run `smsdesk login --profile %s --insecure-storage` to keep the key in a plain-text file (0600)", e.Profile)
}

// webhookError is Error for a webhook secret.
func (e *KeyringError) webhookError() string {
	msg := fmt.Sprintf("system keyring unavailable while %s the webhook secret of profile %q: %s; ", e.Op, e.Profile, e.Reason)
	if e.Op == "removing" {
		return msg + fmt.Sprintf("it may still be in the keyring: delete the entry %q/%q with your keyring tool", keyringService, webhookUser(e.Profile))
	}
	return msg + fmt.Sprintf("instead, export %s where the receiver runs, or run `smsdesk webhook secret set --profile %s --insecure-storage` to keep it in a plain-text file (0600)",
		EnvWebhookSecret, e.Profile)
}

// Unwrap returns the keyring's own error, if kept.
func (e *KeyringError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrKeyringUnavailable) true.
func (e *KeyringError) Is(target error) bool { return target == ErrKeyringUnavailable }

// usesDBus reports whether go-keyring reaches the keyring over D-Bus (the
// Secret Service) on goos.
func usesDBus(goos string) bool {
	switch goos {
	case "linux", "freebsd", "openbsd", "netbsd", "dragonfly":
		return true
	}
	return false
}

// keyringResult is what a keyring call sends back from its goroutine.
type keyringResult struct {
	secret string
	err    error
}

// callKeyring runs f in a goroutine and waits at most s.timeout. A call that
// does not answer is abandoned (its goroutine ends whenever the keyring
// does), and later calls through s fail at once instead of waiting again.
// secret, when not empty, is redacted from any error text.
func (s *Secrets) callKeyring(op, profile, secret string, f func() (string, error)) (string, error) {
	s.mu.Lock()
	down := s.down
	s.mu.Unlock()
	if down != "" {
		return "", &KeyringError{Op: op, Profile: profile, Reason: down}
	}
	if s.kr == nil {
		return "", &KeyringError{Op: op, Profile: profile, Reason: "no keyring is used in this mode"}
	}
	if _, system := s.kr.(systemKeyring); system && usesDBus(s.goos) {
		if v, _ := s.lookupEnv("DBUS_SESSION_BUS_ADDRESS"); v == "" {
			return "", &KeyringError{Op: op, Profile: profile,
				Reason: "DBUS_SESSION_BUS_ADDRESS is not set (no D-Bus session, as on a headless server or over SSH), so the keyring was not tried"}
		}
	}
	res := make(chan keyringResult, 1) // buffered: an abandoned call never blocks
	go func() {
		v, err := f()
		res <- keyringResult{v, err}
	}()
	timer := time.NewTimer(s.timeout)
	defer timer.Stop()
	select {
	case r := <-res:
		if r.err == nil || errors.Is(r.err, ErrNotInKeyring) {
			return r.secret, r.err
		}
		reason := model.Redact(model.SanitizeLine(r.err.Error()), secret)
		ke := &KeyringError{Op: op, Profile: profile, Reason: reason}
		if reason == model.SanitizeLine(r.err.Error()) {
			ke.Err = r.err
		}
		return "", ke
	case <-timer.C:
		reason := fmt.Sprintf("the keyring did not answer within %v", s.timeout)
		s.mu.Lock()
		s.down = reason + " (earlier in this run)"
		s.mu.Unlock()
		return "", &KeyringError{Op: op, Profile: profile, Reason: reason}
	}
}
