package console

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/model"
)

var jobID = regexp.MustCompile(`(\d{8}-\d{6}-)[0-9a-f]{6}`)

func TestComposeFromTemplateAndSend(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	tm := e.startOnGroup1(t)
	tm.Send(press("c"))
	waitModel(t, tm, "composer with the editor focused", func(m *root) bool { return m.screen == screenComposer && m.composer.Editing() })
	typeText(tm, "سلام {name}، سفارش شما آماده است. q")
	waitModel(t, tm, "8 planned rows", func(m *root) bool {
		return m.composer.plan != nil && len(m.composer.plan.Items) == 8 && m.composer.plan.OK()
	})
	tm.Send(press("esc")) // leave the editor
	waitFor(t, tm, "Totals: 8 recipients")
	snapshot := ""
	waitModel(t, tm, "composer frame", func(m *root) bool { snapshot = m.text(); return true })
	if !strings.Contains(snapshot, "UCS-2") || !strings.Contains(snapshot, "left in this part") {
		t.Fatalf("composer lacks the live counter:\n%s", snapshot)
	}
	namedGolden(t, "composer", snapshot)

	tm.Send(press("ctrl+s"))
	waitFor(t, tm, "Send these messages?")
	if n := len(e.srv.Sent()); n != 0 {
		t.Fatalf("%d messages sent before confirming", n)
	}
	tm.Send(press("y"))
	waitModel(t, tm, "send and delivery polling over", func(m *root) bool {
		return m.screen == screenResults && m.results.jobID != "" && !m.results.sending && !m.results.polling
	})
	sent := e.srv.Sent()
	if len(sent) != 8 {
		t.Fatalf("sandbox got %d messages, want 8", len(sent))
	}
	for _, s := range sent {
		if !strings.HasPrefix(s.Message, "سلام ") || strings.Contains(s.Message, "{name}") || s.Sender != "3000505" {
			t.Fatalf("sent %+v: template not rendered per contact", s)
		}
	}
	var accepted int
	waitModel(t, tm, "counts", func(m *root) bool {
		for _, r := range m.results.results {
			if r.State == model.StateAccepted && r.MessageID != "" && r.Delivery != "" {
				accepted++
			}
		}
		return true
	})
	if accepted != 8 {
		t.Fatalf("%d results accepted with a message id and a delivery state, want 8", accepted)
	}
	requireGolden(t, jobID.ReplaceAllString(finalView(t, tm), "${1}XXXXXX"))
}

// sendGate wraps the sandbox's handler: it lets the first pass send-pair
// requests through and holds the next one until Release, so a test can cancel
// while a known chunk is in flight.
type sendGate struct {
	next    http.Handler
	pass    int32
	sends   atomic.Int32
	held    chan struct{} // closed when the held request arrives
	release chan struct{} // closed by Release
	once    sync.Once
}

func (g *sendGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/sms/send-pair") {
		if g.sends.Add(1) == g.pass+1 {
			close(g.held)
			<-g.release
		}
	}
	g.next.ServeHTTP(w, r)
}

// Release lets the held request (and any later one) through.
func (g *sendGate) Release() { g.once.Do(func() { close(g.release) }) }

// gateSends points the env's client at the sandbox through a sendGate that
// passes pass send-pair requests and holds the next.
func (e *env) gateSends(t *testing.T, pass int32) *sendGate {
	t.Helper()
	g := &sendGate{next: e.srv.Handler(), pass: pass, held: make(chan struct{}), release: make(chan struct{})}
	ts := httptest.NewServer(g)
	t.Cleanup(func() { g.Release(); ts.Close() })
	cl, err := client.New(ts.URL+"/api/v1", e.srv.Key(), client.WithRatePerMinute(60000), heldRequests)
	if err != nil {
		t.Fatal(err)
	}
	e.opts.Session.Client = cl
	return g
}

// resultTally counts the results pane's rows by state.
func resultTally(m *root) map[model.ItemState]int {
	n := map[model.ItemState]int{}
	for _, r := range m.results.results {
		n[r.State]++
	}
	return n
}

// maskedView is the live frame with job ids masked.
func maskedView(t *testing.T, tm *teatest.TestModel) string {
	t.Helper()
	v := ""
	waitModel(t, tm, "frame", func(m *root) bool { v = m.text(); return true })
	return jobID.ReplaceAllString(v, "${1}XXXXXX")
}

