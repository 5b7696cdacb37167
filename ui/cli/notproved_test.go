package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// TestNoCheckMarkWhereNoAPIAnswered: a base URL one segment off, where the
// sandbox answers every path 404 in the API's envelope, gets no ✓ from
// status, doctor or login: they say nothing there answered as the API and
// name the documented form that does (issue 27 item 10: status said "✓
// accepted by the service" and exited 0).
func TestNoCheckMarkWhereNoAPIAnswered(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	root := strings.TrimSuffix(w.baseURL, "/api/v1")
	w.env["SMSDESK_BASE_URL"] = root + "/v1"
	right := root + "/api/v1"

	out, errOut, code := w.run("", "status")
	if code != ExitUsage || strings.Contains(out, "✓") || !strings.Contains(out, "nothing at this base URL answered as the API") ||
		!strings.Contains(out, right+" answers as the API: smsdesk login --base-url "+right) {
		t.Errorf("status at a wrong base URL: exit %d\n%s%s", code, out, errOut)
	}
	out, _, code = w.run("", "status", "--json")
	var st statusReport
	if err := json.Unmarshal([]byte(out), &st); err != nil || st.Accepted || code != ExitUsage {
		t.Errorf("status --json at a wrong base URL: exit %d, %+v (%v)", code, st, err)
	}
	out, _, code = w.run("", "doctor")
	if code == 0 || !strings.Contains(out, "smsdesk login --base-url "+right) || strings.Contains(out, "accepted by the service's API") {
		t.Errorf("doctor at a wrong base URL: exit %d\n%s", code, out)
	}
	delete(w.env, "SMSDESK_API_KEY")
	_, errOut, code = w.run(testKey+"\n", "login", "--with-key", "--insecure-storage", "--base-url", root+"/v1")
	if code != ExitUsage || strings.Contains(errOut, "✓") || !strings.Contains(errOut, "the key was not stored") || !strings.Contains(errOut, right) {
		t.Errorf("login at a wrong base URL: exit %d\n%s", code, errOut)
	}
}

// TestNoCheckMarkWithoutAProof: at the right base URL of a service without
// the credit endpoint, before any group is known, nothing answers 2xx:
// status says the key was not refused but not accepted either (!, exit 1),
// login stores the key and says the same; once a group is known its list
// proves the key (✓).
func TestNoCheckMarkWithoutAProof(t *testing.T) {
	t.Parallel()
	w := newCLIWorldWith(t, sandbox.Options{NoCreditEndpoint: true})
	out, _, code := w.run("", "status")
	if code != ExitService || strings.Contains(out, "✓") || !strings.Contains(out, "Check:     ! not refused, but not accepted either") {
		t.Errorf("status without a proof: exit %d\n%s", code, out)
	}
	delete(w.env, "SMSDESK_API_KEY")
	_, errOut, code := w.run(testKey+"\n", "login", "--with-key", "--insecure-storage", "--base-url", w.baseURL)
	if code != 0 || strings.Contains(errOut, "✓ The service") || !strings.Contains(errOut, "! The service at") || !strings.Contains(errOut, "did not refuse key") {
		t.Errorf("login without a proof: exit %d\n%s", code, errOut)
	}
	delete(w.env, "SMSDESK_BASE_URL") // the profile's now, and its stored key
	mustRun(t, w, "groups", "track", "1")
	if out := mustRun(t, w, "status"); !strings.Contains(out, "✓ accepted by the service") {
		t.Errorf("status with a known group:\n%s", out)
	}
}

// TestBaseURLUserinfoRedacted: a base URL with a user name and password in
// it (from SMSDESK_BASE_URL or --base-url: a profile's is refused when the
// config is read) is never printed with them: status (text and JSON),
// doctor and config get (issue 27 item 10).
func TestBaseURLUserinfoRedacted(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	withUser := strings.Replace(w.baseURL, "http://", "http://ops:hunter2secret@", 1)
	w.env["SMSDESK_BASE_URL"] = withUser
	for _, args := range [][]string{{"status"}, {"status", "--json"}, {"doctor"}, {"doctor", "--json"}, {"config", "get", "base_url"}, {"config", "get", "--json"}} {
		out, errOut, _ := w.run("", args...)
		if strings.Contains(out+errOut, "hunter2secret") || strings.Contains(out+errOut, "ops:") {
			t.Errorf("smsdesk %v printed the base URL's password:\n%s%s", args, out, errOut)
		}
		if !strings.Contains(out+errOut, "[REDACTED]@") && args[0] != "doctor" {
			t.Errorf("smsdesk %v: no redacted base URL:\n%s%s", args, out, errOut)
		}
	}
}
