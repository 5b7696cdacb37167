package cli

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// TestKeyCheckProvesTheAPI: a base URL whose server answers every path with
// a JSON 404 is not "key accepted": login, status and doctor say there is no
// API there and name the documented form that answers (/api/v1 here).
func TestKeyCheckProvesTheAPI(t *testing.T) {
	t.Parallel()
	sb, err := sandbox.New(sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	api := sb.Handler() // the API under /api/v1 (a StripPrefix here used to hide it: every path 404 in the envelope, which passed as accepted)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/v1/") {
			api.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"message":"Not Found"}`))
	}))
	t.Cleanup(srv.Close)
	w := newCLIWorld(t)
	w.env["SMSDESK_BASE_URL"], w.env["SMSDESK_API_KEY"] = srv.URL+"/v1", sb.Key()

	out, _, code := w.run("", "status", "--json")
	var st statusReport
	if err := json.Unmarshal([]byte(out), &st); err != nil || st.Accepted || code == 0 {
		t.Fatalf("status against a JSON-404 server: exit %d, %+v", code, st)
	}
	for _, want := range []string{"no smsdesk API at this base URL", srv.URL + "/api/v1 answers as the API"} {
		if !strings.Contains(st.ServiceError, want) {
			t.Errorf("status's error lacks %q: %s", want, st.ServiceError)
		}
	}
	_, errOut, code := w.run(sb.Key()+"\n", "login", "--with-key", "--insecure-storage", "--base-url", srv.URL+"/v1")
	if code != ExitUsage || !strings.Contains(errOut, "smsdesk login --base-url "+srv.URL+"/api/v1") {
		t.Errorf("login against the wrong form: exit %d\n%s", code, errOut)
	}
	w.env["SMSDESK_BASE_URL"] = srv.URL + "/api/v1"
	if out, _, code := w.run("", "status", "--json"); code != 0 || !strings.Contains(out, `"accepted": true`) {
		t.Errorf("status at /api/v1: exit %d\n%s", code, out)
	}
}

// TestStatusAgainstADeadService gives up at once (one attempt), where it
// retried for retry_for: no retry is waited for on the world's fake clock,
// where a retry's wait would show.
func TestStatusAgainstADeadService(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	w := newCLIWorld(t)
	w.clock = newFakeClock()
	w.env["SMSDESK_BASE_URL"] = "http://" + addr + "/api/v1"
	_, _, code := w.run("", "status", "--json")
	if slept := w.clock.Slept(); code == 0 || slept != 0 {
		t.Errorf("status against a closed port: exit %d after waiting %v; want a failure and no retry", code, slept)
	}
}
