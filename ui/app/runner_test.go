package app

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/model/eventually"
	"github.com/smsdesk/smsdesk/model/fakeclock"
)

// Runners on one ledger, as processes (and hosts) have them: each its own
// paths and connections, on SQLite and on PostgreSQL.

// hangGuard bounds a wait for a state that should come: a test that
// reaches it fails (it never measures time). It is spent only by a test that
// fails, so it is generous: 30 s was reached by ten sends starting at once on
// PostgreSQL with the machine at a load of 29 on 2 cores.
const hangGuard = 2 * time.Minute

// arrived waits until ch is closed: what arrives.
func arrived(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(hangGuard):
		t.Fatal(what + " never came")
	}
}

// sharedLedger is a ledger several runners share.
type sharedLedger struct {
	loc, dir string
}

func newSharedLedger(t *testing.T, b ledgertest.Backend) *sharedLedger {
	t.Helper()
	loc := b.Location(t)
	l, err := ledger.Create(context.Background(), loc)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	return &sharedLedger{loc: loc, dir: t.TempDir()}
}

// paths are one process's paths on the ledger: its own connections.
func (sl *sharedLedger) paths(t *testing.T) config.Paths {
	t.Helper()
	p, err := config.PathsFromEnv(func(k string) (string, bool) {
		switch k {
		case config.EnvConfigDir:
			return sl.dir + "/config", true
		case config.EnvStateDir:
			return sl.dir + "/state", true
		case config.EnvLedger:
			return sl.loc, true
		}
		return "", false
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.CloseLedger() })
	return p
}

// onePair is send i's one pair: its own recipient.
func onePair(i int) []model.PairRow {
	return []model.PairRow{{Line: 2, Recipient: fmt.Sprintf("09120001%03d", i), Message: fmt.Sprintf("send %d", i)}}
}

// TestRunnersClaimEachDueSendOnce: ten sends due at once and two runners
// (two processes, each its own connections) on one ledger: every send
// starts exactly once, and all ten run at the same time (the service holds
// every request until the tenth has come: runners that started one send
// after another never get there).
func TestRunnersClaimEachDueSendOnce(t *testing.T) {
	const sends = 10
	for _, b := range ledgertest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			sl := newSharedLedger(t, b)
			var inflight atomic.Int32
			all, gaveUp := make(chan struct{}), atomic.Bool{}
			var once sync.Once
			v := wrapped(t, func(h http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/sms/send-pair") {
						if inflight.Add(1) == sends {
							once.Do(func() { close(all) })
						}
						select {
						case <-all:
						case <-time.After(hangGuard):
							gaveUp.Store(true)
							once.Do(func() { close(all) })
						}
					}
					h.ServeHTTP(w, r)
				})
			})
			clock := fakeclock.New(tehran(t, 10, 0))
			prof := &config.Profile{Name: "live", Sender: sandbox.DefaultSender}
			op := v.clocked(t, sl.paths(t), prof, clock)
			at := clock.Now().Add(time.Minute)
			ids := make([]string, sends)
			for i := range ids {
				ids[i] = schedule(t, op, onePair(i), at)
			}
			clock.Advance(time.Minute)

			runners := []*Runner{
				{Session: v.clocked(t, sl.paths(t), prof, clock), Kind: model.RunnerServe},
				{Session: v.clocked(t, sl.paths(t), prof, clock), Kind: model.RunnerScheduler},
			}
			started := make([]int, len(runners))
			errs := make([]error, len(runners))
			var wg sync.WaitGroup
			for i, r := range runners {
				wg.Add(1)
				go func() {
					defer wg.Done()
					started[i], errs[i] = r.Pass(context.Background())
				}()
			}
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
			if gaveUp.Load() {
				t.Fatalf("the ten sends did not run at once: the first request waited for the tenth in vain (%d came in all)", inflight.Load())
			}
			if started[0]+started[1] != sends || len(v.sb.Sent()) != sends || v.sb.RequestsTo("POST", "/sms/send-pair") != sends {
				t.Fatalf("started %v; the service took %d messages in %d requests; want %d, once each", started, len(v.sb.Sent()),
					v.sb.RequestsTo("POST", "/sms/send-pair"), sends)
			}
			for _, id := range ids {
				if st := readSend(t, runners[0].Session.Paths, id); st.Runs != 1 || !st.Complete() {
					t.Errorf("send %s: runs %d, complete %v", id, st.Runs, st.Complete())
				}
			}
		})
	}
}

