//go:build unix

package cli

import (
	"context"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/model/eventually"
	"github.com/smsdesk/smsdesk/model/syncbuf"
)

// TestSIGHUPFinishesTheChunkInFlight: an SSH session that drops sends SIGHUP
// mid-chunk. The chunk in flight finishes and is journaled: 0 unknown, and
// history's accepted count is what the service took.
func TestSIGHUPFinishesTheChunkInFlight(t *testing.T) {
	held := make(chan struct{})
	release := make(chan struct{})
	var posts atomic.Int32
	e := newSendEnv(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/sms/send-pair") && posts.Add(1) == 2 {
				close(held)
				<-release
			}
			h.ServeHTTP(w, r)
		})
	})
	file := e.pairsFile(t, "pairs.csv", 500, nil)
	done := make(chan int, 1)
	var stdout, stderr syncbuf.Buffer
	go func() {
		done <- Main(context.Background(), []string{"send-pair", "--file", file, "--sender", sandbox.DefaultSender, "--yes"},
			Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: e.getenv})
	}()
	<-held // chunk 2 is in flight; runSend's signal handler is in place
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	eventually.Contains(t, waitLimit, &stderr, "stopping after the chunk in flight") // SIGHUP seen
	close(release)
	code := <-done
	out := stdout.String()
	if code != ExitInterrupted || !strings.Contains(out, "200 accepted") || !strings.Contains(out, "0 unknown") || !strings.Contains(out, "300 not sent") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr.String())
	}
	noDuplicates(t, e, 200)
	hist, _ := e.mustRun(t, 0, "history", "--json")
	if !strings.Contains(hist, `"accepted": 200`) || !strings.Contains(hist, `"unknown": 0`) {
		t.Errorf("history:\n%s", hist)
	}
}
