package app

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
)

// takeWriteLock holds a SQLite ledger's write lock from a connection of
// its own (another smsdesk's long transaction) until Release or the
// test's end; from a handler's goroutine too.
func takeWriteLock(t *testing.T, path string) *ledgertest.Hold {
	h, err := ledgertest.TryHoldLedger(t, path)
	if err != nil {
		t.Error(err)
	}
	return h
}

// TestSendSaysWhatTheLedgerWaitsFor (issue 39 §2): another smsdesk holds
// the ledger's write lock when a send starts, and again while it runs; each
// time the send waits, says what it waits for (to the notice its caller
// gave before it runs, as its events while it runs), and goes on once the
// lock is let go, which is only once it has said so: every pair accepted.
// The send failed 'database is locked' after 10 s, and a record that
// failed stopped it.
func TestSendSaysWhatTheLedgerWaitsFor(t *testing.T) {
	sb, err := sandbox.New(sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	var (
		requests atomic.Int32
		mu       sync.Mutex
		running  *ledgertest.Hold // taken as the second chunk goes
		path     string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && requests.Add(1) == 2 {
			mu.Lock()
			running = takeWriteLock(t, path)
			mu.Unlock()
		}
		sb.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	v := &service{sb: sb, baseURL: srv.URL + "/api/v1"}
	paths := tempPaths(t)
	s := v.session(t, paths, &config.Profile{Name: "live", Sender: sandbox.DefaultSender})
	l, err := paths.Ledger(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	l.SetWaits(ledger.Waits{Notice: 20 * time.Millisecond})
	path = l.Where()

	p := prepare(t, s, pairs(3), false)
	starting := takeWriteLock(t, path)
	told := make(chan LedgerWait, 16)
	ctx := WithLedgerWaits(t.Context(), func(w LedgerWait) {
		select {
		case told <- w:
		default:
		}
	})
	started := make(chan *Send, 1)
	go func() {
		x, err := p.Start(ctx, SendOptions{ChunkSize: 1})
		if err != nil {
			t.Errorf("the start: %v", err)
		}
		started <- x
	}()
	select {
	case w := <-told:
		if w.Over || !strings.HasPrefix(w.String(), "waiting for the ledger: another smsdesk holds its write lock") {
			t.Errorf("told as the send starts: %s", w)
		}
	case x := <-started:
		t.Fatalf("the send started (%v) without saying it waited", x != nil)
	}
	starting.Release()
	x := <-started
	if x == nil {
		t.FailNow()
	}
	for len(told) > 0 { // the start's, told before it ran
		<-told
	}
	ended := make(chan struct{})
	defer close(ended)
	go func() { // a wait told outside the run's events: said, and let go
		for {
			select {
			case w := <-told:
				if !w.Over {
					t.Errorf("a wait while the send runs was told outside its events: %s", w)
					mu.Lock()
					running.Release()
					mu.Unlock()
				}
			case <-ended:
				return
			}
		}
	}()

	sawWait := false
	for ev := range x.Events() {
		if ev.Kind == EventLedgerWait && !ev.Over && !sawWait {
			sawWait = true
			if !strings.HasPrefix(ev.Reason, "waiting for the ledger: another smsdesk holds its write lock") || ev.JobID != x.ID() {
				t.Errorf("the wait while it runs: %+v", ev)
			}
			mu.Lock()
			running.Release()
			mu.Unlock()
		}
	}
	out, err := x.Finish()
	if err != nil || out.Summary.Counts.Accepted != 3 {
		t.Fatalf("the send: %+v %v", out.Summary, err)
	}
	if !sawWait {
		t.Errorf("no EventLedgerWait while the send ran")
	}
}