// loop runs r's Loop until the test ends (it waits for the loop and its
// sends); poll is its look besides the ledger's Watch.
func loop(t *testing.T, r *Runner, poll time.Duration) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Loop(ctx, poll) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Loop: %v", err)
		}
	})
}

// TestALongSendKeepsNoOtherFromItsTime: a send that falls due while
// another runs (its request held by the service) starts at its time, not
// after the first ends: a busy runner never leaves a due send to be
// missed.
func TestALongSendKeepsNoOtherFromItsTime(t *testing.T) {
	held, release := make(chan struct{}), make(chan struct{})
	var first atomic.Bool
	v := wrapped(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/sms/send-pair") && first.CompareAndSwap(false, true) {
				close(held)
				select {
				case <-release:
				case <-time.After(hangGuard):
				}
			}
			h.ServeHTTP(w, r)
		})
	})
	clock := fakeclock.New(tehran(t, 10, 0))
	g := newScheduling(t, v, nil, clock)
	long := schedule(t, g.operator(t, &sara), onePair(1), clock.Now().Add(time.Minute))
	next := schedule(t, g.operator(t, &sara), onePair(2), clock.Now().Add(2*time.Minute))
	r, log := g.runner(t, model.RunnerScheduler)
	r.Late = 10 * time.Minute
	defer close(release)
	loop(t, r, 5*time.Millisecond) // the fake clock is looked at every 5 ms

	clock.Advance(time.Minute)
	arrived(t, held, "the first send's request") // it is at the service
	clock.Advance(time.Minute)
	eventually.True(t, hangGuard, func() bool { return len(v.sb.Sent()) == 1 },
		func() string {
			return fmt.Sprintf("the second send did not start while the first ran: events %v", log.kinds())
		})
	if sent := v.sb.Sent()[0]; sent.Message != "send 2" {
		t.Fatalf("the service took %q first, want the second send's", sent.Message)
	}
	clock.Advance(time.Hour) // past --late: the second send started in time
	release <- struct{}{}
	// Both runs end: the second's request was answered before the first's,
	// but its records are written after the service's answer, as the
	// first's are.
	for _, id := range []string{long, next} {
		eventually.True(t, hangGuard, func() bool { return readSend(t, g.paths, id).Complete() }, func() string { return "send " + id + " did not end" })
	}
	for _, id := range []string{long, next} {
		if st := readSend(t, g.paths, id); !st.Complete() || st.Cancel != nil || st.Runs != 1 {
			t.Errorf("send %s: complete %v, cancel %+v, runs %d", id, st.Complete(), st.Cancel, st.Runs)
		}
	}
	if slices.Contains(log.kinds(), RunnerMissed) {
		t.Errorf("a send was marked missed: %v", log.kinds())
	}
}

// TestRunnerHearsOfANewSend: a send scheduled by another process after a
// runner began to wait is heard of through the ledger's Watch and
// started, though the runner's own look comes only every hour.
func TestRunnerHearsOfANewSend(t *testing.T) {
	for _, b := range ledgertest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			sl := newSharedLedger(t, b)
			v := newService(t, sandbox.Options{})
			prof := &config.Profile{Name: "live", Sender: sandbox.DefaultSender}
			// The runner's clock is a minute ahead of the operator's: the
			// send is due for it as soon as it is scheduled.
			opClock := fakeclock.New(tehran(t, 10, 0))
			runClock := fakeclock.New(tehran(t, 10, 1))
			log := &runnerLog{}
			r := &Runner{Session: v.clocked(t, sl.paths(t), prof, runClock), Kind: model.RunnerServe, Report: log.add}
			loop(t, r, time.Hour)
			eventually.True(t, hangGuard, func() bool { return slices.Contains(log.kinds(), RunnerWaiting) },
				func() string { return fmt.Sprintf("the runner never waited: %v", log.kinds()) })

			id := schedule(t, v.clocked(t, sl.paths(t), prof, opClock), onePair(1), tehran(t, 10, 1))
			eventually.True(t, hangGuard, func() bool { return len(v.sb.Sent()) == 1 },
				func() string { return fmt.Sprintf("the runner did not hear of send %s: events %v", id, log.kinds()) })
		})
	}
}

