package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/BurntSushi/toml"
)

// The keyring index (keyring.toml in the config directory, 0600) names the
// profiles whose API key smsdesk stored in the system keyring, and nothing
// else. When the keyring cannot be reached (no D-Bus session, over SSH), a
// removal of a profile the index does not name has nothing there to warn
// about: a profile that never had a key is removed without "could not remove
// the stored key". A key put in the keyring by a smsdesk older than the
// index, or by hand, is not known to it.
type keyringIndexFile struct {
	Profiles []string `toml:"profiles"`
}

const keyringIndexHeader = "# Profiles whose API key smsdesk stored in the system keyring (names only, never keys).\n\n"

// keyringIndex is the index file's path, beside the credentials file.
func (s *Secrets) keyringIndex() string {
	return filepath.Join(filepath.Dir(s.credentials), "keyring.toml")
}

// inKeyringIndex reports whether smsdesk stored profile's key in the
// keyring (and has not removed it since). An index that does not read
// counts as naming every profile: the warning is then kept.
func (s *Secrets) inKeyringIndex(profile string) bool {
	data, err := os.ReadFile(s.keyringIndex())
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	var f keyringIndexFile
	if err != nil {
		return true
	}
	if _, err := toml.Decode(string(data), &f); err != nil {
		return true
	}
	return slices.Contains(f.Profiles, profile)
}

// noteKeyring records that profile's key is in the keyring (stored) or is
// not (removed), under the index file's lock. Best effort: an index that
// cannot be written only keeps a warning that may not be needed.
func (s *Secrets) noteKeyring(profile string, stored bool) {
	path := s.keyringIndex()
	if !stored {
		if _, err := os.Stat(path); err != nil {
			return // no index: nothing to take out (and no directory to create)
		}
	}
	_ = s.updateKeyringIndex(path, func(names []string) []string {
		names = slices.DeleteFunc(names, func(n string) bool { return n == profile })
		if stored {
			names = append(names, profile)
			slices.Sort(names)
		}
		return names
	})
}

func (s *Secrets) updateKeyringIndex(path string, modify func([]string) []string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	unlock, err := lockFile(path)
	if err != nil {
		return err
	}
	defer unlock()
	var f keyringIndexFile
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		if _, err := toml.Decode(string(data), &f); err != nil {
			return fmt.Errorf("%s: not valid TOML", path)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	f.Profiles = modify(f.Profiles)
	if len(f.Profiles) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	var buf bytes.Buffer
	buf.WriteString(keyringIndexHeader)
	if err := toml.NewEncoder(&buf).Encode(f); err != nil {
		return err
	}
	return WriteFileAtomic(path, buf.Bytes(), 0o600)
}
