package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zalando/go-keyring"
)

const testKey = "sk_live_Zq8wPLm3VxT9a1b2"

// envOf is an injected environment; DBUS is set so the (mock) system keyring is tried.
func envOf(vars map[string]string) SecretsOption {
	return WithLookupEnv(func(k string) (string, bool) { v, ok := vars[k]; return v, ok })
}

var withDBus = map[string]string{"DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1000/bus"}

// newMockSecrets uses go-keyring's mock provider behind SystemKeyring, on "linux".
func newMockSecrets(t *testing.T, p Paths, vars map[string]string, opts ...SecretsOption) *Secrets {
	t.Helper()
	keyring.MockInit()
	s := NewSecrets(p, SystemKeyring(), append([]SecretsOption{envOf(vars), WithKeyringTimeout(time.Second)}, opts...)...)
	s.goos = "linux"
	return s
}

func writeCredFile(t *testing.T, p Paths, profile, key string) {
	t.Helper()
	err := updateCredentials(p.CredentialsFile, func(m map[string]credential) bool {
		m[profile] = credential{APIKey: key}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
}

func assertWaysForward(t *testing.T, err error, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("message lacks %q: %s", w, err)
		}
	}
}

func TestSecretsResolutionOrder(t *testing.T) {
	envKey, ringKey, fileKey := "sk_test_fromEnvironment0001", "sk_test_fromKeyring00002", "sk_test_fromFile00000003"
	tests := []struct {
		name      string
		env       bool
		ring      bool
		file      bool
		fileOther bool // the file holds a key for another profile only
		wantKey   string
		wantSrc   func(Paths) Source
	}{
		{"environment first", true, true, true, false, envKey, func(Paths) Source { return SourceEnv }},
		{"keyring second", false, true, true, false, ringKey, func(Paths) Source { return SourceKeyring }},
		{"file last", false, false, true, false, fileKey, func(p Paths) Source { return fileSource(p.CredentialsFile) }},
		{"file entry of another profile ignored", false, false, false, true, "", nil},
		{"nothing", false, false, false, false, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := testPaths(t)
			vars := map[string]string{"DBUS_SESSION_BUS_ADDRESS": "x"}
			if tt.env {
				vars[EnvAPIKey] = " " + envKey + "\n"
			}
			s := newMockSecrets(t, p, vars)
			if tt.ring {
				if err := keyring.Set("smsdesk", "work", ringKey); err != nil {
					t.Fatal(err)
				}
			}
			if tt.file {
				writeCredFile(t, p, "work", fileKey)
			}
			if tt.fileOther {
				writeCredFile(t, p, "other", fileKey)
			}
			key, src, err := s.Get("work")
			if tt.wantSrc == nil {
				if !errors.Is(err, ErrNoKey) || errors.Is(err, ErrKeyringUnavailable) {
					t.Fatalf("want ErrNoKey, got %v", err)
				}
				assertWaysForward(t, err, "smsdesk login --profile work", EnvAPIKey, "--insecure-storage")
				return
			}
			if err != nil || key != tt.wantKey || src != tt.wantSrc(p) {
				t.Fatalf("got %q %q %v, want %q %q", key, src, err, tt.wantKey, tt.wantSrc(p))
			}
			if s.FromEnvironment() != tt.env {
				t.Errorf("FromEnvironment %v", s.FromEnvironment())
			}
		})
	}
}

func TestSecretsFailingKeyringFallsBackOrExplains(t *testing.T) {
	p := testPaths(t)
	keyring.MockInitWithError(errors.New("org.freedesktop.Secret.Error.IsLocked: collection is locked"))
	t.Cleanup(keyring.MockInit)
	s := NewSecrets(p, SystemKeyring(), envOf(withDBus))
	s.goos = "linux"

	_, _, err := s.Get("work")
	if !errors.Is(err, ErrKeyringUnavailable) || errors.Is(err, ErrNoKey) {
		t.Fatalf("want ErrKeyringUnavailable, got %v", err)
	}
	assertWaysForward(t, err, "collection is locked", EnvAPIKey, "--insecure-storage")

	if _, err := s.Set("work", testKey, false); !errors.Is(err, ErrKeyringUnavailable) {
		t.Fatalf("Set into a failing keyring: %v", err)
	}
	// The operator takes the way forward: insecure storage works and is found.
	src, err := s.Set("work", testKey, true)
	if err != nil || !src.Insecure() {
		t.Fatalf("insecure Set: %q %v", src, err)
	}
	key, got, err := s.Get("work")
	if err != nil || key != testKey || got != src {
		t.Fatalf("Get after insecure login: %q %v", got, err)
	}
}

