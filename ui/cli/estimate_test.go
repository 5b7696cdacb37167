package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// TestPlanTimeFromTheService: the time a send's summary gives before the
// question. A service that announced 5 requests (X-RateLimit-Limit) but not
// its window is a lower bound with a window of a second ("at least 59 s"),
// never 5 a minute ("about 60 min", issue 27 item 11, for a send that took
// one); once a send has learned its window from a 429, "about 2 min"
// (windows of 5 per 2 s, 300 requests). On the test's clock: no real
// second passes.
func TestPlanTimeFromTheService(t *testing.T) {
	t.Parallel()
	fc := newFakeClock()
	w := newCLIWorldWith(t, sandbox.Options{RatePerMinute: 5, RateWindow: 2 * time.Second, Now: fc.Now})
	w.clock = fc
	var b strings.Builder
	b.WriteString("mobile,message\n")
	for i := range 300 {
		fmt.Fprintf(&b, "0912%07d,Your code is %04d\n", i+1, i)
	}
	file := filepath.Join(w.dir, "pairs.csv")
	writeFile(t, file, b.String())
	plan := func() string {
		t.Helper()
		_, errOut, code := w.run("", "send-pair", "--file", file, "--sender", sandbox.DefaultSender, "--chunk-size", "1")
		if code != ExitUsage || !strings.Contains(errOut, "--yes") { // no terminal to ask at: the summary, then the refusal
			t.Fatalf("send-pair without --yes: exit %d\n%s", code, errOut)
		}
		return errOut
	}
	if out := plan(); !strings.Contains(out, "Time: at least 59 s (300 requests, 5 per window; the service has not said its window)") {
		t.Errorf("before the window is known:\n%s", out)
	}
	// A small send spends a window and goes on a second later, the window
	// taken as a second: its 429 teaches the window.
	args := []string{"send-pair", "--sender", sandbox.DefaultSender, "--chunk-size", "1", "--yes"}
	for i := range 7 {
		args = append(args, "--to", fmt.Sprintf("0935%07d", i+1), "--message", fmt.Sprintf("Hello %d!", i))
	}
	mustRun(t, w, args...)
	if out := plan(); !strings.Contains(out, "Time: about 2 min (300 requests, 5 per 2 s as the service said)") {
		t.Errorf("after a send learned the window:\n%s", out)
	}
}
