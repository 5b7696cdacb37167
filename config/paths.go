package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/smsdesk/smsdesk/config/ledger"
)

// appName names smsdesk's directories and the keyring service.
const appName = "smsdesk"

// Environment variables that override where smsdesk keeps its files.
const (
	EnvConfigDir = "SMSDESK_CONFIG_DIR" // overrides the config directory
	EnvStateDir  = "SMSDESK_STATE_DIR"  // overrides the state directory
)

// Paths are the directories and files smsdesk uses on this machine.
type Paths struct {
	ConfigDir       string // settings and (with --insecure-storage) credentials
	StateDir        string // known groups, send history
	ConfigFile      string // ConfigDir/config.toml
	CredentialsFile string // ConfigDir/credentials.toml, only for --insecure-storage

	ledger *ledgerHandle // opened on first use (Ledger); shared by copies
}

// PathInfo describes one path for `smsdesk config path`.
type PathInfo struct {
	Key    string `json:"key"`  // a stable snake_case name for scripts: config_file, debug_log, …
	Name   string `json:"name"` // what the path is for, e.g. "config file"
	Path   string `json:"path"`
	Exists bool   `json:"exists"`
}

// DefaultPaths returns the paths in use, from the environment:
//
//   - config dir: SMSDESK_CONFIG_DIR, else $XDG_CONFIG_HOME/smsdesk, else
//     os.UserConfigDir()/smsdesk;
//   - state dir: SMSDESK_STATE_DIR, else $XDG_STATE_HOME/smsdesk, else
//     ~/.local/state/smsdesk (on Windows and Plan 9, os.UserCacheDir()/smsdesk).
//
// Relative XDG values are ignored, as the XDG spec asks; relative SMSDESK_* values
// are made absolute.
func DefaultPaths() (Paths, error) {
	return pathsFrom(osEnv{}, runtime.GOOS)
}

// PathsFromEnv is DefaultPaths with the environment read through lookup (the
// command line's injected environment, so that tests need not set the
// process's). On Linux and the BSDs the home directory is lookup's $HOME; on
// macOS and Windows the system's user directories are asked.
func PathsFromEnv(lookup func(string) (string, bool)) (Paths, error) {
	return pathsFrom(lookupEnv(lookup), runtime.GOOS)
}

// lookupEnv is an env read through a lookup function.
type lookupEnv func(string) (string, bool)

func (f lookupEnv) LookupEnv(k string) (string, bool) { return f(k) }

func (f lookupEnv) UserHomeDir() (string, error) {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" || runtime.GOOS == "plan9" {
		return os.UserHomeDir()
	}
	if h, _ := f("HOME"); h != "" {
		return h, nil
	}
	return "", errors.New("$HOME is not set")
}

func (f lookupEnv) UserConfigDir() (string, error) {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" || runtime.GOOS == "plan9" {
		return os.UserConfigDir()
	}
	h, err := f.UserHomeDir()
	return filepath.Join(h, ".config"), err
}

func (f lookupEnv) UserCacheDir() (string, error) { return os.UserCacheDir() }

// PathsIn returns the paths for a config dir and a state dir given explicitly
// (tests, --config-dir style overrides).
func PathsIn(configDir, stateDir string) Paths {
	return Paths{
		ConfigDir:       configDir,
		StateDir:        stateDir,
		ConfigFile:      filepath.Join(configDir, "config.toml"),
		CredentialsFile: filepath.Join(configDir, "credentials.toml"),
		ledger:          newLedgerHandle(""),
	}
}

// GroupsDir is the directory of the per-profile known-groups files.
func (p Paths) GroupsDir() string { return filepath.Join(p.StateDir, "groups") }

// DebugLog is where --debug writes its log.
func (p Paths) DebugLog() string { return filepath.Join(p.StateDir, "debug.log") }

