package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
	"unicode"
)

// EnvAPIKey supplies the API key for every profile, ahead of any stored key.
const EnvAPIKey = "SMSDESK_API_KEY"

// maxKeyLen bounds an API key; anything longer is a paste gone wrong.
const maxKeyLen = 4096

// ErrNoKey is matched by errors.Is when no API key is found anywhere.
var ErrNoKey = errors.New("no API key")

// NoKeyError says no key was found for a profile and names the ways forward.
type NoKeyError struct{ Profile string }

// Error says what is wrong and what to do next.
func (e *NoKeyError) Error() string {
	return fmt.Sprintf("no API key for profile %q: run `smsdesk login --profile %s`, or export %s, or on a machine without a keyring run `smsdesk login --profile %s --insecure-storage`",
		e.Profile, e.Profile, EnvAPIKey, e.Profile)
}

// Is makes errors.Is(err, ErrNoKey) true.
func (e *NoKeyError) Is(target error) bool { return target == ErrNoKey }

// Source says where an API key came from or was stored.
type Source string

// Sources of a key; a file source is "file <path> (insecure storage)".
const (
	SourceEnv     Source = "environment (" + EnvAPIKey + ")"
	SourceKeyring Source = "system keyring"
)

const (
	fileSourcePrefix = "file "
	fileSourceSuffix = " (insecure storage)"
)

func fileSource(path string) Source { return Source(fileSourcePrefix + path + fileSourceSuffix) }

// Insecure reports whether the key is kept in the plain-text credentials file.
func (s Source) Insecure() bool {
	return strings.HasPrefix(string(s), fileSourcePrefix) && strings.HasSuffix(string(s), fileSourceSuffix)
}

// Warning is the text to print whenever a key is written to, or read from, the
// plain-text file; "" for other sources.
func (s Source) Warning() string {
	if !s.Insecure() {
		return ""
	}
	path := strings.TrimSuffix(strings.TrimPrefix(string(s), fileSourcePrefix), fileSourceSuffix)
	return "warning: the API key is stored in plain text in " + path + "; anyone who can read that file can spend the account's credit (use the system keyring where one is available)"
}

// Secrets finds, stores and removes API keys: the environment, the system
// keyring (service "smsdesk", user = profile name) and, only where the operator
// chose it, the plain-text credentials file. Every keyring call is bounded by a
// timeout. A Secrets is safe for concurrent use.
type Secrets struct {
	credentials string // the credentials file
	kr          Keyring
	timeout     time.Duration
	lookupEnv   func(string) (string, bool)
	goos        string

	mu   sync.Mutex
	down string // set once a keyring call timed out: later calls fail at once
}

// SecretsOption configures NewSecrets.
type SecretsOption func(*Secrets)

// WithKeyringTimeout bounds each keyring call (default 3 s).
func WithKeyringTimeout(d time.Duration) SecretsOption {
	return func(s *Secrets) {
		if d > 0 {
			s.timeout = d
		}
	}
}

// WithLookupEnv replaces os.LookupEnv for SMSDESK_API_KEY and
// DBUS_SESSION_BUS_ADDRESS (tests; a --api-key-env style override).
func WithLookupEnv(f func(string) (string, bool)) SecretsOption {
	return func(s *Secrets) {
		if f != nil {
			s.lookupEnv = f
		}
	}
}

// NewSecrets returns a Secrets using kr (usually SystemKeyring(); nil for none,
// as in the demo) and the credentials file of p.
func NewSecrets(p Paths, kr Keyring, opts ...SecretsOption) *Secrets {
	s := &Secrets{credentials: p.CredentialsFile, kr: kr, timeout: DefaultKeyringTimeout, lookupEnv: os.LookupEnv, goos: runtime.GOOS}
	for _, o := range opts {
		o(s)
	}
	return s
}

// FromEnvironment reports whether SMSDESK_API_KEY is set, which overrides every
// stored key (logout cannot remove it; status should say so).
func (s *Secrets) FromEnvironment() bool {
	v, _ := s.lookupEnv(EnvAPIKey)
	return strings.TrimSpace(v) != ""
}

// Get returns the profile's API key and where it came from: SMSDESK_API_KEY,
// else the keyring, else the credentials file (if it has an entry for the
// profile). With no key anywhere the error matches ErrNoKey; when the keyring
// could not be asked and the file has no key, it matches ErrKeyringUnavailable.
// Both name the ways forward.
func (s *Secrets) Get(profile string) (string, Source, error) {
	if err := ValidateProfileName(profile); err != nil {
		return "", "", err
	}
	if v, _ := s.lookupEnv(EnvAPIKey); strings.TrimSpace(v) != "" {
		return strings.TrimSpace(v), SourceEnv, nil
	}
	key, kerr := s.callKeyring("reading", profile, "", func() (string, error) { return s.kr.Get(keyringService, profile) })
	if kerr == nil && key != "" {
		return key, SourceKeyring, nil
	}
	creds, ferr := readCredentials(s.credentials)
	if ferr != nil {
		if errors.Is(kerr, ErrKeyringUnavailable) {
			return "", "", errors.Join(kerr, ferr)
		}
		return "", "", ferr
	}
	if c, ok := creds[profile]; ok && strings.TrimSpace(c.APIKey) != "" {
		return strings.TrimSpace(c.APIKey), fileSource(s.credentials), nil
	}
	if errors.Is(kerr, ErrKeyringUnavailable) {
		return "", "", kerr
	}
	return "", "", &NoKeyError{Profile: profile}
}

