package console

import (
	"errors"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/model/eventually"
	"github.com/smsdesk/smsdesk/ui/app"
)

// TestStateWritesCloseWaits: the console's end waits for a cache write under
// way, and a write whose Cmd runs after the end is not made. Without the
// wait, TestTrackGroup and five others failed now and then on a busy
// machine: the test's TempDir was removed while a cache write was landing
// ("state/cache/test: directory not empty").
func TestStateWritesCloseWaits(t *testing.T) {
	w := &owner{}
	started, release := make(chan struct{}), make(chan struct{})
	var finished atomic.Bool
	go w.do(func() {
		close(started)
		<-release
		finished.Store(true)
	})
	<-started
	closed := make(chan bool)
	go func() {
		w.close()
		closed <- finished.Load()
	}()
	// Release the write only once close has begun: it has refused new
	// writes, and is now (or soon) waiting.
	for {
		w.mu.Lock()
		c := w.closed
		w.mu.Unlock()
		if c {
			break
		}
		runtime.Gosched()
	}
	close(release)
	if !<-closed {
		t.Fatal("close returned before the write under way had finished")
	}
	if w.do(func() { t.Error("a write ran after close") }) {
		t.Error("do reported a write after close")
	}
}

// TestCloseWaitsForItsReads (issue 39 §3): the console's end waits for the
// reads its Cmds began (here a key's gate, reading the operators file as
// it is now, held by the test), so that nothing of the console still reads
// the ledger or the state directory once it has ended (smsdesk serve then
// closes the ledger; a test removes its TempDir). Without the owner the
// end returned at once, the read still under way.
func TestCloseWaitsForItsReads(t *testing.T) {
	m := newBareRoot(t)
	asked, release := make(chan struct{}), make(chan struct{})
	var finished atomic.Bool
	m.c.session.Operator = &model.Operator{Name: "sara", Fingerprint: "SHA256:sarafp", Role: model.RoleSender}
	m.c.session.Operators = func() ([]config.OperatorEntry, error) {
		close(asked)
		<-release
		finished.Store(true)
		return nil, errors.New("the operators file as the test holds it")
	}
	cmd := m.c.gate(app.ActionSend, nil)
	go cmd()
	<-asked
	closed := make(chan bool, 1)
	go func() {
		m.shutdown()
		closed <- finished.Load()
	}()
	// Release the read once the end has begun waiting for it (or has
	// returned without it: red).
	deadline := time.Now().Add(waitLimit)
	for {
		select {
		case done := <-closed:
			close(release)
			if !done {
				t.Fatal("the console ended while a read its Cmd began was under way")
			}
			return
		default:
		}
		m.c.reads.mu.Lock()
		begun := m.c.reads.closed
		m.c.reads.mu.Unlock()
		if begun {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the console's end never began")
		}
		runtime.Gosched()
	}
	close(release)
	if !<-closed {
		t.Fatal("the console ended before the read under way had finished")
	}
	if owned(m.c.reads, func() tea.Msg { t.Error("a read ran after the end"); return nil })() != nil {
		t.Error("a read after the end answered")
	}
}

// TestCloseWaitsForItsSends: a console that ends waits for the sends it
// started to end (the chunk in flight answered, the journal closed), so
// that nothing of its is written after it has gone. CI saw a test's state
// directory still being written (TempDir cleanup: "directory not empty")
// by a send its console had started, after the console had closed.
func TestCloseWaitsForItsSends(t *testing.T) {
	t.Parallel()
	in, release := make(chan struct{}), make(chan struct{})
	var once, releaseOnce sync.Once
	e := newEnvBehind(t, sandbox.Options{}, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/sms/send-pair") {
				once.Do(func() { close(in) })
				<-release
			}
			next.ServeHTTP(w, r)
		})
	})
	t.Cleanup(func() { releaseOnce.Do(func() { close(release) }) })
	tm := e.startOnGroup1(t)
	writeTemplate(t, tm, "Hello {name|friend}", 8)
	tm.Send(press("ctrl+s"))
	waitFor(t, tm, "Send these messages?")
	tm.Send(press("y"))
	<-in // the first chunk is in flight, held
	var m *root
	var id string
	waitModel(t, tm, "the send running", func(r *root) bool {
		m = r
		if r.results.run != nil {
			id = r.results.run.ID()
		}
		return r.results.running() && id != ""
	})
	_ = tm.Quit()
	tm.WaitFinished(t, teatest.WithFinalTimeout(waitLimit))

	closed := make(chan struct{})
	go func() { m.shutdown(); close(closed) }()
	eventually.True(t, waitLimit, func() bool { // the end has begun: its reads are closed
		m.c.reads.mu.Lock()
		defer m.c.reads.mu.Unlock()
		return m.c.reads.closed
	}, func() string { return "the console's end never began" })
	m.c.writes.mu.Lock()
	early := m.c.writes.closed // its writes close after its sends have ended
	m.c.writes.mu.Unlock()
	releaseOnce.Do(func() { close(release) })
	<-closed
	if n := m.c.session.Running(); early || n != 0 {
		t.Fatalf("the console ended with %d of its sends running (writes closed before the held chunk answered: %v)", n, early)
	}
	if config.JournalInUse(t.Context(), m.c.session.Paths, id) {
		t.Fatal("the console ended with its send's journal still held")
	}
}
