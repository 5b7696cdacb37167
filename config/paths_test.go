package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type fakeEnv struct {
	vars      map[string]string
	configDir string
	cacheDir  string
	home      string
}

func (f fakeEnv) LookupEnv(k string) (string, bool) { v, ok := f.vars[k]; return v, ok }
func (f fakeEnv) UserConfigDir() (string, error) {
	if f.configDir == "" {
		return "", errors.New("no config dir")
	}
	return f.configDir, nil
}
func (f fakeEnv) UserCacheDir() (string, error) { return f.cacheDir, nil }
func (f fakeEnv) UserHomeDir() (string, error)  { return f.home, nil }

func TestPathsPrecedence(t *testing.T) {
	base := fakeEnv{configDir: "/os/config", cacheDir: "/os/cache", home: "/home/op"}
	tests := []struct {
		name      string
		vars      map[string]string
		goos      string
		wantCfg   string
		wantState string
	}{
		{"os defaults on linux", nil, "linux", "/os/config/smsdesk", "/home/op/.local/state/smsdesk"},
		{"os defaults on darwin", nil, "darwin", "/os/config/smsdesk", "/home/op/.local/state/smsdesk"},
		{"os defaults on windows", nil, "windows", "/os/config/smsdesk", "/os/cache/smsdesk"},
		{"xdg", map[string]string{"XDG_CONFIG_HOME": "/xdg/c", "XDG_STATE_HOME": "/xdg/s"}, "linux", "/xdg/c/smsdesk", "/xdg/s/smsdesk"},
		{"relative xdg ignored", map[string]string{"XDG_CONFIG_HOME": "rel/c", "XDG_STATE_HOME": "rel/s"}, "linux", "/os/config/smsdesk", "/home/op/.local/state/smsdesk"},
		{"smsdesk vars beat xdg", map[string]string{
			"XDG_CONFIG_HOME": "/xdg/c", "XDG_STATE_HOME": "/xdg/s",
			EnvConfigDir: "/mine/c", EnvStateDir: "/mine/s",
		}, "linux", "/mine/c", "/mine/s"},
		{"empty smsdesk vars ignored", map[string]string{EnvConfigDir: "", EnvStateDir: "", "XDG_STATE_HOME": "/xdg/s"}, "linux", "/os/config/smsdesk", "/xdg/s/smsdesk"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := base
			e.vars = tt.vars
			p, err := pathsFrom(e, tt.goos)
			if err != nil {
				t.Fatal(err)
			}
			if p.ConfigDir != filepath.FromSlash(tt.wantCfg) || p.StateDir != filepath.FromSlash(tt.wantState) {
				t.Errorf("got config %q state %q, want %q %q", p.ConfigDir, p.StateDir, tt.wantCfg, tt.wantState)
			}
			if p.ConfigFile != filepath.Join(p.ConfigDir, "config.toml") || p.CredentialsFile != filepath.Join(p.ConfigDir, "credentials.toml") {
				t.Errorf("files: %+v", p)
			}
		})
	}
}

func TestPathsErrorsNameTheOverride(t *testing.T) {
	_, err := pathsFrom(fakeEnv{home: "/h"}, "linux")
	if err == nil || !contains(err.Error(), EnvConfigDir) {
		t.Fatalf("want an error naming %s, got %v", EnvConfigDir, err)
	}
	_, err = pathsFrom(fakeEnv{configDir: "/c"}, "linux")
	if err == nil || !contains(err.Error(), EnvStateDir) {
		t.Fatalf("want an error naming %s, got %v", EnvStateDir, err)
	}
}

func TestDefaultPathsFromRealEnvironment(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvConfigDir, filepath.Join(dir, "c"))
	t.Setenv(EnvStateDir, "")
	t.Setenv("XDG_STATE_HOME", filepath.Join(dir, "xs"))
	p, err := DefaultPaths()
	if err != nil {
		t.Fatal(err)
	}
	if p.ConfigDir != filepath.Join(dir, "c") || p.StateDir != filepath.Join(dir, "xs", "smsdesk") {
		t.Fatalf("got %+v", p)
	}

	t.Chdir(dir)
	t.Setenv(EnvStateDir, "rel")
	p, err = DefaultPaths()
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(p.StateDir) || filepath.Base(p.StateDir) != "rel" {
		t.Fatalf("relative %s not made absolute: %q", EnvStateDir, p.StateDir)
	}
}

func TestDescribe(t *testing.T) {
	dir := t.TempDir()
	p := PathsIn(filepath.Join(dir, "c"), filepath.Join(dir, "s"))
	if err := os.MkdirAll(p.ConfigDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p.ConfigFile, []byte(""), 0o600); err != nil {
		t.Fatal(err)
	}
	got := map[string]PathInfo{}
	for _, info := range p.Describe() {
		got[info.Path] = info
	}
	want := map[string]bool{p.ConfigDir: true, p.ConfigFile: true, p.CredentialsFile: false, p.StateDir: false, p.GroupsDir(): false,
		filepath.Join(p.StateDir, "cache"): false, p.DebugLog(): false,
		filepath.Join(p.ConfigDir, "keyring.toml"): false, p.OperatorsFile(): false,
		filepath.Join(p.StateDir, "smsdesk.db"): false, filepath.Join(p.StateDir, "rate"): false}
	if len(got) != len(want) {
		t.Fatalf("Describe lists %d paths, want %d: %+v", len(got), len(want), got)
	}
	for path, exists := range want {
		info, ok := got[path]
		if !ok || info.Exists != exists || info.Name == "" || info.Key == "" || strings.ContainsAny(info.Key, " -ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
			t.Errorf("%s: got %+v, want exists=%v with a name and a snake_case key", path, info, exists)
		}
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
