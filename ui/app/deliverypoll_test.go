package app

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/model/eventually"
	"github.com/smsdesk/smsdesk/model/fakeclock"
)

// pollService is a sandbox on clock c (its delivery moves a step every
// step), over loopback behind wrap, that notes when (on c) each status
// request came.
type pollService struct {
	*service
	mu    sync.Mutex
	asked []time.Time
}

func newPollService(t *testing.T, c *fakeclock.Clock, step time.Duration, wrap func(http.Handler) http.Handler) *pollService {
	t.Helper()
	sb, err := sandbox.New(sandbox.Options{Now: c.Now, DeliveryDelay: step, MaxItems: 1000})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	ps := &pollService{}
	h := sb.Handler()
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/status") {
			ps.mu.Lock()
			ps.asked = append(ps.asked, c.Now())
			ps.mu.Unlock()
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	ps.service = &service{sb: sb, baseURL: srv.URL + "/api/v1"}
	return ps
}

func (ps *pollService) askedAt() []time.Time {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return append([]time.Time(nil), ps.asked...)
}

// pollSession is a session on ps at 60 requests a minute on c.
func (ps *pollService) pollSession(t *testing.T, paths config.Paths, c *fakeclock.Clock) *Session {
	t.Helper()
	prof := &config.Profile{Name: "live", Sender: sandbox.DefaultSender, RatePerMinute: 60, ChunkSize: 1000}
	cl, err := NewClient(paths, ps.baseURL, ps.sb.Key(), prof, ClientOptions{Now: c.Now, Sleep: c.Sleep})
	if err != nil {
		t.Fatal(err)
	}
	eng := &Engine{Profile: ResolveProfile(prof.Name, ps.baseURL, prof, config.KeyKind(ps.sb.Key())), Client: cl, Paths: paths, Now: c.Now, Sleep: c.Sleep}
	return eng.Session(nil)
}

// sendPolled sends rows through s; its outcome records write the
// deliveries rows of what was accepted, which the test checks.
func sendPolled(t *testing.T, s *Session, rows []model.PairRow) Outcome {
	t.Helper()
	out := send(t, s, rows)
	ds, err := config.SendDeliveries(t.Context(), s.Paths, out.Summary.JobID)
	if err != nil || len(ds) != out.Summary.Counts.Accepted {
		t.Fatalf("%d deliveries rows for %d accepted: %v", len(ds), out.Summary.Counts.Accepted, err)
	}
	return out
}

// manyPairs are n pairs, each its own recipient.
func manyPairs(n int) []model.PairRow {
	rows := make([]model.PairRow, n)
	for i := range rows {
		rows[i] = model.PairRow{Line: i + 2, Recipient: fmt.Sprintf("0912%07d", i+1), Message: fmt.Sprintf("code %d", i)}
	}
	return rows
}

// TestDeliveryPollStaysWithinItsShare: 1,000 messages pending, polled for
// ten minutes from when they are due (the fake clock; the sandbox over
// loopback): the status requests of every minute stay at or under a
// quarter of the 60-a-minute budget, and the poller spends it (it does
// not stop at one round); what it learned is in the deliveries rows, each
// asked one set to be asked again later (backing off), none of them
// before it was due.
func TestDeliveryPollStaysWithinItsShare(t *testing.T) {
	clock := fakeclock.New(time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC))
	ps := newPollService(t, clock, 8*time.Minute, nil)
	paths := tempPaths(t)
	s := ps.pollSession(t, paths, clock)
	out := sendPolled(t, s, manyPairs(1000))
	if out.Summary.Counts.Accepted != 1000 {
		t.Fatalf("accepted %d of 1000", out.Summary.Counts.Accepted)
	}
	accepted := clock.Now()
	if asked := ps.askedAt(); len(asked) != 0 {
		t.Fatalf("the send polled %d times: polling is the runner's", len(asked))
	}
	clock.Advance(10 * time.Minute)
	start := clock.Now()
	end := start.Add(10 * time.Minute)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clock.OnSleep = func(int) {
		if !clock.Now().Before(end) {
			cancel()
		}
	}
	p := &DeliveryPoller{Session: s}
	if _, err := p.Pass(ctx); err != nil && ctx.Err() == nil {
		t.Fatal(err)
	}
	clock.OnSleep = nil

	perMinute := map[int]int{}
	asked := ps.askedAt()
	for _, at := range asked {
		if at.Before(accepted.Add(10 * time.Minute)) {
			t.Fatalf("a message was asked about at %v, before delivery_poll_after (10m after %v)", at, accepted)
		}
		perMinute[int(at.Sub(start)/time.Minute)]++
	}
	for m, n := range perMinute {
		if n > 15 {
			t.Errorf("minute %d: %d status requests, over the share (15 of 60)", m, n)
		}
	}
	if len(asked) < 140 {
		t.Errorf("%d status requests in 10 minutes; want its share spent (about 150)", len(asked))
	}
	rows, err := config.SendDeliveries(t.Context(), paths, out.Summary.JobID)
	if err != nil {
		t.Fatal(err)
	}
	polled := 0
	for _, d := range rows {
		if d.Polls == 0 {
			continue
		}
		polled++
		// The sandbox says sent from 8 minutes after acceptance, then
		// delivered or failed 8 or 16 minutes later.
		if d.State == model.DeliveryPending || d.State == model.DeliveryNoReport || d.At(d.State).IsZero() {
			t.Errorf("item %d: %s (arrived %v) after a poll; the sandbox says sent or later", d.Index, d.State, d.At(d.State))
		}
		if want := d.Updated; d.NextPoll.Before(want.Add(20*time.Minute)) && !d.NextPoll.IsZero() {
			t.Errorf("item %d: next poll %v, not backed off (×2 of 10m) from %v", d.Index, d.NextPoll, want)
		}
	}
	if polled != len(asked) {
		t.Errorf("%d rows polled, %d requests", polled, len(asked))
	}
}

