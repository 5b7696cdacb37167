package dispatch_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/client/dispatch"
	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/model/fakeclock"
)

// heldWait is a client clock whose first wait (the rate budget's, or a
// 429's hold) is held: it says so on waiting and ends when released (the
// clock then moves on by the wait) or when its context is done. Later
// waits pass at once.
type heldWait struct {
	fc      *fakeclock.Clock
	waiting chan struct{}
	release chan struct{}
	waits   atomic.Int64
}

func newHeldWait() *heldWait {
	return &heldWait{fc: fakeclock.New(time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)),
		waiting: make(chan struct{}), release: make(chan struct{})}
}

func (h *heldWait) sleep(ctx context.Context, d time.Duration) error {
	if h.waits.Add(1) == 1 {
		close(h.waiting)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-h.release:
		}
	}
	return h.fc.Sleep(ctx, d)
}

// failingJournal is a journal whose appends fail once fail is set (a disk
// that fills, a database gone read-only).
type failingJournal struct {
	j    *config.JournalFile
	fail atomic.Bool
}

var errLedgerGone = errors.New("the ledger refuses writes")

func (f *failingJournal) Append(rec model.JournalRecord) error {
	if f.fail.Load() {
		return errLedgerGone
	}
	return f.j.Append(rec)
}

func (f *failingJournal) Sync() error { return f.j.Sync() }

// TestIntentWrittenAfterThePacersWait: a chunk waiting for its turn (the
// rate budget spent by the chunk before it, or a 429's hold on the key) has
// no intent in the journal yet, so a process killed in that wait (the
// journal read as it is then) leaves it not sent, not unknown, and nothing
// of it at the service; its intent is written once the wait is over, before
// the request goes, each attempt with its own. Before, the intent came
// before the wait: kill -9 of a scheduler with ten sends on one pacer left
// 20 items unknown that had never gone out.
func TestIntentWrittenAfterThePacersWait(t *testing.T) {
	for _, tc := range []struct {
		name string
		// perMinute 1: the first chunk spends the budget and the second
		// waits for it; 0 with first429: the first request is refused with
		// a Retry-After, and its second attempt waits for the hold.
		perMinute int
		first429  bool
		// then: what ends the wait: "cancel" (the run is stopped),
		// "release" (the turn comes), "fail" (the ledger refuses writes
		// from the wait on, then the turn comes).
		then string
		// the journal at the end: states of the two items, requests
		// the service took, and the intents' attempt numbers.
		want     [2]model.ItemState
		taken    int
		attempts []int
		wantErr  error
	}{
		{name: "budget spent, stopped in the wait", perMinute: 1, then: "cancel",
			want: [2]model.ItemState{model.StateAccepted, model.StateQueued}, taken: 1, attempts: []int{0}},
		{name: "budget spent, its turn comes", perMinute: 1, then: "release",
			want: [2]model.ItemState{model.StateAccepted, model.StateAccepted}, taken: 2, attempts: []int{0, 0}},
		{name: "budget spent, the ledger fails in the wait", perMinute: 1, then: "fail",
			want: [2]model.ItemState{model.StateAccepted, model.StateQueued}, taken: 1, attempts: []int{0}, wantErr: errLedgerGone},
		{name: "429, stopped in its hold", first429: true, then: "cancel",
			want: [2]model.ItemState{model.StateQueued, model.StateQueued}, taken: 0, attempts: []int{0}},
		{name: "429, sent again after its hold", first429: true, then: "release",
			want: [2]model.ItemState{model.StateAccepted, model.StateAccepted}, taken: 2, attempts: []int{0, 1, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var refused atomic.Bool
			e := newEnv(t, sandbox.Options{}, func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if tc.first429 && isSendPair(r) && refused.CompareAndSwap(false, true) {
						w.Header().Set("Retry-After", "1")
						w.Header().Set("Content-Type", "application/json")
						w.WriteHeader(http.StatusTooManyRequests)
						w.Write([]byte(`{"success":false,"error_code":"rate_limited","message":"slow down"}`))
						return
					}
					next.ServeHTTP(w, r)
				})
			})
			hw := newHeldWait()
			c := e.client(t, client.WithRatePerMinute(tc.perMinute), client.WithClock(hw.fc.Now, hw.sleep))
			p, j := newJournal(t, "paced")
			fj := &failingJournal{j: j}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			run, err := dispatch.Start(ctx, c, dispatch.NewJob("paced", sandbox.DefaultSender, items(2, 0)),
				dispatch.Options{ChunkSize: 1, Journal: fj, Sleep: hw.fc.Sleep})
			if err != nil {
				t.Fatal(err)
			}
			events := make(chan struct{})
			go func() {
				defer close(events)
				for range run.Events() {
				}
			}()
			<-hw.waiting

			// Killed here: the journal as it stands.
			st := replayState(t, p, "paced")
			waiting := st.Items[1]
			if tc.first429 {
				waiting = st.Items[0]
			}
			if waiting.State != model.StateQueued {
				t.Errorf("in the wait, the waiting chunk's item replays %s (%s), want %s: nothing of it went", waiting.State, waiting.Error, model.StateQueued)
			}
			if n := len(e.sb.Sent()); n != 0 && tc.first429 || n != 1 && !tc.first429 {
				t.Errorf("in the wait, the service sent %d", n)
			}

			switch tc.then {
			case "cancel":
				cancel()
			case "fail":
				fj.fail.Store(true)
				close(hw.release)
			default:
				close(hw.release)
			}
			<-events
			_, werr := run.Wait()
			if !errors.Is(werr, tc.wantErr) || (werr == nil) != (tc.wantErr == nil) {
				t.Errorf("run error %v, want %v", werr, tc.wantErr)
			}
			j.Close()
			st = replayState(t, p, "paced")
			for i, want := range tc.want {
				if got := st.Items[i].State; got != want {
					t.Errorf("item %d replays %s (%s), want %s", i, got, st.Items[i].Error, want)
				}
			}
			checkAgainstServer(t, e.sb, st.Items)
			if n := len(e.sb.Sent()); n != tc.taken {
				t.Errorf("the service sent %d, want %d", n, tc.taken)
			}
			loc, _ := p.LedgerLocation()
			var attempts []int
			for _, rec := range ledgertest.Records(t, loc, "paced") {
				if in, ok := rec.(*model.JournalIntent); ok {
					attempts = append(attempts, in.Attempt)
				}
			}
			if !slices.Equal(attempts, tc.attempts) {
				t.Errorf("intents' attempts %v, want %v", attempts, tc.attempts)
			}
		})
	}
}
