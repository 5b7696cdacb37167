package console

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/model/fakeclock"
	"github.com/smsdesk/smsdesk/ui/app"
)

// TestHeldSendFollowed: a send that reaches quiet hours is called held
// on the results screen, with when it goes on (it said "stopped: the
// service refused"); when another runner (a serve's, at the end of quiet
// hours) goes on with it, the screen follows: "continued by serve ·
// running", R refused as it runs, then its end (it kept showing the
// recipients not sent and offered R, refused as "still running": issue 35
// item 8).
func TestHeldSendFollowed(t *testing.T) {
	t.Parallel()
	clock := fakeclock.New(fixedNow) // 13:30 in Tehran
	var sends atomic.Int32
	runnerIn, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	e := newEnvBehind(t, sandbox.Options{}, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/sms/send-pair") {
				next.ServeHTTP(w, r)
				return
			}
			switch n := sends.Add(1); {
			case n == 1:
				next.ServeHTTP(w, r)
				clock.Advance(time.Minute) // quiet hours begin before the next chunk
			default: // the runner's, after quiet hours: held until the test looks
				once.Do(func() { close(runnerIn) })
				<-release
				next.ServeHTTP(w, r)
			}
		})
	})
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})
	sess := e.opts.Session
	// The client keeps the test's clock too: a chunk's SendBy (the start
	// of quiet hours) is measured on it.
	noSleep := func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	cl, err := client.New(e.base, e.srv.Key(), client.WithRatePerMinute(60000), heldRequests, client.WithClock(clock.Now, noSleep))
	if err != nil {
		t.Fatal(err)
	}
	sess.Client = cl
	prof := config.Profile{Sender: sandbox.DefaultSender, QuietHours: "13:31-14:00", ChunkSize: 4}
	sess.Profile = app.ResolveProfile("test", sess.Profile.BaseURL, &prof, "test")
	sess.Now, e.opts.Now = clock.Now, clock.Now
	tm := e.startOnGroup1(t)
	waitModel(t, tm, "quick looks", func(m *root) bool {
		m.results.heldEvery, m.results.heldWhile = 5*time.Millisecond, 5*time.Millisecond
		return true
	})
	writeTemplate(t, tm, "Hello {name|friend}", 8)
	tm.Send(press("ctrl+s"))
	waitFor(t, tm, "Send these messages?")
	tm.Send(press("y"))
	waitModel(t, tm, "held", func(m *root) bool { return m.results.held != nil && !m.results.polling })
	waitFor(t, tm, "· held at quiet hours until 14:00", "not sent 4", "held until 2025-03-01 14:00 Asia/Tehran: a serve or scheduler goes on then · R from then")
	if v := maskedView(t, tm); strings.Contains(v, "refused") {
		t.Errorf("a held send is said refused:\n%s", v)
	}

	// Quiet hours end; a serve's runner goes on with it.
	clock.Advance(29 * time.Minute)
	var said []string
	runner := &app.Runner{Session: (&app.Engine{Client: sess.Client, Paths: sess.Paths, Now: clock.Now, Sleep: e.opts.Sleep, Profile: sess.Profile}).Session(nil),
		Kind: model.RunnerServe, Report: func(ev app.RunnerEvent) { said = append(said, fmt.Sprintf("%d %s %v", ev.Kind, ev.Reason, ev.Err)) }}
	done := make(chan error, 1)
	go func() {
		n, err := runner.Pass(context.Background())
		done <- errors.Join(err, fmt.Errorf("started %d", n))
	}()
	select {
	case <-runnerIn:
	case err := <-done:
		t.Fatalf("the runner did not go on with the held send: %v %q", err, said)
	}
	waitFor(t, tm, "held, then continued by serve · running")
	tm.Send(press("R"))
	waitModel(t, tm, "R refused while it runs", func(m *root) bool {
		return m.modal == nil && strings.Contains(m.results.note, "nothing to retry while it runs")
	})
	close(release)
	if err := <-done; err.Error() != "started 1" {
		t.Fatalf("the runner: %v %q", err, said)
	}
	waitFor(t, tm, "held, then continued by serve · complete", "accepted 8 ")
	if n := len(e.srv.Sent()); n != 8 {
		t.Errorf("sent %d, want 8", n)
	}
}
