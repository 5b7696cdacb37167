package cli

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
	"github.com/smsdesk/smsdesk/model/syncbuf"
)

// heldLedger holds a SQLite ledger's write lock from a connection of its
// own (another smsdesk's long transaction) until release or the test's end.
func heldLedger(t *testing.T, path string) (release func()) {
	h, err := ledgertest.TryHoldLedger(t, path)
	if err != nil {
		t.Error(err)
	}
	return h.Release
}

// TestProgressSaysWhatTheLedgerWaitsFor (issue 39 §2): while another
// smsdesk holds the ledger's write lock, send-pair's progress says what it
// waits for, as the send starts and while it runs, and the send goes on
// once the lock is let go (which is only once it has said so): exit 0,
// every pair accepted. Each record failed 'database is locked' after 10 s
// before, and the send stopped.
func TestProgressSaysWhatTheLedgerWaitsFor(t *testing.T) {
	t.Parallel()
	var posts atomic.Int32
	var mu sync.Mutex
	release := func() {}
	var dbPath string
	e := newSendEnv(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/sms/send-pair") && posts.Add(1) == 2 {
				mu.Lock()
				release = heldLedger(t, dbPath) // the second chunk's outcome meets it
				mu.Unlock()
			}
			next.ServeHTTP(w, r)
		})
	})
	dbPath = filepath.Join(e.dir, "state", "smsdesk.db")
	const waiting = "waiting for the ledger: another smsdesk holds its write lock (" // the rest names the file and the record
	send := func(file string, lockBefore bool) {
		t.Helper()
		if lockBefore {
			mu.Lock()
			release = heldLedger(t, dbPath)
			mu.Unlock()
		}
		var stdout, stderr syncbuf.Buffer
		done := make(chan int, 1)
		go func() {
			done <- Main(context.Background(), []string{"send-pair", "--file", file, "--sender", sandbox.DefaultSender, "--yes", "--chunk-size", "1"},
				Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: e.getenv})
		}()
		for !strings.Contains(stderr.String(), waiting) { // the state: it has said so
			select {
			case code := <-done:
				t.Fatalf("send-pair ended (exit %d) without saying it waited:\n%s", code, stderr.String())
			case <-time.After(10 * time.Millisecond):
			}
		}
		mu.Lock()
		release()
		mu.Unlock()
		if code := <-done; code != 0 || !strings.Contains(stdout.String(), "3 accepted") {
			t.Fatalf("send-pair once the lock was let go: exit %d\n%s\n%s", code, stdout.String(), stderr.String())
		}
	}
	send(e.pairsFile(t, "running.csv", 3, nil), false) // the lock comes while it runs
	send(e.file(t, "starting.csv", "recipient,message\n09130000001,a\n09130000002,b\n09130000003,c\n"), true)
}
