package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// TestProfilesFromTheCommandLine: login --profile creates the profile (the
// first becomes active), profiles add/use/remove/list work without editing
// the file, and the file holds only what was set.
func TestProfilesFromTheCommandLine(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	delete(w.env, "SMSDESK_BASE_URL")
	delete(w.env, "SMSDESK_API_KEY")
	login := func(args ...string) (string, int) {
		_, errOut, code := w.run(testKey+"\n", append([]string{"login", "--with-key", "--insecure-storage"}, args...)...)
		return errOut, code
	}
	errOut, code := login("--profile", "test", "--base-url", w.baseURL)
	if code != 0 || !strings.Contains(errOut, "new profile test (active)") {
		t.Fatalf("login --profile test: exit %d\n%s", code, errOut)
	}
	errOut, code = login("--profile", "second", "--base-url", w.baseURL)
	if code != 0 || !strings.Contains(errOut, "new profile second") || strings.Contains(errOut, "(active)") {
		t.Fatalf("login --profile second: exit %d\n%s", code, errOut)
	}
	// The active profile is used without --profile: status reaches the service.
	if out, errOut, code := w.run("", "status", "--json"); code != 0 || !strings.Contains(out, `"profile": "test"`) {
		t.Fatalf("status: exit %d %s %s", code, out, errOut)
	}
	if _, errOut, code := w.run("", "profiles", "add", "third", "--base-url", "https://sms.example.com/v1", "--sender", "3000505"); code != 0 || !strings.Contains(errOut, "login --profile third") {
		t.Fatalf("profiles add: exit %d %s", code, errOut)
	}
	if _, errOut, code := w.run("", "profiles", "add", "third", "--base-url", "https://sms.example.com/v1"); code != ExitUsage || !strings.Contains(errOut, "exists already") {
		t.Errorf("profiles add twice: exit %d %s", code, errOut)
	}
	if _, errOut, code := w.run("", "profiles", "add", "insecure", "--base-url", "http://sms.example.com/v1"); code != ExitUsage || !strings.Contains(errOut, "http") {
		t.Errorf("profiles add with plain http to a remote host: exit %d %s", code, errOut)
	}
	mustRun(t, w, "profiles", "use", "second")
	var list []struct {
		Name   string `json:"name"`
		Active bool   `json:"active"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, w, "profiles", "list", "--json")), &list); err != nil || len(list) != 3 {
		t.Fatalf("profiles list --json: %v %+v", err, list)
	}
	for _, p := range list {
		if p.Active != (p.Name == "second") {
			t.Errorf("after use second: %+v", list)
		}
	}
	// Remove asks; without a terminal it needs --yes.
	if _, errOut, code := w.run("", "profiles", "remove", "test"); code != ExitUsage || !strings.Contains(errOut, "--yes") {
		t.Errorf("profiles remove without --yes: exit %d %s", code, errOut)
	}
	_, errOut, code = w.run("", "profiles", "remove", "second", "--yes")
	if code != 0 || !strings.Contains(errOut, "No profile is active now") {
		t.Errorf("remove the active profile: exit %d %s", code, errOut)
	}
	// No D-Bus session here, and smsdesk never put a key of second in the
	// keyring: nothing to warn about (it said "could not remove the stored
	// key of second").
	if strings.Contains(errOut, "could not remove") || strings.Contains(errOut, "keyring") {
		t.Errorf("removing a profile whose key was never in the keyring warns:\n%s", errOut)
	}
	if _, errOut, code := w.run("", "--profile", "second", "status"); code != ExitUsage || !strings.Contains(errOut, "does not exist") {
		t.Errorf("the removed profile is still usable: exit %d %s", code, errOut)
	}
	creds, _ := os.ReadFile(filepath.Join(w.env["SMSDESK_CONFIG_DIR"], "credentials.toml"))
	if strings.Count(string(creds), testKey) != 1 {
		t.Errorf("after removing second, the credentials file should hold test's key only:\n%s", creds)
	}
	// The file holds only what was set: no zero values.
	mustRun(t, w, "--profile", "test", "config", "set", "sender", "3000505")
	cfg, _ := os.ReadFile(filepath.Join(w.env["SMSDESK_CONFIG_DIR"], "config.toml"))
	for _, unset := range []string{"rate_per_minute", "chunk_size", "number_format", "retry_for", "allow_", "price_"} {
		if strings.Contains(string(cfg), unset) {
			t.Errorf("config.toml holds %s though it was never set:\n%s", unset, cfg)
		}
	}
}

// TestConfigGetShowsWhatIsInForce: the value in force and where it comes from.
func TestConfigGetShowsWhatIsInForce(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	get := func(args ...string) (string, string) {
		out, errOut, code := w.run("", append([]string{"config", "get"}, args...)...)
		if code != 0 {
			t.Fatalf("config get %v: exit %d %s", args, code, errOut)
		}
		return strings.TrimSpace(out), strings.TrimSpace(errOut)
	}
	if v, src := get("chunk_size"); v != "100" || src != "(default)" {
		t.Errorf("chunk_size = %q %q, want 100 (default)", v, src)
	}
	mustRun(t, w, "config", "set", "chunk_size", "50")
	if v, src := get("chunk_size"); v != "50" || !strings.Contains(src, "profile default") {
		t.Errorf("chunk_size after set = %q %q", v, src)
	}
	if v, src := get("base_url"); v != w.baseURL || src != "(environment (SMSDESK_BASE_URL))" {
		t.Errorf("base_url = %q %q", v, src)
	}
	out, _ := get("--json")
	var rows []struct{ Setting, Value, Source string }
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != len(profileSettings)+len(consoleSettings)+1 { // and the ledger
		t.Fatalf("config get --json: %v\n%s", err, out)
	}
	for _, r := range rows {
		if r.Setting == "retry_for" && (r.Value != "30s" || r.Source != "default") {
			t.Errorf("retry_for row %+v", r)
		}
	}
	out, _, _ = w.run("", "config", "path", "--json")
	var paths []struct {
		Key  string `json:"key"`
		Path string `json:"path"`
	}
	if err := json.Unmarshal([]byte(out), &paths); err != nil || !strings.Contains(out, `"debug_log"`) || !strings.Contains(out, `"config_file"`) || strings.Contains(out, `"Path"`) {
		t.Errorf("config path --json:\n%s", out)
	}
}

// TestConsoleSettings: the console's display settings are set and read like
// the profile's, validated, and shared by every profile.
func TestConsoleSettings(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	for _, c := range []struct{ setting, value string }{{"bidi", "visual"}, {"mouse", "false"}, {"alt_screen", "false"}, {"theme", "light"}} {
		mustRun(t, w, "config", "set", c.setting, strings.ToUpper(c.value[:1])+c.value[1:]) // any case
		out, errOut, _ := w.run("", "--profile", "default", "config", "get", c.setting)
		if strings.TrimSpace(out) != c.value || !strings.Contains(errOut, "[console]") {
			t.Errorf("config get %s = %q %q, want %s from [console]", c.setting, out, errOut, c.value)
		}
	}
	for _, bad := range [][]string{{"bidi", "sideways"}, {"theme", "neon"}, {"mouse", "maybe"}} {
		if _, errOut, code := w.run("", "config", "set", bad[0], bad[1]); code != ExitUsage || !strings.Contains(errOut, bad[0]) {
			t.Errorf("config set %v: exit %d %s", bad, code, errOut)
		}
	}
	cfg, _ := os.ReadFile(filepath.Join(w.env["SMSDESK_CONFIG_DIR"], "config.toml"))
	if !strings.Contains(string(cfg), "[console]") || !strings.Contains(string(cfg), `bidi = "visual"`) {
		t.Errorf("config.toml:\n%s", cfg)
	}
}

// TestLogoutForgetsTheContactsCache: the console's cached names and numbers
// do not outlive the key.
func TestLogoutForgetsTheContactsCache(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	paths := config.PathsIn(w.env["SMSDESK_CONFIG_DIR"], w.env["SMSDESK_STATE_DIR"])
	if err := config.SaveCachedContacts(paths, "default", w.baseURL, "1", []model.Contact{{ID: "1", Name: "Ali", Mobile: "09121234567"}}, time.Now()); err != nil {
		t.Fatal(err)
	}
	w.run("", "logout")
	if _, ok := config.LoadCachedContacts(paths, "default", w.baseURL, "1"); ok {
		t.Error("the contacts cache survived logout")
	}
}

func TestTidyKey(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"sk_test_abc", "sk_test_abc"},
		{"  sk_test_abc \r\n", "sk_test_abc"},
		{"Bearer sk_test_abc", "sk_test_abc"},
		{"bearer   sk_test_abc", "sk_test_abc"},
		{"Authorization: Bearer sk_test_abc", "sk_test_abc"},
		{`"sk_test_abc"`, "sk_test_abc"},
		{`'sk_test_abc'`, "sk_test_abc"},
		{`export SMSDESK_API_KEY="sk_test_abc"`, "sk_test_abc"},
		{`SMSDESK_API_KEY=sk_test_abc`, "sk_test_abc"},
		{`"Bearer sk_test_abc"`, "sk_test_abc"},
		{`"sk_test_abc`, `"sk_test_abc`}, // unbalanced: left for the service to refuse
		{"Bearer", "Bearer"},
	} {
		if got := tidyKey(tt.in); got != tt.want {
			t.Errorf("tidyKey(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
