package console

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/client/sandbox"
)

// TestWorkList: work is listed from start to end with its own context;
// stopping cancels it but keeps it listed until its last message; the end
// of the console cancels whatever is left.
func TestWorkList(t *testing.T) {
	t.Parallel()
	parent, cancelParent := context.WithCancel(context.Background())
	defer cancelParent()
	var l workList
	ctxA, a := l.start(parent, workLoad, "contacts of VIP (3)", fixedNow)
	ctxB, b := l.start(parent, workImport, "2 rows into VIP", fixedNow)
	if a == 0 || b == 0 || a == b {
		t.Fatalf("ids %d, %d: want distinct, non-zero", a, b)
	}
	l.stop(b, nil)
	if ctxB.Err() == nil || ctxA.Err() != nil {
		t.Fatalf("stop(b): a %v, b %v", ctxA.Err(), ctxB.Err())
	}
	got := strings.Join(l.lines(fixedNow.Add(12*time.Second)), "\n")
	want := fmt.Sprintf("#%d contacts load: contacts of VIP (3) · 12s\n#%d import: 2 rows into VIP · 12s · stopping", a, b)
	if got != want {
		t.Errorf("lines:\n%s\nwant:\n%s", got, want)
	}
	l.end(b)
	l.end(b) // twice: nothing
	l.end(0)
	if len(l.live) != 1 || l.find(b) != nil {
		t.Errorf("after end(b): %v", l.lines(fixedNow))
	}
	l.endAll()
	if ctxA.Err() == nil || len(l.live) != 0 {
		t.Errorf("endAll left %d, a %v", len(l.live), ctxA.Err())
	}
}

// postGate holds every contact the console adds until released, and counts them.
type postGate struct {
	mu      sync.Mutex
	n       int
	hold    chan struct{}
	arrived chan struct{}
	once    sync.Once
}

func (g *postGate) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/api/v1/contacts") {
			g.mu.Lock()
			g.n++
			g.mu.Unlock()
			g.arrived <- struct{}{}
			<-g.hold
		}
		h.ServeHTTP(w, r)
	})
}

func (g *postGate) count() int { g.mu.Lock(); defer g.mu.Unlock(); return g.n }
func (g *postGate) release()   { g.once.Do(func() { close(g.hold) }) }

// newPostGatedEnv is newEnv with every added contact held at a gate.
func newPostGatedEnv(t *testing.T) (*env, *postGate) {
	t.Helper()
	e := newEnv(t, sandbox.Options{})
	g := &postGate{hold: make(chan struct{}), arrived: make(chan struct{}, 64)}
	srv := httptest.NewServer(g.wrap(e.srv.Handler()))
	t.Cleanup(srv.Close)
	// Cleanups run last first: the gate opens before srv.Close waits for
	// the handlers it holds (the other way round, a test that failed with
	// a row held hung until go test's -timeout, 10 min).
	t.Cleanup(g.release)
	cl, err := client.New(srv.URL+"/api/v1", e.srv.Key(), client.WithRatePerMinute(60000), heldRequests)
	if err != nil {
		t.Fatal(err)
	}
	e.client, e.opts.Session.Client = cl, cl
	return e, g
}

