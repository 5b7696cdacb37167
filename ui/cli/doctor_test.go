package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDoctor: every check reports, a broken key and a readable file are ✗
// with their fix (exit 1), a proxy password never shows, and a healthy setup
// exits 0.
func TestDoctor(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	mustRun(t, w, "config", "set", "sender", "3000505") // creates the config file
	w.env["TERM"], w.env["COLORTERM"] = "xterm-256color", "truecolor"
	type finding struct{ Check, Status, Detail, Fix string }
	doctor := func() ([]finding, string, int) {
		out, errOut, code := w.run("", "doctor", "--json")
		var fs []finding
		if err := json.Unmarshal([]byte(out), &fs); err != nil {
			t.Fatalf("doctor --json: %v\n%s\n%s", err, out, errOut)
		}
		return fs, out, code
	}
	status := func(fs []finding, check string) finding {
		for _, f := range fs {
			if f.Check == check && f.Status != "warn" || f.Check == check && check == "keyring" {
				return f
			}
		}
		t.Fatalf("no %s check in %+v", check, fs)
		return finding{}
	}

	fs, out, code := doctor()
	if code != 0 {
		t.Fatalf("a healthy setup: exit %d\n%s", code, out)
	}
	for _, c := range []string{"config", "profile", "base URL", "proxy", "key", "clock", "rate", "terminal", "files"} {
		if c == "terminal" && !strings.Contains(status(fs, c).Detail, "true colour") {
			t.Errorf("terminal: %+v, want the colours from COLORTERM", status(fs, c))
		}
		if f := status(fs, c); f.Status != "ok" {
			t.Errorf("%s: %+v, want ok", c, f)
		}
	}
	if f := status(fs, "keyring"); f.Status != "warn" || !strings.Contains(f.Detail, "DBUS_SESSION_BUS_ADDRESS") {
		t.Errorf("keyring without D-Bus: %+v", f)
	}

	// A key the service refuses, a config file others can read, a proxy with a password.
	w.env["SMSDESK_API_KEY"] = "sk_test_notthekey0000000"
	w.env["HTTPS_PROXY"] = "http://user:s3cret@proxy.example:3128"
	w.env["NO_PROXY"] = "127.0.0.1"
	cfg := filepath.Join(w.env["SMSDESK_CONFIG_DIR"], "config.toml")
	if err := os.Chmod(cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	fs, out, code = doctor()
	if code != ExitService {
		t.Errorf("broken setup: exit %d, want %d", code, ExitService)
	}
	if f := status(fs, "key"); f.Status != "fail" || !strings.Contains(f.Detail, "refused") || !strings.Contains(f.Fix, "smsdesk login") {
		t.Errorf("refused key: %+v", f)
	}
	if f := status(fs, "files"); f.Status != "fail" || !strings.Contains(f.Detail, "0644") || f.Fix != "chmod 600 "+cfg {
		t.Errorf("readable config: %+v", f)
	}
	if strings.Contains(out, "s3cret") || strings.Contains(out, "notthekey") {
		t.Errorf("doctor printed a secret:\n%s", out)
	}
	var proxy finding
	for _, f := range fs {
		if f.Check == "proxy" {
			proxy = f
		}
	}
	if proxy.Status != "warn" || !strings.Contains(proxy.Detail, "proxy.example:3128") {
		t.Errorf("proxy: %+v", proxy)
	}
	// A clock months away from the service's is named.
	w.clock = newFakeClock()
	fs, _, _ = doctor()
	for _, f := range fs {
		if f.Check == "clock" && (f.Status != "warn" || !strings.Contains(f.Fix, "time sync")) {
			t.Errorf("clock off by months: %+v", f)
		}
	}
	w.clock = nil
	// People get one line per check, with the fix under it.
	text, _, _ := w.run("", "doctor")
	if !strings.Contains(text, "✗ files") || !strings.Contains(text, "→ chmod 600 ") || !strings.Contains(text, "✓ base URL") {
		t.Errorf("doctor for people:\n%s", text)
	}
}

// TestDoctorOnADeadService: a diagnosis says at once what it sees, instead
// of retrying a service that does not answer for retry_for: no retry is
// announced and none is waited for (the world's clock is fake: a retry's
// wait would show on it).
func TestDoctorOnADeadService(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	w.env["SMSDESK_BASE_URL"] = "http://127.0.0.1:1/api/v1"
	w.clock = newFakeClock()
	slept := w.clock.Slept()
	out, errOut, code := w.run("", "doctor")
	if code != ExitService || !strings.Contains(out, "✗ key") || !strings.Contains(out, "connection refused") || strings.Contains(errOut, "retry") {
		t.Errorf("exit %d\n%s\n%s", code, out, errOut)
	}
	if d := w.clock.Slept() - slept; d != 0 {
		t.Errorf("doctor waited %v against a dead port, want no retry", d)
	}
}

// TestDoctorAgainstAServiceThatNeverAnswers: a service that takes the
// connection and never answers is said within the check's bound all told
// (status's: one bound for the key check and the clock, not a wait each),
// in words: "no answer from HOST within …". The bound is injected (the
// real one is 2.5 s). One bound shows as one connection a run: the key
// check takes it and hangs until the bound; the clock check that follows
// finds the bound spent and does not dial. A bound each made two (and took
// twice the time: this test timed it once, and failed on a busy machine).
func TestDoctorAgainstAServiceThatNeverAnswers(t *testing.T) {
	t.Parallel()
	hung := newHungService(t)
	w := newCLIWorld(t)
	w.checkTimeout = 500 * time.Millisecond
	w.env["SMSDESK_BASE_URL"] = "http://" + hung.Addr() + "/api/v1"
	say := "no answer from " + hung.Addr() + " within 500ms: is the service running, and is the base URL right?"
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"for people", []string{"doctor"}},
		{"--json", []string{"doctor", "--json"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := w.run("", tt.args...)
			if code != ExitService || strings.Contains(out+errOut, "time ran out") {
				t.Errorf("exit %d, want 1\n%s\n%s", code, out, errOut)
			}
			if n := strings.Count(out, say); n != 2 { // the key check and the clock
				t.Errorf("%q said %d times, want 2 (key, clock):\n%s", say, n, out)
			}
			if n := hung.Taken(t); n != 1 {
				t.Errorf("the hung service took %d connections, want 1: one bound for both checks", n)
			}
		})
	}
}

