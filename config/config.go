package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// EnvProfile names the profile to use when --profile is not given.
const EnvProfile = "SMSDESK_PROFILE"

// Config is the config file: named profiles and the active one.
//
//	active = "default"
//	[profiles.default]
//	base_url = "https://sms.example.com/v1"
type Config struct {
	Active string `toml:"active,omitempty"`
	// Ledger is where the ledger is kept for every profile (a postgres://
	// URL without a password, or a SQLite file); "" is the state
	// directory's smsdesk.db. SMSDESK_LEDGER overrides it.
	Ledger string `toml:"ledger,omitempty"`
	// LedgerID is the id of the ledger this config was used with, recorded
	// when it was made or first opened: a ledger that has gone, or another
	// in its place, is refused (ledgeropen.go).
	LedgerID string              `toml:"ledger_id,omitempty"`
	Console  ConsoleSettings     `toml:"console,omitempty"`
	Profiles map[string]*Profile `toml:"profiles,omitempty"`

	// Warnings lists keys in the file smsdesk does not know (typos, or settings
	// of a newer version); they are ignored. Load fills it; callers may print it.
	Warnings []string `toml:"-"`
}

const configHeader = "# smsdesk configuration. Profiles hold no secrets: API keys live in the\n# system keyring (see `smsdesk status`).\n\n"

