package cli

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
)

// TestSchedulerOnceStopsAtAWriteThatFails: the ledger stops taking writes
// once a scheduled send's first chunk has gone (its answer cannot be
// recorded): the send stops there, no further request reaches the service,
// and scheduler --once exits 1 naming the cause (it exited 0, and a full
// disk once let 600 texts go that it could not record).
func TestSchedulerOnceStopsAtAWriteThatFails(t *testing.T) {
	for _, b := range ledgertest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			w := newCLIWorld(t)
			w.clock = newFakeClock()
			installed := w.failLedgerAtFirstChunk(t, b, ledgertest.FailRecords)
			for _, set := range []string{"senders", "sender"} {
				if _, errOut, code := w.run("", "config", "set", set, sandbox.DefaultSender); code != 0 {
					t.Fatal(errOut)
				}
			}
			file := w.reminders(t, 30)
			if _, errOut, code := w.run("", "send-pair", "--file", file, "--chunk-size", "10", "--at", "+1m", "--yes"); code != 0 {
				t.Fatalf("scheduling: exit %d\n%s", code, errOut)
			}
			w.clock.Advance(61e9)

			_, errOut, code := w.run("", "scheduler", "--once")
			if err := installed(); err != nil {
				t.Fatal(err)
			}
			if n := w.srv.RequestsTo("POST", "/sms/send-pair"); n != 1 || len(w.srv.Sent()) != 10 {
				t.Errorf("%d send requests, %d messages; want the first chunk's one request only", n, len(w.srv.Sent()))
			}
			if code != ExitService || !strings.Contains(errOut, "scheduler stopped: send ") || !strings.Contains(errOut, "(test)") {
				t.Errorf("scheduler --once: exit %d, want %d naming the cause:\n%s", code, ExitService, errOut)
			}
		})
	}
}

// failLedgerAtFirstChunk puts w on a new ledger at b's location, behind a
// proxy in front of its sandbox that, as the first chunk goes, makes the
// ledger fail its writes with fail. installed says what installing that
// said (read it once the command has run).
func (w *cliWorld) failLedgerAtFirstChunk(t *testing.T, b ledgertest.Backend, fail func(string) error) (installed func() error) {
	t.Helper()
	loc := b.Location(t)
	l, err := ledger.Create(context.Background(), loc)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	w.env["SMSDESK_LEDGER"] = loc
	var once sync.Once
	var installErr error
	proxy := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/sms/send-pair") {
			once.Do(func() { installErr = fail(loc) })
		}
		w.srv.Handler().ServeHTTP(rw, r)
	}))
	t.Cleanup(proxy.Close)
	w.env["SMSDESK_BASE_URL"] = proxy.URL + "/api/v1"
	return func() error { return installErr }
}

// reminders writes a pairs file of n reminders to distinct numbers.
func (w *cliWorld) reminders(t *testing.T, n int) string {
	t.Helper()
	var rows strings.Builder
	rows.WriteString("mobile,message\n")
	for i := range n {
		fmt.Fprintf(&rows, "0912%07d,reminder %d\n", i+1, i)
	}
	file := filepath.Join(w.dir, "pairs.csv")
	writeFile(t, file, rows.String())
	return file
}