// TestSendCancelThenRetry cancels a 300-recipient send (chunks of 10) while its
// fifth chunk is held in flight: that chunk finishes, nothing more is sent, and
// retrying sends exactly the 250 never sent.
func TestSendCancelThenRetry(t *testing.T) {
	t.Parallel()
	const pass, chunk, total = 4, 10, 300
	e := newEnv(t, sandbox.Options{})
	gate := e.gateSends(t, pass)
	e.opts.Session.Profile.ChunkSize = chunk
	e.track(t, groupNewsletter)
	tm := e.start(t)
	waitModel(t, tm, "groups", func(m *root) bool { return len(m.groups.groups) == 4 })
	for range 3 {
		tm.Send(press("down"))
	}
	tm.Send(press("enter"))
	waitModel(t, tm, "300 contacts", func(m *root) bool {
		return m.contacts.group.ID == "4" && len(m.contacts.rows) == total && !m.contacts.loading
	})
	tm.Send(press("c"))
	typeText(tm, "Hello {name}")
	tm.Send(press("ctrl+s"))
	waitFor(t, tm, "Recipients:  300")
	tm.Send(press("y"))
	select {
	case <-gate.held:
	case <-time.After(waitLimit):
		t.Fatalf("the send never reached chunk %d", pass+1)
	}
	if n := len(e.srv.Sent()); n != pass*chunk {
		t.Fatalf("with chunk %d held the service has %d messages, want %d", pass+1, n, pass*chunk)
	}
	tm.Send(press("esc")) // cancel asks first (default No)…
	waitModel(t, tm, "asked before stopping", func(m *root) bool { return modalTitle(m) == "Stop the send?" && m.results.sending })
	tm.Send(press("n")) // …no: the send goes on
	waitModel(t, tm, "still sending after no", func(m *root) bool {
		return m.modal == nil && m.results.sending && len(m.c.work.live) == 1 && !m.c.work.live[0].stopping
	})
	tm.Send(press("esc"))
	waitModel(t, tm, "asked again", func(m *root) bool { return modalTitle(m) == "Stop the send?" })
	tm.Send(press("y")) // …yes: stops after the chunk in flight
	waitModel(t, tm, "the send stopping with a chunk in flight", func(m *root) bool {
		return m.results.sending && strings.Contains(m.text(), "· cancelling") && resultTally(m)[model.StateSending] == chunk &&
			len(m.c.work.live) == 1 && m.c.work.live[0].kind == workSend && m.c.work.live[0].stopping // listed until its chunk is in
	})
	gate.Release()
	waitModel(t, tm, "send stopped, delivery watched, no work left", func(m *root) bool {
		return m.results.summary != nil && !m.results.sending && !m.results.polling && len(m.c.work.live) == 0
	})
	first := (pass + 1) * chunk
	if n := len(e.srv.Sent()); n != first {
		t.Fatalf("after cancel the service has %d messages, want %d (the chunk in flight finishes, no more)", n, first)
	}
	var tally map[model.ItemState]int
	interrupted := false
	waitModel(t, tm, "tally", func(m *root) bool {
		tally, interrupted = resultTally(m), m.results.summary.Interrupted
		return true
	})
	if !interrupted || tally[model.StateAccepted] != first || tally[model.StateQueued] != total-first {
		t.Fatalf("after cancel: interrupted %v, view shows %d accepted and %d queued; want %d and %d",
			interrupted, tally[model.StateAccepted], tally[model.StateQueued], first, total-first)
	}
	namedGolden(t, "cancelled", maskedView(t, tm))

	tm.Send(press("R"))
	waitModel(t, tm, "retry confirmation", func(m *root) bool { return m.modal != nil })
	confirm := maskedView(t, tm)
	if !strings.Contains(confirm, "Retry failed?") || !strings.Contains(confirm, "Retry 250 items") {
		t.Fatalf("retry confirmation:\n%s", confirm)
	}
	namedGolden(t, "retry", confirm)
	tm.Send(press("y"))
	waitModel(t, tm, "retry sent, delivery watched", func(m *root) bool {
		return m.modal == nil && !m.results.sending && !m.results.polling && m.results.summary != nil && m.results.total == total-first &&
			len(m.c.work.live) == 0
	})
	sent := e.srv.Sent()
	if len(sent) != total {
		t.Fatalf("after retry the service has %d messages, want %d", len(sent), total)
	}
	seen := map[string]bool{}
	for _, s := range sent {
		if seen[s.Recipient] {
			t.Fatalf("%s got two messages", s.Recipient)
		}
		seen[s.Recipient] = true
	}
	requireGolden(t, jobID.ReplaceAllString(finalView(t, tm), "${1}XXXXXX"))
}