// hangingKeyring never answers until the test ends; it counts the calls.
type hangingKeyring struct {
	release chan struct{}
	calls   *atomic.Int32
}

func newHangingKeyring(t *testing.T) hangingKeyring {
	h := hangingKeyring{release: make(chan struct{}), calls: new(atomic.Int32)}
	t.Cleanup(func() { close(h.release) })
	return h
}
func (h hangingKeyring) Get(string, string) (string, error) {
	h.calls.Add(1)
	<-h.release
	return "", ErrNotInKeyring
}
func (h hangingKeyring) Set(string, string, string) error { h.calls.Add(1); <-h.release; return nil }
func (h hangingKeyring) Delete(string, string) error {
	h.calls.Add(1)
	<-h.release
	return ErrNotInKeyring
}

func TestSecretsHangingKeyringTimesOut(t *testing.T) {
	const timeout = 100 * time.Millisecond
	ops := map[string]func(*Secrets) error{
		"Get":    func(s *Secrets) error { _, _, err := s.Get("work"); return err },
		"Set":    func(s *Secrets) error { _, err := s.Set("work", testKey, false); return err },
		"Delete": func(s *Secrets) error { _, err := s.Delete("work"); return err },
	}
	for name, op := range ops {
		t.Run(name, func(t *testing.T) {
			kr := newHangingKeyring(t)
			s := NewSecrets(testPaths(t), kr, WithKeyringTimeout(timeout), envOf(nil))
			s.noteKeyring("work", true) // a key smsdesk stored there: its removal must wait for the keyring
			start := time.Now()
			err := op(s)
			took := time.Since(start)
			if !errors.Is(err, ErrKeyringUnavailable) {
				t.Fatalf("want ErrKeyringUnavailable, got %v", err)
			}
			// It returned, from a keyring that never answers: the timeout
			// ended the wait, and no earlier (a timer never fires early). How
			// much later is the machine's business (an upper bound of 1 s
			// stood here).
			if took < timeout {
				t.Fatalf("returned after %v, before the %v timeout", took, timeout)
			}
			assertWaysForward(t, err, "did not answer within 100ms")
			if name != "Delete" {
				assertWaysForward(t, err, EnvAPIKey, "--insecure-storage")
			}
			if strings.Contains(err.Error(), testKey) {
				t.Fatalf("key in error: %s", err)
			}
			// Later calls do not wait again: they do not call the keyring at
			// all (a bound of 50 ms stood here).
			if err := op(s); !errors.Is(err, ErrKeyringUnavailable) || !strings.Contains(err.Error(), "earlier in this run") || kr.calls.Load() != 1 {
				t.Fatalf("second call: %v; the keyring called %d times, want once", err, kr.calls.Load())
			}
		})
	}
}

func TestSecretsDefaultTimeoutIsThreeSeconds(t *testing.T) {
	if s := NewSecrets(Paths{}, SystemKeyring()); s.timeout != 3*time.Second {
		t.Fatalf("timeout %v", s.timeout)
	}
}

func TestSecretsNoDBusOnLinuxSkipsKeyring(t *testing.T) {
	p := testPaths(t)
	s := newMockSecrets(t, p, map[string]string{})
	if err := keyring.Set("smsdesk", "work", testKey); err != nil {
		t.Fatal(err)
	}
	_, _, err := s.Get("work")
	if !errors.Is(err, ErrKeyringUnavailable) {
		t.Fatalf("want ErrKeyringUnavailable without D-Bus, got %v", err)
	}
	// "Immediate" is the keyring not tried at all, which the error says
	// (a 50 ms bound stood here).
	if !strings.Contains(err.Error(), "so the keyring was not tried") {
		t.Errorf("the keyring was tried without D-Bus: %v", err)
	}
	assertWaysForward(t, err, "DBUS_SESSION_BUS_ADDRESS", EnvAPIKey, "--insecure-storage")
	if _, err := s.Set("work", testKey, false); !errors.Is(err, ErrKeyringUnavailable) {
		t.Fatalf("Set: %v", err)
	}

	// Other systems need no D-Bus.
	s.goos = "darwin"
	if key, src, err := s.Get("work"); err != nil || key != testKey || src != SourceKeyring {
		t.Fatalf("darwin: %q %q %v", key, src, err)
	}
}