// Load reads the config file. A missing file is an empty config, not an error. A
// file that does not parse, or holds an invalid profile, gives a *FileError
// naming the file, the line where known, and how to recover.
func Load(p Paths) (*Config, error) {
	data, err := os.ReadFile(p.ConfigFile)
	if errors.Is(err, fs.ErrNotExist) {
		return &Config{Profiles: map[string]*Profile{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading config file %s: %w", p.ConfigFile, err)
	}
	return parseConfig(p.ConfigFile, data)
}

// textExpected matches BurntSushi/toml's error for a number or boolean where
// the setting is text, and takes the key.
var textExpected = regexp.MustCompile(`last key "([^"]+)"\): incompatible types: TOML value has type \w+; destination has type string`)

func parseConfig(path string, data []byte) (*Config, error) {
	const recovery = "fix it or move it aside (smsdesk starts with no profiles without it)"
	var c Config
	md, err := toml.Decode(string(data), &c)
	if err != nil {
		fe := &FileError{Path: path, Problem: "not valid TOML: " + err.Error(), Recovery: recovery, Err: err}
		var pe toml.ParseError
		if errors.As(err, &pe) {
			fe.Line = pe.Position.Line
			fe.Problem = "not valid TOML: " + pe.Message
		}
		if m := textExpected.FindStringSubmatch(err.Error()); m != nil {
			// sender = 3000505, written by hand: a line is text.
			key := m[1][strings.LastIndex(m[1], ".")+1:]
			fe.Problem += fmt.Sprintf(`; %s takes text: write it in quotes (%s = "…")`, key, key)
		}
		return nil, fe
	}
	for _, k := range md.Undecoded() {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s: unknown setting %q ignored", path, k.String()))
	}
	if c.Profiles == nil {
		c.Profiles = map[string]*Profile{}
	}
	var errs []error
	for _, name := range c.Names() {
		prof := c.Profiles[name]
		if prof == nil {
			prof = &Profile{}
			c.Profiles[name] = prof
		}
		prof.Name = name
		if err := prof.Validate(); err != nil {
			errs = append(errs, err)
		}
	}
	if c.Active != "" {
		if err := ValidateProfileName(c.Active); err != nil {
			errs = append(errs, fmt.Errorf("active: %w", err))
		}
	}
	if err := c.Console.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, &FileError{Path: path, Problem: strings.ReplaceAll(err.Error(), "\n", "; "), Recovery: recovery, Err: err}
	}
	return &c, nil
}

// Save writes the config file atomically, 0600 in a 0700 directory, after
// validating every profile.
func (c *Config) Save(p Paths) error {
	if err := c.Console.Validate(); err != nil {
		return fmt.Errorf("not saving %s: %w", p.ConfigFile, err)
	}
	for _, name := range c.Names() {
		prof := c.Profiles[name]
		if prof == nil {
			continue
		}
		prof.Name = name
		if err := prof.Validate(); err != nil {
			return fmt.Errorf("not saving %s: %w", p.ConfigFile, err)
		}
	}
	var buf bytes.Buffer
	buf.WriteString(configHeader)
	if err := toml.NewEncoder(&buf).Encode(c); err != nil {
		return fmt.Errorf("encoding %s: %w", p.ConfigFile, err)
	}
	return WriteFileAtomic(p.ConfigFile, buf.Bytes(), 0o600)
}

// Update reads the config file, applies fn and writes it back, all under a
// lock on the file: commands run at once (three `config set` in a script,
// a login beside the console) each change what the others left, and none is
// lost. fn sees the file as it is now; an error from it writes nothing.
func Update(p Paths, fn func(*Config) error) (*Config, error) {
	if err := os.MkdirAll(filepath.Dir(p.ConfigFile), 0o700); err != nil {
		return nil, fmt.Errorf("creating the config directory: %w", err)
	}
	unlock, err := lockFile(p.ConfigFile)
	if err != nil {
		return nil, err
	}
	defer unlock()
	c, err := Load(p)
	if err != nil {
		return nil, err
	}
	if err := fn(c); err != nil {
		return nil, err
	}
	if err := c.Save(p); err != nil {
		return nil, err
	}
	return c, nil
}

// Names returns the profile names, sorted.
func (c *Config) Names() []string {
	names := make([]string, 0, len(c.Profiles))
	for n := range c.Profiles {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Resolve picks the profile to use: flagProfile (--profile), else
// envProfile ($SMSDESK_PROFILE, read by the caller), else the config's active profile, else "default". It
// returns the name and the profile. "default" may be implicit: when the file has
// no such profile, an empty one named "default" is returned (not added to c).
// Any other unknown name is an error listing the known profiles. The returned
// profile is c's own: edits to it are kept by Save.
func (c *Config) Resolve(flagProfile, envProfile string) (string, *Profile, error) {
	name, from := flagProfile, "--profile"
	if name == "" {
		name, from = envProfile, EnvProfile
	}
	if name == "" {
		name, from = c.Active, "active in the config file"
	}
	if name == "" {
		name, from = DefaultProfile, ""
	}
	if err := ValidateProfileName(name); err != nil {
		return "", nil, fmt.Errorf("%s: %w", from, err)
	}
	if prof, ok := c.Profiles[name]; ok && prof != nil {
		prof.Name = name
		return name, prof, nil
	}
	if name == DefaultProfile {
		return name, &Profile{Name: name}, nil
	}
	known := "none yet"
	if names := c.Names(); len(names) > 0 {
		known = strings.Join(names, ", ")
	}
	return "", nil, fmt.Errorf("profile %q (%s) does not exist; known profiles: %s; create it with `smsdesk login --profile %s`", name, from, known, name)
}

// Profile returns the named profile, or nil.
func (c *Config) Profile(name string) *Profile {
	prof := c.Profiles[name]
	if prof != nil {
		prof.Name = name
	}
	return prof
}

// SetProfile validates prof and adds it, or replaces the profile of that name.
// It does not change the active profile.
func (c *Config) SetProfile(prof *Profile) error {
	if prof == nil {
		return errors.New("no profile given")
	}
	if err := prof.Validate(); err != nil {
		return err
	}
	if c.Profiles == nil {
		c.Profiles = map[string]*Profile{}
	}
	c.Profiles[prof.Name] = prof
	return nil
}

// RemoveProfile deletes a profile; if it was active, no profile is active
// afterwards (so "default" applies). It reports whether the profile existed.
// It does not touch the profile's key or state: see Secrets.Delete.
func (c *Config) RemoveProfile(name string) bool {
	if _, ok := c.Profiles[name]; !ok {
		return false
	}
	delete(c.Profiles, name)
	if c.Active == name {
		c.Active = ""
	}
	return true
}

// Use makes name the active profile. It must exist, except "default", which
// may be implicit.
func (c *Config) Use(name string) error {
	if err := ValidateProfileName(name); err != nil {
		return err
	}
	if _, ok := c.Profiles[name]; !ok && name != DefaultProfile {
		known := "none yet"
		if names := c.Names(); len(names) > 0 {
			known = strings.Join(names, ", ")
		}
		return fmt.Errorf("profile %q does not exist; known profiles: %s", name, known)
	}
	c.Active = name
	return nil
}
