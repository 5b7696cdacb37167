package dispatch_test

import (
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/dispatch"
	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
	"github.com/smsdesk/smsdesk/model"
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

// TestWriteWaitedPastItsBoundStopsTheSend (issue 39 §2): another process
// takes the ledger's write lock while the service takes a chunk, and holds
// it past the record bound (shortened here). The chunk's outcome cannot be
// written: the run stops at that write, with its error (errors.Is
// ledger.ErrBusy, saying what it waited for), and sends nothing more; read
// back from the ledger, the chunk before it is accepted, the chunk whose
// outcome was not written is unknown (never "not sent": it went), and the
// rest is not sent, each sent at most once.
func TestWriteWaitedPastItsBoundStopsTheSend(t *testing.T) {
	var (
		requests atomic.Int32
		lock     *ledgertest.Hold
		path     string
		mu       sync.Mutex
	)
	t.Cleanup(func() { mu.Lock(); lock.Release(); mu.Unlock() })
	e := newEnv(t, sandbox.Options{}, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost && requests.Add(1) == 2 {
				mu.Lock()
				lock = takeWriteLock(t, path) // the chunk goes, and its outcome meets the lock
				mu.Unlock()
			}
			next.ServeHTTP(w, r)
		})
	})
	p, j := newJournal(t, "held")
	l, err := p.Ledger(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	path = l.Where()
	l.SetWaits(ledger.Waits{Record: 300 * time.Millisecond, Notice: 50 * time.Millisecond})

	job := dispatch.NewJob("held", sandbox.DefaultSender, items(3, 0))
	run, err := dispatch.Start(ctxTimeout(t, waitLimit), e.client(t), job, dispatch.Options{ChunkSize: 1, Journal: j})
	if err != nil {
		t.Fatal(err)
	}
	for range run.Events() {
	}
	sum, runErr := run.Wait()
	if !errors.Is(runErr, ledger.ErrBusy) || sum.Err == nil {
		t.Fatalf("the run past the bound: %+v, error %v; want it stopped with ErrBusy", sum, runErr)
	}
	var we *ledger.WaitError
	if !errors.As(runErr, &we) || we.For == "" {
		t.Errorf("the run's error %v does not say what it waited for", runErr)
	}
	mu.Lock()
	lock.Release()
	mu.Unlock()
	if n := requests.Load(); n != 2 {
		t.Errorf("%d requests, want 2: nothing is sent after a write that failed", n)
	}
	st := replayState(t, p, "held")
	want := []model.ItemState{model.StateAccepted, model.StateUnknown, model.StateQueued}
	for i, it := range st.Items {
		if it.State != want[i] {
			t.Errorf("item %d reads %s, want %s", i, it.State, want[i])
		}
	}
	checkAgainstServer(t, e.sb, st.Items)
}

// heldJournal holds the run's first intent until release is closed, as a
// journal whose store waits for another writer.
type heldJournal struct {
	dispatch.Journal
	release chan struct{}
	once    sync.Once
}

func (h *heldJournal) Append(rec model.JournalRecord) error {
	if _, ok := rec.(*model.JournalIntent); ok {
		h.once.Do(func() { <-h.release })
	}
	return h.Journal.Append(rec)
}

// TestJournalWaitsAreEvents: what the journal's owner tells of a write
// that waits (TellJournalWait) comes in the run's events, in order with
// the rest and tagged with the job, and the end of the wait too; told
// after the run is over, it is dropped.
func TestJournalWaitsAreEvents(t *testing.T) {
	e := newEnv(t, sandbox.Options{}, nil)
	_, j := newJournal(t, "told")
	held := &heldJournal{Journal: j, release: make(chan struct{})}
	run, err := dispatch.Start(ctxTimeout(t, waitLimit), e.client(t), dispatch.NewJob("told", sandbox.DefaultSender, items(2, 0)),
		dispatch.Options{Journal: held})
	if err != nil {
		t.Fatal(err)
	}
	run.TellJournalWait("waiting for the ledger: another smsdesk holds its write lock", time.Second, false)
	run.TellJournalWait("the ledger is free again", 2*time.Second, true)
	close(held.release)
	evs, sum := drain(t, run)
	if sum.Counts.Accepted != 2 {
		t.Fatalf("the run: %+v", sum.Counts)
	}
	var waits []dispatch.Event
	for i, ev := range evs {
		if ev.Kind != dispatch.EventJournalWait {
			continue
		}
		waits = append(waits, ev)
		if i >= 2 || ev.JobID != "told" {
			t.Errorf("event %d: %+v, want the waits first, tagged with the job", i, ev)
		}
	}
	if len(waits) != 2 || waits[0].Over || !strings.HasPrefix(waits[0].Reason, "waiting for the ledger: ") || waits[0].Wait != time.Second || !waits[1].Over {
		t.Fatalf("the waits told: %+v", waits)
	}
	run.TellJournalWait("after the end", time.Second, false) // dropped: the run is over
}