// TestTakeOverFromAGoneRunner: a runner died mid-send (its lease ended
// unrenewed): its last chunk went out with no answer, its first was
// accepted. Another runner goes on with the items certainly not sent only;
// the unknown ones wait for an operator. Found longer than --late after the
// dead runner last wrote, the send is left for an operator, said once.
func TestTakeOverFromAGoneRunner(t *testing.T) {
	for _, b := range ledgertest.Backends() {
		for _, tc := range []struct {
			name  string
			after time.Duration
			goOn  bool
		}{
			{"within late", time.Minute, true},
			{"past late", 2 * time.Hour, false},
		} {
			t.Run(b.Name+"/"+tc.name, func(t *testing.T) {
				sl := newSharedLedger(t, b)
				v := newService(t, sandbox.Options{})
				clock := fakeclock.New(tehran(t, 10, 0))
				prof := &config.Profile{Name: "live", Sender: sandbox.DefaultSender, ChunkSize: 2}
				rows := pairs(6)
				id := schedule(t, v.clocked(t, sl.paths(t), prof, clock), rows, clock.Now().Add(time.Minute))
				clock.Advance(time.Minute)
				dieMidSend(t, sl.loc, id, clock.Now())

				clock.Advance(tc.after)
				r, log := &Runner{Session: v.clocked(t, sl.paths(t), prof, clock), Kind: model.RunnerServe}, &runnerLog{}
				r.Report = log.add
				for range 2 {
					if _, err := r.Pass(context.Background()); err != nil {
						t.Fatal(err)
					}
				}
				st := readSend(t, r.Session.Paths, id)
				states := make([]model.ItemState, len(st.Items))
				for i, it := range st.Items {
					states[i] = it.State
				}
				var sent []string
				for _, m := range v.sb.Sent() {
					sent = append(sent, m.Recipient)
				}
				if !tc.goOn {
					if len(sent) != 0 || !slices.Equal(log.kinds(), []RunnerEventKind{RunnerLeftHeld}) ||
						!strings.Contains(log.evs[0].Reason, "its runner stopped mid-send") {
						t.Fatalf("past late: sent %v, events %v", sent, log.evs)
					}
					return
				}
				want := []model.ItemState{model.StateAccepted, model.StateAccepted, model.StateUnknown, model.StateUnknown, model.StateAccepted, model.StateAccepted}
				if !slices.Equal(sent, []string{rows[4].Recipient, rows[5].Recipient}) || !slices.Equal(states, want) {
					t.Fatalf("the service took %v; items %v, want the last two sent and %v", sent, states, want)
				}
				if k := log.kinds(); !slices.Equal(k, []RunnerEventKind{RunnerStarted, RunnerFinished}) || !log.evs[0].TakenOver {
					t.Errorf("events %v (taken over %v)", k, log.evs[0].TakenOver)
				}
				if st.Runs != 2 || st.Runner != model.RunnerServe || SendStatus(st, false) == "running" {
					t.Errorf("runs %d, runner %q, status %s", st.Runs, st.Runner, SendStatus(st, false))
				}
			})
		}
	}
}