// TestDeliveryPollFinalAndGivesUp: a message whose state is final is not
// asked about again; one with none after delivery_unknown_after is
// no_report without an ask.
func TestDeliveryPollFinalAndGivesUp(t *testing.T) {
	clock := fakeclock.New(time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC))
	ps := newPollService(t, clock, -1, nil) // final at once
	paths := tempPaths(t)
	s := ps.pollSession(t, paths, clock)
	out := sendPolled(t, s, manyPairs(3))
	clock.Advance(10 * time.Minute)
	p := &DeliveryPoller{Session: s}
	res, err := p.Pass(t.Context())
	if err != nil || res.Asked != 3 || res.Moved != 3 || !res.Next.IsZero() {
		t.Fatalf("first pass: %+v, %v; want 3 asked and moved, none left", res, err)
	}
	clock.Advance(time.Hour)
	if res, err := p.Pass(t.Context()); err != nil || res.Asked != 0 {
		t.Fatalf("second pass: %+v, %v; want nothing asked (final)", res, err)
	}

	stuck := newPollService(t, clock, 1000*time.Hour, nil) // never final
	s2 := stuck.pollSession(t, tempPaths(t), clock)
	out2 := sendPolled(t, s2, manyPairs(2))
	s2.Profile.UnknownAfter = 2 * time.Hour
	p2 := &DeliveryPoller{Session: s2}
	clock.Advance(time.Hour)
	if res, err := p2.Pass(t.Context()); err != nil || res.Asked != 2 {
		t.Fatalf("pass at 1h: %+v, %v; want 2 asked", res, err)
	}
	clock.Advance(90 * time.Minute)
	before := len(stuck.askedAt())
	res, err = p2.Pass(t.Context())
	if err != nil || res.GaveUp != 2 || len(stuck.askedAt()) != before {
		t.Fatalf("pass past delivery_unknown_after: %+v, %v, %d asks more; want 2 given up, none asked", res, err, len(stuck.askedAt())-before)
	}
	rows, err := config.SendDeliveries(t.Context(), s2.Paths, out2.Summary.JobID)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range rows {
		if d.State != model.DeliveryNoReport || !d.NextPoll.IsZero() || d.NoReportAt.IsZero() {
			t.Errorf("item %d: %s, next %v, no report at %v", d.Index, d.State, d.NextPoll, d.NoReportAt)
		}
	}
	first, err := config.SendDeliveries(t.Context(), paths, out.Summary.JobID)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range first {
		if !d.State.Final() || d.Polls != 1 {
			t.Errorf("item %d: %s after %d polls", d.Index, d.State, d.Polls)
		}
	}
}

