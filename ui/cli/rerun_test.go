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

// TestRerunAfterUnknownNamesTheSafeWayFirst: the refusal of a re-run after
// unknown outcomes names first the resume that never touches an unknown
// one, then how to check them, and only then the ways that may send a
// copy; under --json the earlier send's id is a field (issue 27 item 4:
// it offered only --include-unknown and --allow-repeat, and the id only in
// its words).
func TestRerunAfterUnknownNamesTheSafeWayFirst(t *testing.T) {
	t.Parallel()
	e := newSendEnvOpts(t, sandbox.Options{DropEvery: 1}, nil) // every answer lost
	file := e.pairsFile(t, "pairs.csv", 3, nil)
	args := []string{"send-pair", "--file", file, "--sender", sandbox.DefaultSender, "--yes", "--json"}
	code, out, stderr := e.run(t, args...)
	rep := decodeReport(t, out)
	if code != ExitUnknown || rep.Counts.Unknown != 3 {
		t.Fatalf("first run: exit %d, %+v", code, rep.Counts)
	}
	id := rep.sendID()
	// Its own exit 3 says the same, in the same order, with the send's id.
	if e0 := errorObject(t, stderr); e0.Error.SendID == nil || *e0.Error.SendID != id || e0.Error.Hint == nil ||
		!strings.HasPrefix(*e0.Error.Hint, "check the unknown ones: smsdesk history show "+id) {
		t.Errorf("first run's error: %+v", e0.Error)
	}
	code, _, stderr = e.run(t, args[:len(args)-1]...)
	order := []string{
		"smsdesk send-pair --resume " + id + " (its unknown ones stay as they are)",
		"smsdesk history show " + id + " lists them",
		"smsdesk send-pair --resume " + id + " --include-unknown",
		"--allow-repeat",
	}
	at := -1
	for _, want := range order {
		i := strings.Index(stderr, want)
		if i < 0 || i < at {
			t.Errorf("re-run: exit %d; %q missing or out of order (safe ways first):\n%s", code, want, stderr)
		}
		at = i
	}
	code, _, stderr = e.run(t, args...)
	e1 := errorObject(t, stderr)
	if code != ExitUsage || e1.Error.Code != "repeat" || e1.Error.SendID == nil || *e1.Error.SendID != id {
		t.Errorf("re-run --json: exit %d, error %+v; want send_id %s\n%s", code, e1.Error, id, stderr)
	}
}
