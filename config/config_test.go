package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// testPaths are paths in a temp dir whose ledger (opened on first use)
// is closed when the test ends.
func testPaths(t testing.TB) Paths {
	t.Helper()
	dir := t.TempDir()
	p := PathsIn(filepath.Join(dir, "config"), filepath.Join(dir, "state"))
	t.Cleanup(func() { p.CloseLedger() })
	return p
}

func TestLoadMissingFileIsEmpty(t *testing.T) {
	c, err := Load(testPaths(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Profiles) != 0 || c.Active != "" {
		t.Fatalf("got %+v", c)
	}
}

func TestConfigRoundTrip(t *testing.T) {
	p := testPaths(t)
	c := &Config{}
	profiles := []*Profile{
		{Name: "default", BaseURL: "https://sms.example.com/v1"},
		{Name: "work", BaseURL: "https://api.example.ir/api/v1", Sender: "30001", Senders: []string{"30001", "30002"},
			RatePerMinute: 30, ChunkSize: 50, NumberFormat: "e164"},
		{Name: "lab", BaseURL: "http://10.0.0.5:8080", AllowInsecureHTTP: true},
	}
	for _, prof := range profiles {
		if err := c.SetProfile(prof); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Use("work"); err != nil {
		t.Fatal(err)
	}
	if err := c.Save(p); err != nil {
		t.Fatal(err)
	}
	assertMode(t, p.ConfigFile, 0o600)
	assertMode(t, p.ConfigDir, 0o700|os.ModeDir)

	got, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if got.Active != "work" || !reflect.DeepEqual(got.Names(), []string{"default", "lab", "work"}) {
		t.Fatalf("active %q names %v", got.Active, got.Names())
	}
	for _, want := range profiles {
		if g := got.Profile(want.Name); !reflect.DeepEqual(g, want) {
			t.Errorf("profile %s: got %+v, want %+v", want.Name, g, want)
		}
	}
	if len(got.Warnings) != 0 {
		t.Errorf("warnings: %v", got.Warnings)
	}
	data, _ := os.ReadFile(p.ConfigFile)
	for _, key := range []string{`active = "work"`, "[profiles.work]", "rate_per_minute = 30", "allow_insecure_http = true", "number_format = \"e164\""} {
		if !strings.Contains(string(data), key) {
			t.Errorf("file lacks %q:\n%s", key, data)
		}
	}
}

func TestLoadMalformedNamesFileAndLine(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		wantLine int
		wantText string
	}{
		{"unterminated string", "active = \"work\"\n[profiles.work]\nbase_url = \"https://x\n", 3, ""},
		{"double equals", "active = \"a\"\n\n\n[profiles.w]\nchunk_size = = 3\n", 5, ""},
		{"wrong type", "[profiles.work]\nchunk_size = \"ten\"\n", 0, "chunk_size"},
		{"invalid field", "[profiles.work]\nchunk_size = 5000\n", 0, "chunk_size"},
		{"bad number format", "[profiles.w]\nnumber_format = \"intl\"\n", 0, "number_format"},
		{"bad profile name", "[profiles.\"../etc\"]\n", 0, "profile name"},
		{"plain http", "[profiles.w]\nbase_url = \"http://sms.example.com\"\n", 0, "allow_insecure_http"},
		{"a sender line without quotes", "[profiles.w]\nsender = 3000505\n", 0, `sender takes text: write it in quotes (sender = "…")`},
		{"a theme as a bare word", "[console]\ntheme = true\n", 0, `theme takes text`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := testPaths(t)
			if err := WriteFileAtomic(p.ConfigFile, []byte(tt.body), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Load(p)
			var fe *FileError
			if !errors.As(err, &fe) || !errors.Is(err, ErrCorruptFile) {
				t.Fatalf("want a *FileError, got %T %v", err, err)
			}
			msg := err.Error()
			if !strings.Contains(msg, p.ConfigFile) || !strings.Contains(msg, "move it aside") {
				t.Errorf("message lacks file or recovery: %s", msg)
			}
			if tt.wantLine > 0 && (fe.Line != tt.wantLine || !strings.Contains(msg, "line ")) {
				t.Errorf("line %d, want %d: %s", fe.Line, tt.wantLine, msg)
			}
			if tt.wantText != "" && !strings.Contains(msg, tt.wantText) {
				t.Errorf("message lacks %q: %s", tt.wantText, msg)
			}
		})
	}
}

func TestLoadWarnsOfUnknownKeys(t *testing.T) {
	p := testPaths(t)
	body := "[profiles.work]\nrate_per_minut = 30\n"
	if err := WriteFileAtomic(p.ConfigFile, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], "rate_per_minut") {
		t.Fatalf("warnings %v", c.Warnings)
	}
}

