package dispatch_test

import (
	"context"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/client/dispatch"
	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/model/fakeclock"
)

func isSendPair(r *http.Request) bool {
	return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/sms/send-pair")
}

// faulty processes send-pair and then drops the connection on dropShare of
// calls, and answers 500 before processing on failShare, chosen by a seeded RNG.
func faulty(seed uint64, dropShare, failShare float64, drops, fails *atomic.Int64) func(http.Handler) http.Handler {
	var mu sync.Mutex
	rng := rand.New(rand.NewPCG(seed, seed))
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !isSendPair(r) {
				next.ServeHTTP(w, r)
				return
			}
			mu.Lock()
			x := rng.Float64()
			mu.Unlock()
			switch {
			case x < failShare:
				fails.Add(1)
				http.Error(w, `{"success":false,"error_code":"provider_error","message":"temporary"}`, http.StatusInternalServerError)
			case x < failShare+dropShare:
				drops.Add(1)
				sandbox.ServeThenLose(next, w, r) // processed, and the answer never arrives
			default:
				next.ServeHTTP(w, r)
			}
		})
	}
}

func TestRunUnderFaultsNeverSendsTwice(t *testing.T) {
	var drops, fails atomic.Int64
	e := newEnv(t, sandbox.Options{}, faulty(7, 0.20, 0.10, &drops, &fails))
	p, j := newJournal(t, "faults")
	job := dispatch.NewJob("faults", sandbox.DefaultSender, items(300, 13))
	// Faults land at random here, two in a row now and then: pausing is
	// TestRunPausesAfterTwoUnknownChunks's; this one walks every chunk.
	run, err := dispatch.Start(ctxTimeout(t, waitLimit), e.client(t), job, dispatch.Options{ChunkSize: 5, Journal: j, PauseAfterUnknown: -1})
	if err != nil {
		t.Fatal(err)
	}
	evs, sum := drain(t, run)
	results := run.Results()
	unknown := checkAgainstServer(t, e.sb, results)
	if drops.Load() == 0 || fails.Load() == 0 {
		t.Fatalf("the fault injector did nothing (drops %d, 500s %d)", drops.Load(), fails.Load())
	}
	c := sum.Counts
	if sum.Interrupted || c.Total != 300 || c.NotSent != 0 || c.Accepted+c.Rejected+c.Failed+c.Unknown != 300 {
		t.Errorf("summary %+v interrupted=%v", c, sum.Interrupted)
	}
	if unknown != c.Unknown || c.Unknown == 0 || c.Rejected == 0 || c.Accepted == 0 {
		t.Errorf("unknown %d vs summary %+v: want some of each", unknown, c)
	}
	// Every dropped or failed chunk is unknown, never retried: 5 items each.
	if want := int(drops.Load()+fails.Load()) * 5; c.Unknown != want {
		t.Errorf("unknown = %d, want %d (5 × %d faulty calls)", c.Unknown, want, drops.Load()+fails.Load())
	}
	if last := evs[len(evs)-1]; last.Kind != dispatch.EventSent || last.Summary == nil || last.Done != 300 {
		t.Errorf("last event = %+v, want EventSent with all 300 done", last)
	}
	// The journal tells the same story.
	j.Close()
	st := replayState(t, p, "faults")
	if !st.Unresolved() { // over, with the dropped chunks unknown
		t.Error("journal: send not over, or not unresolved")
	}
	for i, it := range st.Items {
		if r := results[i]; it.State != r.State || it.MessageID != r.MessageID {
			t.Errorf("journal item %d: %s %q, run said %s %q", i, it.State, it.MessageID, r.State, r.MessageID)
		}
	}
}

// storm answers 429 with Retry-After: 1 to the first n send-pair requests.
func storm(n int64, n429 *atomic.Int64) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if isSendPair(r) && n429.Add(1) <= n {
				w.Header().Set("Retry-After", "1")
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusTooManyRequests)
				w.Write([]byte(`{"success":false,"error_code":"rate_limited","message":"slow down"}`))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