// Describe lists every path in use and whether it exists, for `smsdesk config path`.
func (p Paths) Describe() []PathInfo {
	list := []PathInfo{
		{Key: "config_dir", Name: "config dir", Path: p.ConfigDir},
		{Key: "config_file", Name: "config file", Path: p.ConfigFile},
		{Key: "credentials_file", Name: "credentials file (--insecure-storage only)", Path: p.CredentialsFile},
		{Key: "state_dir", Name: "state dir", Path: p.StateDir},
		{Key: "groups_dir", Name: "known groups", Path: p.GroupsDir()},
		{Key: "contacts_cache_dir", Name: "contacts cache (the console's)", Path: filepath.Join(p.StateDir, "cache")},
		{Key: "debug_log", Name: "debug log (--debug only)", Path: p.DebugLog()},
		{Key: "keyring_index", Name: "keyring index (names of profiles whose key is in the keyring)", Path: filepath.Join(p.ConfigDir, "keyring.toml")},
		{Key: "operators_file", Name: "operators (smsdesk serve)", Path: p.OperatorsFile()},
		{Key: "rate_dir", Name: "request budget per key", Path: filepath.Join(p.StateDir, "rate")},
	}
	for i := range list {
		_, err := os.Stat(list[i].Path)
		list[i].Exists = err == nil
	}
	// The ledger: sends, opt-outs, once-only ids, repeat digests, audit.
	if loc, err := p.LedgerLocation(); err == nil {
		info := PathInfo{Key: "ledger", Name: "ledger (sends, opt-outs, once-only ids, audit)", Path: ledger.Redact(loc)}
		if ledger.IsPostgres(loc) {
			info.Exists = true // not looked up: that is a connection
		} else {
			_, err := os.Stat(loc)
			info.Exists = err == nil
		}
		list = append(list, info)
	}
	return list
}

// env is the environment as pathsFrom sees it; osEnv is the real one.
type env interface {
	LookupEnv(key string) (string, bool)
	UserConfigDir() (string, error)
	UserCacheDir() (string, error)
	UserHomeDir() (string, error)
}

type osEnv struct{}

func (osEnv) LookupEnv(k string) (string, bool) { return os.LookupEnv(k) }
func (osEnv) UserConfigDir() (string, error)    { return os.UserConfigDir() }
func (osEnv) UserCacheDir() (string, error)     { return os.UserCacheDir() }
func (osEnv) UserHomeDir() (string, error)      { return os.UserHomeDir() }

func pathsFrom(e env, goos string) (Paths, error) {
	cfg, err := configDir(e)
	if err != nil {
		return Paths{}, err
	}
	state, err := stateDir(e, goos)
	if err != nil {
		return Paths{}, err
	}
	p := PathsIn(cfg, state)
	if v, ok := e.LookupEnv(EnvLedger); ok {
		p.ledger.env = v
	}
	return p, nil
}

func configDir(e env) (string, error) {
	if d, ok := e.LookupEnv(EnvConfigDir); ok && d != "" {
		return absDir(EnvConfigDir, d)
	}
	if d, ok := e.LookupEnv("XDG_CONFIG_HOME"); ok && filepath.IsAbs(d) {
		return filepath.Join(d, appName), nil
	}
	d, err := e.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("finding the config directory: %w; set %s", err, EnvConfigDir)
	}
	return filepath.Join(d, appName), nil
}

func stateDir(e env, goos string) (string, error) {
	if d, ok := e.LookupEnv(EnvStateDir); ok && d != "" {
		return absDir(EnvStateDir, d)
	}
	if d, ok := e.LookupEnv("XDG_STATE_HOME"); ok && filepath.IsAbs(d) {
		return filepath.Join(d, appName), nil
	}
	if goos == "windows" || goos == "plan9" {
		d, err := e.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("finding the state directory: %w; set %s", err, EnvStateDir)
		}
		return filepath.Join(d, appName), nil
	}
	home, err := e.UserHomeDir()
	if err != nil || home == "" {
		if err == nil {
			err = errors.New("$HOME is not set")
		}
		return "", fmt.Errorf("finding the state directory: %w; set %s or XDG_STATE_HOME", err, EnvStateDir)
	}
	return filepath.Join(home, ".local", "state", appName), nil
}

func absDir(name, d string) (string, error) {
	a, err := filepath.Abs(d)
	if err != nil {
		return "", fmt.Errorf("%s=%q: %w", name, d, err)
	}
	return a, nil
}
