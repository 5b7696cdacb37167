package cli

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// TestRerunAfterUnknownIsRefused: a send whose answers were lost ends with
// unknown outcomes (exit 3); the same command run again — what a cron job
// that retries on failure does — is refused (exit 2) naming the earlier send
// and its unknown count, and sends nothing; the earlier send's resume with
// --include-unknown is the way to send them again.
func TestRerunAfterUnknownIsRefused(t *testing.T) {
	t.Parallel()
	var lose atomic.Bool
	lose.Store(true)
	e := newSendEnv(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/sms/send-pair") && lose.Load() {
				sandbox.ServeThenLose(next, w, r) // processed, then the answer is lost
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	file := e.pairsFile(t, "pairs.csv", 5, nil)
	args := []string{"send-pair", "--file", file, "--sender", sandbox.DefaultSender, "--yes"}
	code, out, stderr := e.run(t, args...)
	if code != ExitUnknown || !strings.Contains(out, "5 unknown") {
		t.Fatalf("first run: exit %d\n%s\n%s", code, out, stderr)
	}
	id := strings.Fields(out[strings.Index(out, "Send ")+5:])[0]
	id = strings.TrimSuffix(id, ":")
	before := e.sb.RequestsTo("POST", "/sms/send-pair")
	lose.Store(false) // the service answers again: nothing stops a resend but smsdesk
	code, _, stderr = e.run(t, args...)
	if code != ExitUsage {
		t.Fatalf("re-run: exit %d, want 2\n%s", code, stderr)
	}
	for _, want := range []string{"5 of 5 pairs were already accepted or may already have gone (5 with an unknown outcome)",
		"send " + id, "--resume " + id + " --include-unknown", "--allow-repeat"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("re-run's stderr lacks %q:\n%s", want, stderr)
		}
	}
	if n := e.sb.RequestsTo("POST", "/sms/send-pair") - before; n != 0 {
		t.Errorf("the re-run made %d send requests", n)
	}
	if got := len(e.sb.Sent()); got != 5 {
		t.Errorf("the service holds %d messages, want the first run's 5", got)
	}
}
