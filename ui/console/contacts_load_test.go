package console

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/model/eventually"
)

// gate counts the contact-list requests per group and can hold them.
type gate struct {
	mu      sync.Mutex
	counts  map[string]int
	hold    map[string]chan struct{} // group → closed to let its requests through
	arrived chan string              // a held request arrived (group id)
	closed  bool                     // releaseAll was called: nothing is held any more
}

func newGate() *gate {
	return &gate{counts: map[string]int{}, hold: map[string]chan struct{}{}, arrived: make(chan string, 64)}
}

func (g *gate) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/v1/contact-groups/") && strings.HasSuffix(r.URL.Path, "/contacts") {
			gid := strings.Split(r.URL.Path, "/")[4]
			g.mu.Lock()
			g.counts[gid]++
			ch := g.hold[gid]
			g.mu.Unlock()
			if ch != nil {
				g.arrived <- gid
				<-ch
			}
		}
		h.ServeHTTP(w, r)
	})
}

func (g *gate) count(gid string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.counts[gid]
}

// releaseAll lets every held request go and holds no more: a test that
// fails while requests are held still ends (its server's Close waits for
// them).
func (g *gate) releaseAll() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	for gid, ch := range g.hold {
		delete(g.hold, gid)
		close(ch)
	}
}

// holdFrom holds every further request for gid; the returned func lets them go.
func (g *gate) holdFrom(gid string) func() {
	ch := make(chan struct{})
	g.mu.Lock()
	if g.closed {
		close(ch)
	} else {
		g.hold[gid] = ch
	}
	g.mu.Unlock()
	return func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.hold[gid] == ch {
			delete(g.hold, gid)
			close(ch)
		}
	}
}

// newGatedEnv is newEnv behind a gate, with 15 contacts a page (group 4: 20 pages).
func newGatedEnv(t *testing.T) (*env, *gate) {
	t.Helper()
	e := newEnv(t, sandbox.Options{PageSize: 15, MaxPerPage: 15}) // pages of 15 whatever the console asks
	g := newGate()
	srv := httptest.NewServer(g.wrap(e.srv.Handler()))
	t.Cleanup(srv.Close)
	t.Cleanup(g.releaseAll) // before srv.Close (cleanups run last first), which waits for held requests
	cl, err := client.New(srv.URL+"/api/v1", e.srv.Key(), client.WithRatePerMinute(60000), heldRequests)
	if err != nil {
		t.Fatal(err)
	}
	e.client, e.opts.Session.Client = cl, cl
	e.track(t, groupNewsletter)
	return e, g
}

// loadGoroutines counts goroutines running a contacts load.
func loadGoroutines() int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	return strings.Count(string(buf), "console.loadContacts.func")
}