// contactsCSV writes n new numbers (from first) to a CSV file and returns its path.
func contactsCSV(t *testing.T, name string, first, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("mobile,name\n")
	for i := range n {
		fmt.Fprintf(&b, "0912555%04d,Row %d\n", first+i, i+1)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// importFile runs i on the focused contacts pane and says yes to the preview.
func importFile(t *testing.T, tm *teatest.TestModel, path string) {
	t.Helper()
	tm.Send(press("i"))
	typeText(tm, path)
	tm.Send(press("enter"))
	waitModel(t, tm, "the preview of "+path, func(m *root) bool { _, ok := m.modal.(*confirm); return ok })
	tm.Send(press("y"))
}

// waitArrived waits for the gate to hold one more added contact.
func waitArrived(t *testing.T, g *postGate) {
	t.Helper()
	select {
	case <-g.arrived:
	case <-time.After(waitLimit):
		t.Fatal("no contact was added")
	}
}

// TestImportsOwnedPerGroup: an import goes on when another group is opened;
// its line shows on its own group only; a second group's import runs beside
// it; both summaries reach the status bar and the message log, both lines
// clear, and no work is left.
func TestImportsOwnedPerGroup(t *testing.T) {
	t.Parallel()
	e, g := newPostGatedEnv(t)
	tm := e.startOnGroup1(t)
	tm.Send(press("tab"))
	importFile(t, tm, contactsCSV(t, "tehran.csv", 1, 5))
	waitArrived(t, g) // group 1's first row is held
	tm.Send(press("shift+tab"))
	tm.Send(press("down"))
	tm.Send(press("enter"))
	waitModel(t, tm, "group 2 shown", func(m *root) bool { return m.contacts.group.ID == "2" && !m.contacts.loading })
	var view string
	waitModel(t, tm, "view", func(m *root) bool { view = m.text(); return true })
	if strings.Contains(view, "importing") {
		t.Errorf("group 1's import shows over group 2:\n%s", view)
	}
	tm.Send(press("tab"))
	importFile(t, tm, contactsCSV(t, "support.csv", 101, 3))
	waitArrived(t, g) // group 2's first row is held too
	waitModel(t, tm, "two imports, each on its group", func(m *root) bool {
		a, b := m.contacts.imports["1"], m.contacts.imports["2"]
		return a != nil && b != nil && a.work != b.work && strings.HasPrefix(m.contacts.workingText(), "importing") &&
			len(m.c.work.live) == 2
	})
	tm.Send(press("L"))
	waitFor(t, tm, "Running now:", "5 rows of", "3 rows of")
	tm.Send(press("esc"))
	g.release()
	waitModel(t, tm, "both imports ended", func(m *root) bool {
		return len(m.contacts.imports) == 0 && len(m.c.work.live) == 0 && m.contacts.workingText() == ""
	})
	// Each summary reaches the log with its status note, a Cmd's message
	// that may come after the import's end.
	waitModel(t, tm, "both summaries in the message log", func(m *root) bool {
		var logged string
		for _, e := range m.log {
			logged += e.text + "\n"
		}
		return strings.Contains(logged, "import into مشتریان تهران: 5 added") && strings.Contains(logged, "import into Support team: 3 added")
	})
	if n := g.count(); n != 8 {
		t.Errorf("%d contacts added, want 8", n)
	}
	finalView(t, tm)
}

// TestEscStopsTheImport: esc on the importing group stops its import after
// the row in flight; the summary says how many rows were not attempted and
// the service got only that one row.
func TestEscStopsTheImport(t *testing.T) {
	t.Parallel()
	e, g := newPostGatedEnv(t)
	tm := e.startOnGroup1(t)
	tm.Send(press("tab"))
	importFile(t, tm, contactsCSV(t, "five.csv", 1, 5))
	waitArrived(t, g)
	waitFor(t, tm, "esc stop import")
	tm.Send(press("esc"))
	waitModel(t, tm, "stopping", func(m *root) bool {
		w := m.c.work.find(m.contacts.imports["1"].work)
		return w != nil && w.stopping && strings.HasPrefix(m.contacts.workingText(), "stopping the import")
	})
	g.release()
	var note string
	waitModel(t, tm, "stopped and reloaded", func(m *root) bool {
		note = m.note
		return len(m.contacts.imports) == 0 && !m.contacts.loading && len(m.c.work.live) == 0 && len(m.contacts.rows) == 9
	})
	if want := "import into مشتریان تهران: 1 added, 0 already in the group (skipped), 0 invalid (not imported), 0 failed · stopped (esc): 4 row(s) not attempted; importing the file again adds them"; note != want {
		t.Errorf("status bar %q\nwant %q", note, want)
	}
	if n := g.count(); n != 1 {
		t.Errorf("%d contacts added after esc, want the 1 in flight", n)
	}
	finalView(t, tm)
}

// TestQuitWhileImporting: q during an import asks first (No keeps it
// going); q → yes, or a SIGTERM/SIGHUP (stopMsg), stops the import after
// its row in flight and quits when that row is answered. The exit report
// says how far it came and how to add the rest (it used to quit at once,
// silently, with the rows added so far unsaid).
func TestQuitWhileImporting(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"q", "signal"} {
		t.Run(how, func(t *testing.T) {
			e, g := newPostGatedEnv(t)
			tm := e.startOnGroup1(t)
			tm.Send(press("tab"))
			path := contactsCSV(t, "five.csv", 1, 5)
			importFile(t, tm, path)
			waitArrived(t, g)
			if how == "q" {
				tm.Send(press("q"))
				waitModel(t, tm, "quit asked", func(m *root) bool { return modalTitle(m) == "Quit while importing?" })
				tm.Send(press("n"))
				waitModel(t, tm, "still importing", func(m *root) bool { return m.modal == nil && m.contacts.importing() && !m.stopping })
				tm.Send(press("q"))
				waitModel(t, tm, "quit asked again", func(m *root) bool { return modalTitle(m) == "Quit while importing?" })
				tm.Send(press("y"))
			} else {
				tm.Send(Stop())
			}
			waitModel(t, tm, "stopping, not quit", func(m *root) bool { return m.stopping && m.contacts.importing() })
			g.release()
			tm.WaitFinished(t, teatest.WithFinalTimeout(waitLimit))
			m := tm.FinalModel(t).(probed).root
			if n := g.count(); n != 1 {
				t.Errorf("%d contacts added, want the 1 in flight", n)
			}
			want := "smsdesk: import into مشتریان تهران: 1 added, 0 already in the group (skipped), 0 invalid (not imported), 0 failed · stopped (quit): 4 row(s) not attempted; importing the file again adds them (file " + path + ")"
			if r := m.ExitReport(); r != want {
				t.Errorf("exit report\n%q\nwant\n%q", r, want)
			}
		})
	}
}

// TestExitReportNamesAnImportCutShort: an import still running when the
// console ends at once (ctrl+c twice, a second signal) is named with how far
// it came.
func TestExitReportNamesAnImportCutShort(t *testing.T) {
	t.Parallel()
	m := newBareRoot(t)
	m.contacts.imports["7"] = &importRun{group: "VIP\x1b[31m", path: "/tmp/vip.csv", done: 12, total: 40}
	want := "smsdesk: import into VIP interrupted after 12 of 40 rows (file /tmp/vip.csv); importing the file again adds the rest"
	if r := m.ExitReport(); r != want {
		t.Errorf("exit report\n%q\nwant\n%q", r, want)
	}
}

// TestAddOwnedWhenTheGroupChanges: an add is listed as work while it waits;
// when another group is opened meanwhile, its answer still ends it: the
// status bar says it was added, and the first group shows no "adding…"
// line when the operator comes back (it stayed there for good).
func TestAddOwnedWhenTheGroupChanges(t *testing.T) {
	t.Parallel()
	e, g := newPostGatedEnv(t)
	tm := e.startOnGroup1(t)
	tm.Send(press("tab"))
	tm.Send(press("n"))
	typeText(tm, "09129998877")
	tm.Send(press("enter"))
	waitArrived(t, g)
	waitModel(t, tm, "the add listed as work", func(m *root) bool {
		lines := m.c.work.lines(m.c.now())
		return len(lines) == 1 && strings.Contains(lines[0], "add contact: 09129998877 to مشتریان تهران")
	})
	tm.Send(press("shift+tab"))
	tm.Send(press("down"))
	tm.Send(press("enter"))
	waitModel(t, tm, "group 2 shown", func(m *root) bool { return m.contacts.group.ID == "2" && !m.contacts.loading })
	g.release()
	waitModel(t, tm, "the add ended, said on the status bar", func(m *root) bool {
		return len(m.c.work.live) == 0 && m.note == "added 09129998877 to group 1"
	})
	tm.Send(press("up"))
	tm.Send(press("enter"))
	waitModel(t, tm, "group 1 again, with the new contact and no line", func(m *root) bool {
		return m.contacts.group.ID == "1" && !m.contacts.loading && len(m.contacts.rows) == 9 && m.contacts.workingText() == ""
	})
	finalView(t, tm)
}

// TestQuitWaitsForAnAdd: q (or a signal) while a contact is being added
// waits for the service's answer, without a question (it is one request),
// then quits: the add is not cut off with its outcome unknown.
func TestQuitWaitsForAnAdd(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"q", "signal"} {
		t.Run(how, func(t *testing.T) {
			e, g := newPostGatedEnv(t)
			tm := e.startOnGroup1(t)
			tm.Send(press("tab"))
			tm.Send(press("n"))
			typeText(tm, "09129998877")
			tm.Send(press("enter"))
			waitArrived(t, g)
			if how == "q" {
				waitModel(t, tm, "the form closed", func(m *root) bool { return m.modal == nil && !m.contacts.Editing() })
				tm.Send(press("q"))
			} else {
				tm.Send(Stop())
			}
			waitModel(t, tm, "waiting for the add, not quit", func(m *root) bool {
				return m.stopping && m.modal == nil && m.c.work.has(workAdd)
			})
			g.release()
			tm.WaitFinished(t, teatest.WithFinalTimeout(waitLimit))
			cs, err := e.client.ListContacts(context.Background(), "1", nil)
			if err != nil {
				t.Fatal(err)
			}
			if !hasContact(cs, "09129998877", "") {
				t.Fatalf("the service has no 09129998877 after the quit: %d contacts", len(cs))
			}
		})
	}
}