// Set stores the profile's key. insecure=false: in the system keyring only (an
// unavailable keyring is an error that names the alternatives); a plain-text
// copy left by an earlier insecure login is removed. insecure=true: in the 0600
// credentials file, and any keyring entry of the profile is removed so it
// cannot shadow the file. The caller must print Source.Warning() when it is
// not empty. A non-empty Source means the key is stored, even alongside an
// error about cleaning up the other store.
func (s *Secrets) Set(profile, key string, insecure bool) (Source, error) {
	if err := ValidateProfileName(profile); err != nil {
		return "", err
	}
	key = strings.TrimSpace(key)
	if err := checkKey(key); err != nil {
		return "", err
	}
	if !insecure {
		_, err := s.callKeyring("storing", profile, key, func() (string, error) { return "", s.kr.Set(keyringService, profile, key) })
		if err != nil {
			return "", err
		}
		s.noteKeyring(profile, true)
		if _, err := s.removeFromFile(profile); err != nil {
			return SourceKeyring, fmt.Errorf("the key is in the system keyring, but an old plain-text copy could not be removed: %w", err)
		}
		return SourceKeyring, nil
	}
	err := updateCredentials(s.credentials, func(m map[string]credential) bool {
		c := m[profile]
		c.APIKey = key
		m[profile] = c
		return true
	})
	if err != nil {
		return "", fmt.Errorf("storing the API key of profile %q in %s: %w", profile, s.credentials, err)
	}
	// Best effort: a stale keyring entry would otherwise win over the file.
	// An unavailable keyring cannot shadow the file now, so its error is moot.
	if _, err := s.callKeyring("removing", profile, "", func() (string, error) { return "", s.kr.Delete(keyringService, profile) }); err == nil || errors.Is(err, ErrNotInKeyring) {
		s.noteKeyring(profile, false)
	}
	return fileSource(s.credentials), nil
}

// Delete removes the profile's key from the keyring and from the credentials
// file, wherever it is kept, and says where it was removed from. An error
// (such as an unavailable keyring) does not stop the other removal. A keyring
// that cannot be reached is an error only when smsdesk stored a key of the
// profile there (the keyring index): a profile that never had one has
// nothing there to remove. A key in SMSDESK_API_KEY is not touched (see
// FromEnvironment).
func (s *Secrets) Delete(profile string) ([]Source, error) {
	if err := ValidateProfileName(profile); err != nil {
		return nil, err
	}
	var removed []Source
	var errs []error
	_, err := s.callKeyring("removing", profile, "", func() (string, error) { return "", s.kr.Delete(keyringService, profile) })
	switch {
	case err == nil:
		removed = append(removed, SourceKeyring)
		s.noteKeyring(profile, false)
	case errors.Is(err, ErrNotInKeyring):
		s.noteKeyring(profile, false)
	case errors.Is(err, ErrKeyringUnavailable) && !s.inKeyringIndex(profile):
		// smsdesk never stored a key of this profile there.
	default:
		errs = append(errs, err)
	}
	if ok, err := s.removeFromFile(profile); err != nil {
		errs = append(errs, err)
	} else if ok {
		removed = append(removed, fileSource(s.credentials))
	}
	return removed, errors.Join(errs...)
}

func (s *Secrets) removeFromFile(profile string) (bool, error) {
	if _, err := os.Stat(s.credentials); err != nil {
		return false, nil // no file: nothing to remove (and no directory to create)
	}
	found := false
	err := updateCredentials(s.credentials, func(m map[string]credential) bool {
		c, ok := m[profile]
		found = ok && c.APIKey != ""
		c.APIKey = ""
		if c == (credential{}) {
			delete(m, profile)
		} else {
			m[profile] = c
		}
		return ok
	})
	if err != nil {
		return false, fmt.Errorf("removing the API key of profile %q from %s: %w", profile, s.credentials, err)
	}
	return found, nil
}

// checkKey rejects what cannot be an API key, without quoting it.
func checkKey(key string) error {
	if key == "" {
		return errors.New("the API key is empty")
	}
	if len(key) > maxKeyLen {
		return fmt.Errorf("the API key is %d bytes long; that is not a key (at most %d)", len(key), maxKeyLen)
	}
	for _, r := range key {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == unicode.ReplacementChar {
			return errors.New("the API key holds spaces or control characters; paste only the key")
		}
	}
	return nil
}

func dirOf(path string) string { return filepath.Dir(path) }

// ProbeKeyring asks the system keyring for an entry that does not exist, to
// tell whether it answers (nil) or not (an error matching
// ErrKeyringUnavailable that says why), within the keyring timeout.
func (s *Secrets) ProbeKeyring() error {
	_, err := s.callKeyring("reading", "doctor", "", func() (string, error) {
		return s.kr.Get(keyringService, "smsdesk-doctor-probe")
	})
	if errors.Is(err, ErrNotInKeyring) {
		return nil
	}
	return err
}