func TestSecretsInsecureStorage(t *testing.T) {
	p := testPaths(t)
	s := newMockSecrets(t, p, withDBus)
	// An older key in the keyring must not shadow the new file key.
	if _, err := s.Set("work", "sk_live_oldKeyInTheKeyring99", false); err != nil {
		t.Fatal(err)
	}
	writeCredFile(t, p, "other", "sk_test_otherProfileKey1234")
	src, err := s.Set("work", testKey, true)
	if err != nil {
		t.Fatal(err)
	}
	w := src.Warning()
	if !src.Insecure() || !strings.Contains(w, "plain text") || !strings.Contains(w, p.CredentialsFile) || strings.Contains(w, testKey) {
		t.Fatalf("source %q warning %q", src, w)
	}
	assertMode(t, p.CredentialsFile, 0o600)
	assertMode(t, p.ConfigDir, 0o700|os.ModeDir)
	data, _ := os.ReadFile(p.CredentialsFile)
	if strings.Count(string(data), testKey) != 1 {
		t.Fatalf("file should hold the key once:\n%s", data)
	}
	if key, got, err := s.Get("work"); err != nil || key != testKey || got != src {
		t.Fatalf("Get: %q %v", got, err)
	}
	if SourceKeyring.Warning() != "" || SourceEnv.Insecure() {
		t.Error("only file sources warn")
	}

	// Logging in to the keyring again removes the plain-text copy, keeps others.
	if src, err := s.Set("work", testKey, false); err != nil || src != SourceKeyring {
		t.Fatalf("secure Set: %q %v", src, err)
	}
	data, _ = os.ReadFile(p.CredentialsFile)
	if strings.Contains(string(data), testKey) || !strings.Contains(string(data), "otherProfileKey") {
		t.Fatalf("after secure login the file holds:\n%s", data)
	}
}

func TestSecretsDelete(t *testing.T) {
	p := testPaths(t)
	s := newMockSecrets(t, p, withDBus)
	if removed, err := s.Delete("work"); err != nil || len(removed) != 0 {
		t.Fatalf("delete of nothing: %v %v", removed, err)
	}
	if err := keyring.Set("smsdesk", "work", testKey); err != nil {
		t.Fatal(err)
	}
	writeCredFile(t, p, "work", testKey)
	removed, err := s.Delete("work")
	if err != nil || len(removed) != 2 || removed[0] != SourceKeyring || removed[1] != fileSource(p.CredentialsFile) {
		t.Fatalf("removed %v %v", removed, err)
	}
	if _, err := os.Stat(p.CredentialsFile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("empty credentials file left behind: %v", err)
	}
	if _, _, err := s.Get("work"); !errors.Is(err, ErrNoKey) {
		t.Fatalf("after logout: %v", err)
	}

	// Keyring out of reach: the file copy still goes, the error explains
	// (smsdesk stored a key of work in the keyring: the index says so).
	if _, err := s.Set("work", testKey, false); err != nil {
		t.Fatal(err)
	}
	writeCredFile(t, p, "work", testKey)
	s2 := NewSecrets(p, newHangingKeyring(t), WithKeyringTimeout(50*time.Millisecond), envOf(nil))
	removed, err = s2.Delete("work")
	if !errors.Is(err, ErrKeyringUnavailable) || len(removed) != 1 || !removed[0].Insecure() {
		t.Fatalf("removed %v err %v", removed, err)
	}
	assertWaysForward(t, err, "smsdesk logout --profile work")
}