func TestResolvePrecedence(t *testing.T) {
	c := &Config{Active: "active", Profiles: map[string]*Profile{
		"flag": {}, "env": {}, "active": {}, "default": {BaseURL: "https://d.example"},
	}}
	noActive := &Config{Profiles: map[string]*Profile{"work": {}}}
	tests := []struct {
		name    string
		cfg     *Config
		flag    string
		env     string
		want    string
		wantErr string
	}{
		{"flag first", c, "flag", "env", "flag", ""},
		{"env second", c, "", "env", "env", ""},
		{"active third", c, "", "", "active", ""},
		{"default last", &Config{Profiles: c.Profiles}, "", "", "default", ""},
		{"implicit default", noActive, "", "", "default", ""},
		{"unknown flag lists known", noActive, "nope", "", "", "known profiles: work"},
		{"unknown env names the variable", noActive, "", "ghost", "", EnvProfile},
		{"unknown in empty config", &Config{}, "x", "", "", "none yet"},
		{"bad name", c, "a/b", "", "", "profile name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name, prof, err := tt.cfg.Resolve(tt.flag, tt.env)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("want error with %q, got %v", tt.wantErr, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if name != tt.want || prof == nil || prof.Name != tt.want {
				t.Fatalf("got %q %+v, want %q", name, prof, tt.want)
			}
		})
	}
}

func TestProfileEditing(t *testing.T) {
	c := &Config{}
	if err := c.SetProfile(&Profile{Name: "work", ChunkSize: -1}); err == nil || !strings.Contains(err.Error(), "chunk_size") {
		t.Fatalf("invalid profile accepted: %v", err)
	}
	if err := c.Use("work"); err == nil {
		t.Fatal("Use of an unknown profile succeeded")
	}
	if err := c.Use(DefaultProfile); err != nil {
		t.Fatalf("Use of the implicit default: %v", err)
	}
	for _, n := range []string{"b", "a", "c"} {
		if err := c.SetProfile(&Profile{Name: n}); err != nil {
			t.Fatal(err)
		}
	}
	if got := c.Names(); !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Fatalf("Names %v", got)
	}
	if err := c.Use("b"); err != nil {
		t.Fatal(err)
	}
	if !c.RemoveProfile("b") || c.Active != "" || c.RemoveProfile("b") {
		t.Fatalf("remove active: active=%q names=%v", c.Active, c.Names())
	}
}

func TestProfileValidation(t *testing.T) {
	tests := []struct {
		prof  Profile
		field string // "" means valid
	}{
		{Profile{Name: "ok", BaseURL: "https://h/v1", RatePerMinute: 120, ChunkSize: 1000, NumberFormat: "E164"}, ""},
		{Profile{Name: "loop", BaseURL: "http://127.0.0.1:8080"}, ""},
		{Profile{Name: "loop6", BaseURL: "http://[::1]:8080/api"}, ""},
		{Profile{Name: "lh", BaseURL: "http://localhost"}, ""},
		{Profile{Name: "x", BaseURL: "http://sms.example.com"}, "base_url"},
		{Profile{Name: "x", BaseURL: "ftp://h"}, "base_url"},
		{Profile{Name: "x", BaseURL: "sms.example.com/v1"}, "base_url"},
		{Profile{Name: "x", BaseURL: "https://u:p@h"}, "base_url"},
		{Profile{Name: "x", BaseURL: "https://h\x00"}, "base_url"},
		{Profile{Name: "x", RatePerMinute: -1}, "rate_per_minute"},
		{Profile{Name: "x", ChunkSize: 1001}, "chunk_size"},
		{Profile{Name: "x", NumberFormat: "intl"}, "number_format"},
		{Profile{Name: "x", Senders: []string{"1", ""}}, "senders"},
		{Profile{Name: "x", Sender: "3", Senders: []string{"1", "2"}}, "sender"},
		{Profile{Name: "x", Sender: "3\x1b[2J"}, "sender"},
		{Profile{Name: ""}, "profile name"},
		{Profile{Name: ".."}, "profile name"},
		{Profile{Name: "a/b"}, "profile name"},
		{Profile{Name: `a\b`}, "profile name"},
		{Profile{Name: strings.Repeat("n", 65)}, "profile name"},
	}
	for _, tt := range tests {
		err := tt.prof.Validate()
		if tt.field == "" {
			if err != nil {
				t.Errorf("%+v: %v", tt.prof, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.field) {
			t.Errorf("%+v: want an error naming %q, got %v", tt.prof, tt.field, err)
		}
		if strings.ContainsAny(err.Error(), "\x00\x1b") {
			t.Errorf("error carries control characters: %q", err)
		}
	}
}

func TestWithDefaults(t *testing.T) {
	got := Profile{Name: "x"}.WithDefaults()
	if got.RatePerMinute != 60 || got.ChunkSize != 100 || got.NumberFormat != "local" {
		t.Fatalf("got %+v", got)
	}
	kept := Profile{RatePerMinute: 5, ChunkSize: 7, NumberFormat: "e164"}.WithDefaults()
	if kept.RatePerMinute != 5 || kept.ChunkSize != 7 || kept.NumberFormat != "e164" {
		t.Fatalf("got %+v", kept)
	}
}