// TestSendStopsAtARefusalThatWillRepeat: the account runs out of credit after
// the first chunk; the second chunk is refused 402 and the rest is never
// posted. The results pane says the send was stopped, why and what to do.
func TestSendStopsAtARefusalThatWillRepeat(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	var posts atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/sms/send-pair") && posts.Add(1) == 2 {
			e.srv.SetCredit(0)
		}
		e.srv.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	cl, err := client.New(ts.URL+"/api/v1", e.srv.Key(), client.WithRatePerMinute(60000), heldRequests)
	if err != nil {
		t.Fatal(err)
	}
	e.opts.Session.Client = cl
	e.opts.Session.Profile.ChunkSize = 2
	tm := e.startOnGroup1(t)
	tm.Send(press("c"))
	typeText(tm, "Hello {name|friend}")
	tm.Send(press("ctrl+s"))
	waitFor(t, tm, "Send these messages?")
	tm.Send(press("y"))
	waitModel(t, tm, "the send stopped", func(m *root) bool {
		return m.results.summary != nil && !m.results.sending
	})
	if n := posts.Load(); n != 2 {
		t.Fatalf("%d send-pair requests, want 2 (stop after the refused chunk)", n)
	}
	var tally map[model.ItemState]int
	var view string
	waitModel(t, tm, "tally", func(m *root) bool { tally, view = resultTally(m), m.text(); return true })
	if tally[model.StateAccepted] != 2 || tally[model.StateRejected] != 0 || tally[model.StateQueued] != 6 {
		t.Fatalf("tally %v, want 2 accepted and 6 not sent (the refused chunk took nothing)", tally)
	}
	for _, want := range []string{"· stopped: the service refused", "stopped: the account has run out of credit (402 insufficient_credit)"} {
		if !strings.Contains(view, want) {
			t.Errorf("view lacks %q:\n%s", want, view)
		}
	}
}

// TestQuitMidSendWaitsForTheChunkInFlight: q → yes (or a SIGTERM/SIGHUP,
// stopMsg) during a send stops it before the next chunk and quits only when
// the chunk in flight has its outcome: 0 unknown (it used to quit at once,
// leaving that chunk unknown every time). The exit report names the send
// and how to continue.
func TestQuitMidSendWaitsForTheChunkInFlight(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"q", "signal"} {
		t.Run(how, func(t *testing.T) {
			const pass, chunk = 1, 2
			e := newEnv(t, sandbox.Options{})
			gate := e.gateSends(t, pass)
			e.opts.Session.Profile.ChunkSize = chunk
			tm := e.startOnGroup1(t)
			tm.Send(press("c"))
			typeText(tm, "Hello {name|friend}")
			tm.Send(press("ctrl+s"))
			waitFor(t, tm, "Send these messages?")
			tm.Send(press("y"))
			select {
			case <-gate.held:
			case <-time.After(waitLimit):
				t.Fatal("the second chunk never went out")
			}
			if how == "q" {
				tm.Send(press("q")) // q is global on results (esc would ask to stop the send)
				waitModel(t, tm, "quit asked", func(m *root) bool { return modalTitle(m) == "Quit while sending?" })
				tm.Send(press("y"))
			} else {
				tm.Send(Stop())
			}
			waitModel(t, tm, "stopping, not quit", func(m *root) bool { return m.stopping && m.results.running() })
			gate.Release()
			tm.WaitFinished(t, teatest.WithFinalTimeout(waitLimit))
			m := tm.FinalModel(t).(probed).root
			tally := resultTally(m)
			if tally[model.StateUnknown] != 0 || tally[model.StateSending] != 0 || tally[model.StateAccepted] != (pass+1)*chunk {
				t.Fatalf("after quit: %v, want %d accepted and none unknown", tally, (pass+1)*chunk)
			}
			if n := len(e.srv.Sent()); n != (pass+1)*chunk {
				t.Fatalf("the service took %d, want %d", n, (pass+1)*chunk)
			}
			if r := m.ExitReport(); !strings.Contains(r, "0 unknown") || !strings.Contains(r, "To continue: smsdesk send-pair --resume ") {
				t.Errorf("exit report %q", r)
			}
		})
	}
}
