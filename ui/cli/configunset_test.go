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
		"timezone": "UTC", "quiet_hours": "22:00-08:00", "optout_suffix": "لغو۱۱",
		"delivery_poll_after": "30m", "delivery_unknown_after": "3d",
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

// TestConfigSetRules: the rules' settings are checked as they are set, with
// what to write instead (exit 2), and read back as stored.
func TestConfigSetRules(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	for _, tc := range []struct {
		name, value string
		want        string // stored value, or the error's words
		ok          bool
	}{
		{"timezone", "Europe/Berlin", "Europe/Berlin", true},
		{"timezone", "Tehran", "not a timezone: use an IANA name such as Asia/Tehran", false},
		{"timezone", "Local", "this machine's zone", false},
		{"quiet_hours", "22:00 – 08:00", "22:00-08:00", true},
		{"quiet_hours", "off", "off", true},
		{"quiet_hours", "25:00-08:00", "not a time of day: write it like 22:00", false},
		{"quiet_hours", "22:00", "write it like 22:00-08:00, or off", false},
		{"optout_suffix", "لغو۱۱", "لغو۱۱", true},
		{"optout_suffix", "a\x1bb", "control characters", false},
		{"optout_suffix", "off", "", true}, // no suffix, as quiet_hours off: it once ended every message with "off"
		// A blank (an unset $SUFFIX) is refused, naming off: it dropped the
		// suffix from every message without a word.
		{"optout_suffix", "", "blank: the suffix is a line such as لغو۱۱; to send without one, say so: smsdesk config set optout_suffix off", false},
		{"optout_suffix", " \t", "blank:", false},
		{"delivery_poll_after", "30m", "30m", true},
		{"delivery_poll_after", "0", "write it like 10m, 120h or 5d", false},
		{"delivery_poll_after", "soon", "write it like 10m, 120h or 5d", false},
		{"delivery_unknown_after", "5d", "5d", true},
		{"delivery_unknown_after", "0s", "write it like 10m, 120h or 5d", false},
	} {
		out, errOut, code := w.run("", "config", "set", tc.name, tc.value)
		if !tc.ok {
			if code != ExitUsage || !strings.Contains(errOut, tc.name+": ") || !strings.Contains(errOut, tc.want) {
				t.Errorf("set %s %q: exit %d, %q; want exit 2 with %q", tc.name, tc.value, code, errOut, tc.want)
			}
			continue
		}
		if code != 0 {
			t.Errorf("set %s %q: exit %d, %s %s", tc.name, tc.value, code, out, errOut)
			continue
		}
		if got, _, _ := w.run("", "config", "get", tc.name); strings.TrimSpace(got) != tc.want {
			t.Errorf("get %s = %q, want %q", tc.name, got, tc.want)
		}
	}
}