func TestRunWaitsThrough429Storm(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []client.Option
	}{
		{"engine waits", []client.Option{client.WithRetryDeadline(0)}}, // the client gives up at once
		{"client waits", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n429 atomic.Int64
			e := newEnv(t, sandbox.Options{}, storm(3, &n429))
			_, j := newJournal(t, "storm")
			job := dispatch.NewJob("storm", sandbox.DefaultSender, items(40, 0))
			fc := fakeclock.New(time.Now())
			opts := append([]client.Option{client.WithClock(fc.Now, fc.Sleep)}, tc.opts...)
			run, err := dispatch.Start(ctxTimeout(t, waitLimit), e.client(t, opts...), job,
				dispatch.Options{ChunkSize: 10, Journal: j, Now: fc.Now, Sleep: fc.Sleep})
			if err != nil {
				t.Fatal(err)
			}
			evs, sum := drain(t, run)
			if n429.Load() < 3 {
				t.Fatal("no 429 answered")
			}
			// The client waits the first Retry-After of 1 to the service's
			// next second, then (a 429 right after it) each in full.
			if fc.Slept() <= 2*time.Second {
				t.Errorf("waited %v: did not wait the 3 × 1 s asked", fc.Slept())
			}
			if sum.Counts.Accepted != 40 {
				t.Errorf("summary %+v, want all 40 accepted", sum.Counts)
			}
			if u := checkAgainstServer(t, e.sb, run.Results()); u != 0 || len(e.sb.Sent()) != 40 {
				t.Errorf("unknown %d, sent %d", u, len(e.sb.Sent()))
			}
			waits := 0
			for _, ev := range evs {
				if ev.Kind == dispatch.EventWait {
					waits++
					if ev.Wait != time.Second {
						t.Errorf("waited %v, the server asked 1s", ev.Wait)
					}
				}
			}
			if tc.opts != nil && waits == 0 {
				t.Error("the engine reported no wait")
			}
		})
	}
}

func TestRunHalvesChunkOnTooManyItems(t *testing.T) {
	var sizes []int
	var mu sync.Mutex
	e := newEnv(t, sandbox.Options{MaxItems: 3}, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			mu.Lock()
			sizes = append(sizes, rec.Code)
			mu.Unlock()
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.Code)
			w.Write(rec.Body.Bytes())
		})
	})
	p, j := newJournal(t, "split")
	run, err := dispatch.Start(ctxTimeout(t, waitLimit), e.client(t), dispatch.NewJob("split", sandbox.DefaultSender, items(25, 0)), dispatch.Options{ChunkSize: 10, Journal: j})
	if err != nil {
		t.Fatal(err)
	}
	_, sum := drain(t, run)
	if sum.Counts.Accepted != 25 || checkAgainstServer(t, e.sb, run.Results()) != 0 || len(e.sb.Sent()) != 25 {
		t.Errorf("summary %+v, sent %d", sum.Counts, len(e.sb.Sent()))
	}
	n422 := 0
	for _, c := range sizes {
		if c == 422 {
			n422++
		}
	}
	if n422 != 2 { // 10 → 5 → 2 (then 2-item chunks all the way)
		t.Errorf("%d too-many-items answers (%v), want 2", n422, sizes)
	}
	j.Close()
	if st := replayState(t, p, "split"); !st.Complete() || st.Counts().Accepted != 25 {
		t.Errorf("journal: complete=%v counts=%+v", st.Complete(), st.Counts())
	}
}

func TestCancelFinishesChunkInFlight(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var calls atomic.Int64
	e := newEnv(t, sandbox.Options{}, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if isSendPair(r) && calls.Add(1) == 2 {
				cancel() // the operator presses ctrl+c while this chunk is in flight…
				// …and net/http's transport, which would abort a request whose
				// context ends, notices on goroutines of its own, at no moment
				// a test can wait for: the socket's real time is left for it to
				// act before the chunk is answered.
				time.Sleep(50 * time.Millisecond)
			}
			next.ServeHTTP(w, r)
		})
	})
	p, j := newJournal(t, "cancel")
	run, err := dispatch.Start(ctx, e.client(t), dispatch.NewJob("cancel", sandbox.DefaultSender, items(20, 0)), dispatch.Options{ChunkSize: 4, Journal: j})
	if err != nil {
		t.Fatal(err)
	}
	_, sum := drain(t, run)
	c := sum.Counts
	if !sum.Interrupted || c.Accepted != 8 || c.NotSent != 12 || c.Unknown != 0 {
		t.Errorf("summary %+v interrupted=%v, want 8 accepted (2 chunks) and 12 not sent", c, sum.Interrupted)
	}
	checkAgainstServer(t, e.sb, run.Results())
	j.Close()
	st := replayState(t, p, "cancel")
	if !st.Interrupted || st.Counts() != c {
		t.Errorf("journal: interrupted=%v counts %+v, run %+v", st.Interrupted, st.Counts(), c)
	}
	if got := st.ResumeIndexes(false); len(got) != 12 || got[0] != 8 {
		t.Errorf("resume would send %v, want items 8..19", got)
	}
}