// TestSecretsDeleteOfAKeyNeverStored: with the keyring out of reach (no
// D-Bus session), removing a profile smsdesk never stored a key of in the
// keyring is no error: there is nothing there ("could not remove the stored
// key" was printed for a profile that never had one). One it stored, and
// one the index cannot vouch for, still are.
func TestSecretsDeleteOfAKeyNeverStored(t *testing.T) {
	p := testPaths(t)
	noDBus := newMockSecrets(t, p, map[string]string{})
	if removed, err := noDBus.Delete("never"); err != nil || len(removed) != 0 {
		t.Fatalf("no index, no D-Bus: removed %v, err %v; want nothing and no error", removed, err)
	}
	s := newMockSecrets(t, p, withDBus)
	if _, err := s.Set("stored", testKey, false); err != nil {
		t.Fatal(err)
	}
	assertMode(t, s.keyringIndex(), 0o600)
	if data, _ := os.ReadFile(s.keyringIndex()); strings.Contains(string(data), testKey) || !strings.Contains(string(data), `"stored"`) {
		t.Fatalf("the index holds:\n%s", data)
	}
	if _, err := noDBus.Delete("never"); err != nil {
		t.Errorf("a profile the index does not name: %v", err)
	}
	if _, err := noDBus.Delete("stored"); !errors.Is(err, ErrKeyringUnavailable) {
		t.Errorf("a profile whose key smsdesk stored there: err %v, want ErrKeyringUnavailable", err)
	}
	// Removed where the keyring answers: the index forgets it (and, empty,
	// goes).
	if removed, err := s.Delete("stored"); err != nil || len(removed) != 1 {
		t.Fatalf("removed %v err %v", removed, err)
	}
	if _, err := os.Stat(s.keyringIndex()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the empty index stayed: %v", err)
	}
	// An index that does not read vouches for nothing: the warning stays.
	if err := WriteFileAtomic(s.keyringIndex(), []byte("profiles = [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := noDBus.Delete("never"); !errors.Is(err, ErrKeyringUnavailable) {
		t.Errorf("an unreadable index: err %v, want ErrKeyringUnavailable", err)
	}
}

// echoingKeyring fails with errors that quote the secret it was given.
type echoingKeyring struct{}

func (echoingKeyring) Get(string, string) (string, error) {
	return "", errors.New("dbus: no reply; Authorization: Bearer " + testKey)
}
func (echoingKeyring) Set(_, _, secret string) error { return errors.New("cannot store " + secret) }
func (echoingKeyring) Delete(string, string) error   { return errors.New("locked") }

// Every error path, given the key, keeps it out of the error text.
func TestSecretsErrorsNeverHoldTheKey(t *testing.T) {
	cases := map[string]func(t *testing.T, p Paths) error{
		"keyring echoes on Set": func(t *testing.T, p Paths) error {
			_, err := NewSecrets(p, echoingKeyring{}, envOf(nil)).Set("work", testKey, false)
			return err
		},
		"keyring echoes on Get": func(t *testing.T, p Paths) error {
			_, _, err := NewSecrets(p, echoingKeyring{}, envOf(nil)).Get("work")
			return err
		},
		"key with a space": func(t *testing.T, p Paths) error {
			_, err := NewSecrets(p, echoingKeyring{}, envOf(nil)).Set("work", testKey+" "+testKey, true)
			return err
		},
		"key too long": func(t *testing.T, p Paths) error {
			_, err := NewSecrets(p, echoingKeyring{}, envOf(nil)).Set("work", strings.Repeat(testKey, 200), true)
			return err
		},
		"bad profile name": func(t *testing.T, p Paths) error {
			_, err := NewSecrets(p, echoingKeyring{}, envOf(nil)).Set("../x", testKey, true)
			return err
		},
		"config dir is a file": func(t *testing.T, p Paths) error {
			if err := os.WriteFile(p.ConfigDir, []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := NewSecrets(p, echoingKeyring{}, envOf(nil)).Set("work", testKey, true)
			return err
		},
		"corrupt credentials file": func(t *testing.T, p Paths) error {
			body := "[profiles.work]\napi_key = \"" + testKey + "\"\napi_key2 = " + testKey + "\n"
			if err := WriteFileAtomic(p.CredentialsFile, []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
			_, _, err := NewSecrets(p, newHangingKeyring(t), WithKeyringTimeout(10*time.Millisecond), envOf(nil)).Get("work")
			var fe *FileError
			if !errors.As(err, &fe) || fe.Line != 3 || !strings.Contains(err.Error(), p.CredentialsFile) {
				t.Errorf("want a FileError at line 3 naming the file, got %v", err)
			}
			return err
		},
		"hung keyring on Set": func(t *testing.T, p Paths) error {
			_, err := NewSecrets(p, newHangingKeyring(t), WithKeyringTimeout(10*time.Millisecond), envOf(nil)).Set("work", testKey, false)
			return err
		},
	}
	for name, run := range cases {
		t.Run(name, func(t *testing.T) {
			p := testPaths(t)
			if err := os.MkdirAll(filepath.Dir(p.ConfigDir), 0o700); err != nil {
				t.Fatal(err)
			}
			err := run(t, p)
			if err == nil {
				t.Fatal("want an error")
			}
			for e := err; e != nil; e = errors.Unwrap(e) {
				if strings.Contains(e.Error(), testKey) || strings.Contains(e.Error(), "Zq8wPLm3") {
					t.Fatalf("key in error text: %s", e)
				}
			}
		})
	}
}

func TestSecrets_NilKeyring(t *testing.T) {
	dir := t.TempDir()
	s := NewSecrets(PathsIn(dir+"/c", dir+"/s"), nil, WithLookupEnv(func(string) (string, bool) { return "", false }))
	if _, _, err := s.Get("demo"); !errors.Is(err, ErrKeyringUnavailable) && !errors.Is(err, ErrNoKey) {
		t.Fatalf("Get with no keyring = %v, want ErrKeyringUnavailable or ErrNoKey", err)
	}
	if _, err := s.Set("demo", "sk_test_abcdef123456", false); !errors.Is(err, ErrKeyringUnavailable) {
		t.Fatalf("Set with no keyring = %v, want ErrKeyringUnavailable", err)
	}
}
