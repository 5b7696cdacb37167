package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseConfig: any config file either loads into valid profiles or yields a
// *FileError naming the file; it never panics.
func FuzzParseConfig(f *testing.F) {
	for _, seed := range []string{
		"",
		"active = \"work\"\n[profiles.work]\nbase_url = \"https://h/v1\"\nsenders = [\"1\",\"2\"]\nsender = \"1\"\n",
		"[profiles.w]\nchunk_size = 5000\n",
		"[profiles.\"../x\"]\n",
		"active = 3\n",
		"[profiles]\nw = 1\n",
		"[[profiles.w]]\n",
		"[profiles.w]\nnumber_format = \"e164\"\nrate_per_minute = -5\n",
		"\xef\xbb\xbfactive = \"a\"\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		c, err := parseConfig("/cfg/config.toml", []byte(body))
		if err != nil {
			var fe *FileError
			if !errors.As(err, &fe) || !strings.HasPrefix(err.Error(), "/cfg/config.toml") {
				t.Fatalf("error without the file: %v", err)
			}
			return
		}
		for _, n := range c.Names() {
			if err := c.Profiles[n].Validate(); err != nil {
				t.Fatalf("loaded an invalid profile: %v", err)
			}
		}
	})
}

// FuzzReadGroups: any groups file either loads (every group has an id) or
// yields a *FileError with the recovery; it never panics.
func FuzzReadGroups(f *testing.F) {
	for _, seed := range []string{
		`{"version":1,"groups":[{"id":1,"name":"a","contacts":3,"added_at":"2026-01-02T03:04:05Z"}]}`,
		`{"version":1,"groups":[{"id":"x-1","name":null}]}`,
		`{"version":1,"groups":[{"id":1.5e3}]}`,
		`{"version":1,"gro`,
		`[]`,
		`null`,
		``,
	} {
		f.Add(seed)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, body string) {
		path := filepath.Join(dir, "w.json")
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		list, err := readGroups(path)
		if err != nil {
			if !errors.Is(err, ErrCorruptFile) || !strings.Contains(err.Error(), "groups track ID") {
				t.Fatalf("unexpected error: %v", err)
			}
			return
		}
		for _, g := range list {
			if g.ID.IsZero() {
				t.Fatalf("group without id loaded: %+v", g)
			}
		}
	})
}