func TestRunPollsDelivery(t *testing.T) {
	var statusCalls atomic.Int64
	e := newEnv(t, sandbox.Options{DeliveryDelay: -1}, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				statusCalls.Add(1)
			}
			next.ServeHTTP(w, r)
		})
	})
	_, j := newJournal(t, "poll")
	opts := dispatch.Options{ChunkSize: 5, Journal: j, PollDelivery: true,
		Poll: dispatch.PollOptions{RatePerMinute: 60000, Share: 1, RoundGap: time.Millisecond}}
	run, err := dispatch.Start(ctxTimeout(t, waitLimit), e.client(t), dispatch.NewJob("poll", sandbox.DefaultSender, items(10, 5)), opts)
	if err != nil {
		t.Fatal(err)
	}
	evs, sum := drain(t, run)
	deliveries := 0
	for _, ev := range evs {
		if ev.Kind == dispatch.EventDelivery {
			deliveries++
		}
	}
	if deliveries != 8 || statusCalls.Load() != 8 {
		t.Errorf("%d delivery events, %d status calls; want 8 (one per accepted message)", deliveries, statusCalls.Load())
	}
	if c := sum.Counts; c.Delivered+c.Undelivered != 8 {
		t.Errorf("summary %+v: want 8 final delivery states", c)
	}
}

func TestPollDeliveryOffOn404(t *testing.T) {
	e := newEnv(t, sandbox.Options{}, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				http.NotFound(w, r)
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	res := []model.SentItem{{JournalItem: model.JournalItem{Index: 0}, State: model.StateAccepted, MessageID: "m1"}, {JournalItem: model.JournalItem{Index: 1}, State: model.StateAccepted, MessageID: "m2"}}
	var calls int
	_, err := dispatch.PollDelivery(ctxTimeout(t, waitLimit), e.client(t), res,
		dispatch.PollOptions{RatePerMinute: 60000, Share: 1}, func(model.SentItem) { calls++ })
	if err != dispatch.ErrDeliveryUnsupported || calls != 0 {
		t.Errorf("err = %v, updates %d; want ErrDeliveryUnsupported and none", err, calls)
	}
}

// TestStopWhileWaitingForTheRateBudget: a stop (ctrl+c, SIGTERM) while the
// client waits for the rate budget ends the run at once: the chunk waiting
// is not sent, and no "waiting … sending it again" is announced for a chunk
// that will not go again (the CLI printed that line after "stopping").
func TestStopWhileWaitingForTheRateBudget(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e := newEnv(t, sandbox.Options{}, nil)
	clock := fakeclock.New(time.Date(2026, 3, 20, 12, 0, 0, 0, time.UTC))
	var waits atomic.Int32
	sleep := func(sctx context.Context, d time.Duration) error {
		if waits.Add(1) == 1 {
			cancel() // the operator stops while the client waits for the budget
		}
		<-sctx.Done()
		return sctx.Err()
	}
	c := e.client(t, client.WithRatePerMinute(2), client.WithClock(clock.Now, sleep))
	p, j := newJournal(t, "stopwait")
	run, err := dispatch.Start(ctx, c, dispatch.NewJob("stopwait", sandbox.DefaultSender, items(5, 0)),
		dispatch.Options{ChunkSize: 1, Journal: j, Now: clock.Now, Sleep: sleep})
	if err != nil {
		t.Fatal(err)
	}
	evs, sum := drain(t, run)
	for _, ev := range evs {
		if ev.Kind == dispatch.EventWait {
			t.Errorf("a wait was announced after the stop: %+v", ev)
		}
	}
	if c := sum.Counts; !sum.Interrupted || c.Accepted != 2 || c.NotSent != 3 || c.Unknown != 0 {
		t.Errorf("summary %+v interrupted=%v, want 2 accepted (the budget) and 3 not sent", c, sum.Interrupted)
	}
	if n := len(e.sb.Sent()); n != 2 {
		t.Errorf("the service holds %d messages, want 2", n)
	}
	j.Close()
	if st := replayState(t, p, "stopwait"); st.Counts().NotSent != 3 {
		t.Errorf("journal counts %+v", st.Counts())
	}
}
