package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigUnset: every setting, set to a value that is not its default,
// then unset: the file no longer names it and config get reports the
// default again.
func TestConfigUnset(t *testing.T) {
	t.Parallel()
	values := map[string]string{
		"base_url": "http://127.0.0.1:9", "sender": "3000505", "senders": "3000505,10004346",
		"rate_per_minute": "30", "chunk_size": "50", "number_format": "e164", "allow_insecure_http": "true",
		"allow_international": "true", "retry_for": "2m", "repeat_window": "7d", "price_gsm7": "120", "price_ucs2": "60",
		"bidi": "visual", "mouse": "false", "alt_screen": "false", "theme": "light",
	}
	names := map[string]bool{}
	for _, s := range profileSettings {
		names[s.name] = true
	}
	for _, s := range consoleSettings {
		names[s.name] = true
	}
	if len(names) != len(values) {
		t.Fatalf("the test covers %d settings, the program has %d", len(values), len(names))
	}
	w := newCLIWorld(t)
	delete(w.env, "SMSDESK_BASE_URL")
	cfgFile := filepath.Join(w.dir, "config", "config.toml")
	for name, v := range values {
		if !names[name] {
			t.Fatalf("no setting %s", name)
		}
		if name != "sender" { // sender must be one of senders: set those first
			mustRun(t, w, "config", "set", name, v)
		} else {
			mustRun(t, w, "config", "set", "senders", "3000505")
			mustRun(t, w, "config", "set", name, v)
		}
		if b, _ := os.ReadFile(cfgFile); !strings.Contains(string(b), name) {
			t.Fatalf("%s: set but not in the file:\n%s", name, b)
		}
		mustRun(t, w, "config", "unset", name)
		b, _ := os.ReadFile(cfgFile)
		if strings.Contains(string(b), name+" ") || strings.Contains(string(b), name+"=") {
			t.Errorf("%s: still in the file after unset:\n%s", name, b)
		}
		out, errOut, code := w.run("", "config", "get", name)
		if code != 0 || strings.TrimSpace(out) == v || !(strings.Contains(errOut, "default") || strings.Contains(errOut, "not set")) {
			t.Errorf("%s after unset: %q (%q), exit %d; want the default", name, out, errOut, code)
		}
		mustRun(t, w, "config", "unset", "senders")
	}
	if _, errOut, code := w.run("", "config", "unset", "nope"); code != ExitUsage || !strings.Contains(errOut, "no setting") {
		t.Errorf("unset nope: exit %d, %q", code, errOut)
	}
}