// TestDeliveryPollOffOn404: a service that answers 404 for a status is
// not asked again, by this runner or another on the ledger, for a day.
func TestDeliveryPollOffOn404(t *testing.T) {
	clock := fakeclock.New(time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC))
	ps := newPollService(t, clock, time.Minute, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/status") {
				http.NotFound(w, r)
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	paths := tempPaths(t)
	s := ps.pollSession(t, paths, clock)
	sendPolled(t, s, manyPairs(3))
	clock.Advance(10 * time.Minute)
	res, err := (&DeliveryPoller{Session: s}).Pass(t.Context())
	if err != nil || !res.Off || res.Asked != 0 || len(ps.askedAt()) != 1 {
		t.Fatalf("pass: %+v, %v, %d asks; want off after one", res, err, len(ps.askedAt()))
	}
	clock.Advance(time.Hour)
	res, err = (&DeliveryPoller{Session: ps.pollSession(t, paths, clock)}).Pass(t.Context())
	if err != nil || !res.Off || len(ps.askedAt()) != 1 {
		t.Fatalf("another runner's pass an hour on: %+v, %v, %d asks; want off, none asked", res, err, len(ps.askedAt()))
	}
	clock.Advance(DeliveryOffFor)
	if _, err := (&DeliveryPoller{Session: s}).Pass(t.Context()); err != nil || len(ps.askedAt()) != 2 {
		t.Fatalf("a day on: %v, %d asks; want asked again", err, len(ps.askedAt()))
	}
}

// TestDeliveryPollGivesTheBudgetToSends: with the key's budget spent (a
// send's requests took it), the poller waits its turn outside the budget:
// none of its asks ever waits in the client's pacer, where it would hold a
// place ahead of a send's next chunk; it asks once the budget has room.
func TestDeliveryPollGivesTheBudgetToSends(t *testing.T) {
	clock := fakeclock.New(time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC))
	ps := newPollService(t, clock, time.Minute, nil)
	s := ps.pollSession(t, tempPaths(t), clock)
	sendPolled(t, s, manyPairs(20))
	clock.Advance(10 * time.Minute)
	for s.Client.RateStatus().Remaining != 0 {
		if _, err := s.Client.Credit(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	spent := clock.Now()
	// The poller waits its Interval at a time; the pacer, for a request
	// that found the budget spent, until the budget has room (the minute
	// of the requests above, all at one instant on the clock).
	p := &DeliveryPoller{Session: s}
	before := len(clock.Sleeps()) // not its own
	res, err := p.Pass(t.Context())
	waited := clock.Sleeps()[before:]
	waited = slices.DeleteFunc(waited, func(d time.Duration) bool { return d <= p.Interval() })
	if err != nil || res.Asked != 20 {
		t.Fatalf("pass: %+v, %v; want 20 asked", res, err)
	}
	if len(waited) > 0 {
		t.Errorf("the poller's asks waited in the pacer %d times (%v): a send's chunk would queue behind them", len(waited), waited)
	}
	if first := ps.askedAt()[0]; !first.After(spent) {
		t.Errorf("first ask at %v, while the budget spent at %v had no room", first, spent)
	}
}

// TestRunnerLoopPollsDelivery: a runner that polls (serve, scheduler)
// learns the delivery states of messages due beside its sends, and says
// what it did.
func TestRunnerLoopPollsDelivery(t *testing.T) {
	clock := fakeclock.New(time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC))
	ps := newPollService(t, clock, -1, nil)
	paths := tempPaths(t)
	out := sendPolled(t, ps.pollSession(t, paths, clock), manyPairs(3))
	clock.Advance(10 * time.Minute)

	var mu sync.Mutex
	var said []string
	r := &Runner{Session: ps.pollSession(t, paths, clock), Kind: model.RunnerServe, PollDelivery: true, Report: func(ev RunnerEvent) {
		if ev.Kind == RunnerDelivery {
			mu.Lock()
			said = append(said, ev.Text())
			mu.Unlock()
		}
	}}
	loop(t, r, time.Hour)
	eventually.True(t, hangGuard, func() bool {
		rows, err := config.SendDeliveries(t.Context(), paths, out.Summary.JobID)
		return err == nil && !slices.ContainsFunc(rows, func(d config.Delivery) bool { return !d.State.Final() })
	}, func() string {
		return fmt.Sprintf("the runner asked %d times; the states are not final", len(ps.askedAt()))
	})
	eventually.True(t, hangGuard, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.Contains(said, "delivery: 3 asked, 3 moved, 0 no report")
	}, func() string { return fmt.Sprintf("the runner said %q", said) })
}