// TestDoctorQuietHours: a live key without quiet hours is "!" with the fix;
// quiet hours show with their zone and where now stands (the world's clock,
// 15:30 in Tehran); a test key without them is fine; the opt-out list is
// counted.
func TestDoctorQuietHours(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	w.clock = newFakeClock()
	mustRun(t, w, "optout", "add", "09121234567")
	quiet := func() (q, opt map[string]any) {
		out, _, _ := w.run("", "doctor", "--json")
		var fs []map[string]any
		if err := json.Unmarshal([]byte(out), &fs); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		for _, f := range fs {
			switch f["check"] {
			case "quiet hours":
				q = f
			case "opt-outs":
				opt = f
			}
		}
		return q, opt
	}
	for _, tc := range []struct {
		name, key, set string
		status, detail string
		fix            any
	}{
		{"test key, off", testKey, "", "ok", "off (Asia/Tehran)", nil},
		{"set", testKey, "22:00-08:00", "ok", "22:00–08:00 Asia/Tehran (now outside them; they begin at 22:00)", nil},
		{"inside", testKey, "15:00-16:00", "ok", "(now inside them: sending may start at 16:00)", nil},
		{"live key, off", "sk_live_0123456789abcdefdead", "off", "warn", "off on a profile with a live key", "smsdesk --profile default config set quiet_hours 22:00-08:00"},
	} {
		w.env["SMSDESK_API_KEY"] = tc.key
		if tc.set != "" {
			mustRun(t, w, "config", "set", "quiet_hours", tc.set)
		}
		q, opt := quiet()
		if q == nil || q["status"] != tc.status || !strings.Contains(q["detail"].(string), tc.detail) || q["fix"] != tc.fix {
			t.Errorf("%s: %v", tc.name, q)
		}
		if tc.key == testKey && (opt == nil || !strings.HasPrefix(opt["detail"].(string), "1 number(s) on the opt-out list")) {
			t.Errorf("%s: opt-outs %v", tc.name, opt)
		}
	}
	out, _, _ := w.run("", "doctor")
	if !strings.Contains(out, "! quiet hours") || !strings.Contains(out, "→ smsdesk --profile default config set quiet_hours 22:00-08:00") {
		t.Errorf("doctor for people:\n%s", out)
	}
}