// dieMidSend writes what a runner that died mid-send of id leaves, under a
// lease that ends at once: its start, chunk 0 accepted, chunk 1 sent with
// no answer; chunk 2 never went.
func dieMidSend(t *testing.T, loc, id string, now time.Time) {
	t.Helper()
	ctx := context.Background()
	l, err := ledger.Open(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	lease, err := l.Claim(ctx, id, "smsdesk scheduler", time.Nanosecond)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range []model.JournalRecord{
		&model.JournalResume{Time: now, Indexes: []int{0, 1, 2, 3, 4, 5}, Runner: model.RunnerScheduler},
		&model.JournalIntent{Time: now, Chunk: 0, Indexes: []int{0, 1}, Key: "smsdesk-" + id + "-0"},
		&model.JournalOutcome{Time: now, Chunk: 0, Status: 200, Results: []model.JournalResult{
			{Index: 0, State: model.StateAccepted, MessageID: "m0"}, {Index: 1, State: model.StateAccepted, MessageID: "m1"}}},
		&model.JournalIntent{Time: now, Chunk: 1, Indexes: []int{2, 3}, Key: "smsdesk-" + id + "-1"},
	} {
		if err := lease.Append(ctx, rec); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSlowCreditHoldsNothing: while a runner waits on a credit endpoint
// that does not answer, it holds no lock and no claim: an operator's send
// starts and goes, and the due send can still be looked at. When the
// credit answers, the due send starts.
func TestSlowCreditHoldsNothing(t *testing.T) {
	var block atomic.Bool
	asked, answer := make(chan struct{}), make(chan struct{})
	var once sync.Once
	v := wrapped(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/account/credit") && block.Load() {
				once.Do(func() { close(asked) })
				select {
				case <-answer:
				case <-time.After(hangGuard):
				}
			}
			h.ServeHTTP(w, r)
		})
	})
	clock := fakeclock.New(tehran(t, 10, 0))
	g := newScheduling(t, v, nil, clock)
	due := schedule(t, g.operator(t, &sara), onePair(1), clock.Now().Add(time.Minute))
	op := g.operator(t, &sara)
	now := prepare(t, op, onePair(2), false) // asked for the credit before it blocks
	clock.Advance(time.Minute)

	r, _ := g.runner(t, model.RunnerScheduler)
	block.Store(true)
	passed := make(chan error, 1)
	go func() {
		_, err := r.Pass(context.Background())
		passed <- err
	}()
	arrived(t, asked, "the runner's credit request")
	if config.JournalInUse(t.Context(), g.paths, due) {
		t.Error("the runner holds the due send while it waits on the credit")
	}
	x, err := now.Start(context.Background(), SendOptions{})
	if err != nil {
		close(answer)
		<-passed
		t.Fatalf("the operator's send while the runner waits on the credit: %v", err)
	}
	finish(t, x)
	close(answer)
	if err := <-passed; err != nil {
		t.Fatal(err)
	}
	if st := readSend(t, g.paths, due); !st.Complete() || len(v.sb.Sent()) != 2 {
		t.Errorf("the due send: complete %v; the service took %d, want 2", st.Complete(), len(v.sb.Sent()))
	}
}

// TestLoopStopsAtAWriteThatFails: once the ledger takes no more writes (a
// full disk) mid-send, the send stops after the chunk whose answer could
// not be recorded, and the loop stops, saying why: a foreground scheduler
// exits rather than go on starting sends it cannot record.
func TestLoopStopsAtAWriteThatFails(t *testing.T) {
	sl := newSharedLedger(t, ledgertest.Backends()[0])
	var once sync.Once
	v := wrapped(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/sms/send-pair") {
				once.Do(func() {
					if err := ledgertest.FailRecords(sl.loc); err != nil {
						t.Error(err)
					}
				})
			}
			h.ServeHTTP(w, r)
		})
	})
	clock := fakeclock.New(tehran(t, 10, 0))
	prof := &config.Profile{Name: "live", Sender: sandbox.DefaultSender, ChunkSize: 2}
	schedule(t, v.clocked(t, sl.paths(t), prof, clock), pairs(6), clock.Now().Add(time.Minute))
	clock.Advance(time.Minute)
	r := &Runner{Session: v.clocked(t, sl.paths(t), prof, clock), Kind: model.RunnerScheduler}
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	err := r.Loop(ctx, 5*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "database or disk is full (test)") || ctx.Err() != nil {
		t.Fatalf("Loop: %v (the loop went on: %v)", err, ctx.Err())
	}
	if n := v.sb.RequestsTo("POST", "/sms/send-pair"); n != 1 {
		t.Errorf("%d send requests, want the first chunk's only", n)
	}
}