// TestSwitchingGroupsCancelsTheLoad: rows appear as the first pages arrive;
// opening another group mid-load makes no further request for the old one,
// and the old load's goroutine ends.
//
// Not parallel: it counts the process's load goroutines (loadGoroutines), and
// another test's load would be counted; it runs before the parallel ones.
func TestSwitchingGroupsCancelsTheLoad(t *testing.T) {
	e, g := newGatedEnv(t)
	tm := e.startOnGroup1(t)
	// Group 4: its third page is held, so the load stops mid-way.
	tm.Send(press("down"))
	tm.Send(press("down"))
	tm.Send(press("down"))
	// Let two pages through, then hold.
	var release func()
	waitModel(t, tm, "group 4 highlighted", func(m *root) bool {
		gr, ok := m.groups.selected()
		return ok && gr.ID == "4"
	})
	release = g.holdFrom("4")
	defer release()
	tm.Send(press("enter"))
	select {
	case <-g.arrived:
	case <-time.After(waitLimit):
		t.Fatal("group 4 was never requested")
	}
	release() // page 1 through; hold again from page 2
	release = g.holdFrom("4")
	select {
	case <-g.arrived:
	case <-time.After(waitLimit):
		t.Fatal("page 2 of group 4 was never requested")
	}
	// Page 1's rows are on screen while page 2 is in flight.
	waitModel(t, tm, "first page shown while loading", func(m *root) bool {
		return m.contacts.group.ID == "4" && m.contacts.loading && len(m.contacts.rows) == 15
	})
	waitFor(t, tm, "loading 15 of 300 contacts")

	// Switch to group 1 while page 2 of group 4 is held.
	tm.Send(press("home"))
	tm.Send(press("enter"))
	waitModel(t, tm, "group 1 shown, group 4's load no longer listed", func(m *root) bool {
		return m.contacts.group.ID == "1" && len(m.contacts.rows) == 8 && !m.contacts.loading && len(m.c.work.live) == 0
	})
	before := g.count("4")
	release() // the held page answers; the cancelled load must not ask for more
	// The goroutine's end is the moment to count at: a request it made with
	// a live context was counted at the service's door before its answer
	// came back, so before the goroutine could end.
	eventually.True(t, waitLimit, func() bool { return loadGoroutines() == 0 }, func() string { return "waiting for the cancelled load's goroutine to end" })
	if n := g.count("4"); n != before {
		t.Errorf("group 4 was requested %d more time(s) after the switch", n-before)
	}
	if before != 2 {
		t.Errorf("group 4 had %d requests before the switch, want 2 (pages 1 and 2)", before)
	}
	// The cancelled load is no news: no error on the status bar or in the log.
	var lastErr, logged string
	waitModel(t, tm, "status", func(m *root) bool {
		lastErr = m.lastErr
		for _, e := range m.log {
			logged += e.text + "\n"
		}
		return true
	})
	if lastErr != "" || strings.Contains(logged, "group 4") {
		t.Errorf("the cancelled load reported: status %q, log:\n%s", lastErr, logged)
	}
	finalView(t, tm)
}

// TestReopenFromCache: a group listed before is shown from the cache at once,
// before any request, then refreshed in the background; the refresh replaces
// it and the cache follows adds.
func TestReopenFromCache(t *testing.T) {
	t.Parallel()
	e, g := newGatedEnv(t)
	dir := t.TempDir()
	paths := config.PathsIn(dir+"/config", dir+"/state")
	t.Cleanup(func() { paths.CloseLedger() })
	for _, gr := range []model.Group{{ID: "1", Name: "مشتریان تهران"}, groupNewsletter} {
		if err := config.TrackGroup(paths, "test", gr); err != nil {
			t.Fatal(err)
		}
	}
	e.opts.Session.Paths = paths
	tm := e.startOnGroup1(t)
	tm.Send(press("down"))
	tm.Send(press("enter"))
	waitModel(t, tm, "group 4 loaded", func(m *root) bool {
		return m.contacts.group.ID == "4" && !m.contacts.loading && len(m.contacts.rows) == 300
	})
	eventually.True(t, waitLimit, func() bool {
		c, ok := config.LoadCachedContacts(paths, "test", e.opts.Session.Profile.BaseURL, "4")
		return ok && len(c.Contacts) == 300
	}, func() string { return "waiting for group 4 to be cached" })
	finalView(t, tm)

	// Next start: group 4 reopened with every request for it held.
	release := g.holdFrom("4")
	defer release()
	requests := g.count("4")
	tm = e.start(t)
	waitModel(t, tm, "group 1 loaded", func(m *root) bool { return len(m.contacts.rows) == 8 })
	tm.Send(press("down"))
	tm.Send(press("enter"))
	// Every request for group 4 is held, so 300 rows on screen while it
	// loads came from the cache, before any answer: "at once" is that, not
	// a time (a one-second limit failed under -race on a busy machine).
	waitModel(t, tm, "group 4 from the cache", func(m *root) bool {
		return m.contacts.group.ID == "4" && len(m.contacts.rows) == 300 && m.contacts.loading
	})
	<-g.arrived // the refresh's first page is in flight (held): nothing answered yet
	if n := g.count("4"); n != requests+1 {
		t.Errorf("%d requests for group 4 before the cached rows showed, want only the refresh's first", n-requests)
	}
	waitFor(t, tm, "refreshing")
	release()
	waitModel(t, tm, "refreshed", func(m *root) bool {
		return m.contacts.group.ID == "4" && !m.contacts.loading && m.contacts.cachedAt.IsZero() && len(m.contacts.rows) == 300
	})
	finalView(t, tm)
}
