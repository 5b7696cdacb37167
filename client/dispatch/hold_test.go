package dispatch_test

import (
	"context"
	"net/http"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/client/dispatch"
	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/model/fakeclock"
)

// TestHoldAtQuietHours: a run whose Hold says quiet hours began starts no
// chunk after it; the chunk before finished and is journaled; the rest is
// held (not sent, none unknown) until the time Hold gave, and a resume sends
// exactly that rest.
func TestHoldAtQuietHours(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 18, 28, 0, 0, time.UTC) // 21:58 in Tehran
	clock := fakeclock.New(t0)
	// Each request takes a minute on the run's clock.
	e := newEnv(t, sandbox.Options{}, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.ServeHTTP(w, r)
			clock.Advance(time.Minute)
		})
	})
	start := t0.Add(2 * time.Minute) // 22:00 in Tehran
	until := t0.Add(10 * time.Hour)
	hold := func(now time.Time) (string, time.Time, bool) {
		return "quiet hours 22:00–08:00 Asia/Tehran began", until, !now.Before(start)
	}
	p, j := newJournal(t, "20261125-182800-aaaaaa")
	job := dispatch.NewJob("20261125-182800-aaaaaa", "3000505", items(10, 0))
	run, err := dispatch.Start(context.Background(), e.client(t), job, dispatch.Options{
		Journal: j, ChunkSize: 3, Hold: hold, Now: clock.Now, Sleep: clock.Sleep})
	if err != nil {
		t.Fatal(err)
	}
	_, sum := drain(t, run)
	if sum.Cause != dispatch.StopQuiet || !sum.Interrupted || !sum.HeldUntil.Equal(until) || sum.Counts.Accepted != 6 || sum.Counts.NotSent != 4 || sum.Counts.Unknown != 0 {
		t.Fatalf("summary %+v", sum)
	}
	if n := len(e.sb.Sent()); n != 6 {
		t.Fatalf("the service took %d, want the 2 chunks before 22:00 (6)", n)
	}
	_ = j.Close()
	st := replayState(t, p, job.ID)
	if !st.Held() || !st.HeldUntil.Equal(until) || st.StopCause != string(dispatch.StopQuiet) || st.Stopped == "" {
		t.Fatalf("journal: held %v until %v cause %q %q", st.Held(), st.HeldUntil, st.StopCause, st.Stopped)
	}
	if got := st.ResumeIndexes(false); !slices.Equal(got, []int{6, 7, 8, 9}) {
		t.Fatalf("resumable %v", got)
	}

	// At 08:00 the resume sends the rest, and the send is no longer held.
	clock.Advance(10 * time.Hour)
	start = clock.Now().Add(12 * time.Hour) // the next evening's
	j2, fresh, err := config.OpenJournalLocked(t.Context(), p, job.ID)
	if err != nil {
		t.Fatal(err)
	}
	run, err = dispatch.Start(context.Background(), e.client(t), dispatch.ResumeJob(fresh, false), dispatch.Options{
		Journal: j2, ChunkSize: 3, Hold: hold, Now: clock.Now, Sleep: clock.Sleep})
	if err != nil {
		t.Fatal(err)
	}
	_, sum = drain(t, run)
	_ = j2.Close()
	if sum.Counts.Accepted != 10 || sum.Cause != "" || len(e.sb.Sent()) != 10 {
		t.Fatalf("resumed: %+v, sandbox %d", sum, len(e.sb.Sent()))
	}
	if st := replayState(t, p, job.ID); st.Held() || !st.Complete() {
		t.Fatalf("after the resume: held %v complete %v", st.Held(), st.Complete())
	}
}

// TestOptedOutItemsNeverSent: an item opted out in the plan, and one opted
// out when a resume starts, are journaled as opted out, never sent, and
// never offered by a resume.
func TestOptedOutItemsNeverSent(t *testing.T) {
	e := newEnv(t, sandbox.Options{}, failAfter(1))
	its := items(4, 0)
	its[1].OptedOut = true
	p, j := newJournal(t, "20261125-182800-bbbbbb")
	run, err := dispatch.Start(context.Background(), e.client(t), dispatch.NewJob("20261125-182800-bbbbbb", "3000505", its), dispatch.Options{Journal: j, ChunkSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, sum := drain(t, run)
	_ = j.Close()
	if sum.Counts.OptedOut != 1 || slices.ContainsFunc(e.sb.Sent(), func(s sandbox.SentMessage) bool { return s.Recipient == its[1].Recipient }) {
		t.Fatalf("plan opt-out: %+v", sum.Counts)
	}
	st := replayState(t, p, "20261125-182800-bbbbbb")
	if it, _ := st.Item(1); it.State != model.StateOptedOut || slices.Contains(st.ResumeIndexes(true), 1) {
		t.Fatalf("replayed %s, resumable %v", it.State, st.ResumeIndexes(true))
	}
	left := st.ResumeIndexes(false)
	if len(left) == 0 {
		t.Fatal("nothing left to resume: the fault did not stop the run")
	}
	// A resume: the first item left was opted out since.
	j2, fresh, err := config.OpenJournalLocked(t.Context(), p, "20261125-182800-bbbbbb")
	if err != nil {
		t.Fatal(err)
	}
	job := dispatch.ResumeJob(fresh, false)
	job.OptOut(left[:1])
	run, err = dispatch.Start(context.Background(), newEnv(t, sandbox.Options{}, nil).client(t), job, dispatch.Options{Journal: j2, ChunkSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, sum = drain(t, run)
	_ = j2.Close()
	st = replayState(t, p, "20261125-182800-bbbbbb")
	if it, _ := st.Item(left[0]); it.State != model.StateOptedOut || sum.Counts.OptedOut != 2 || st.Counts().OptedOut != 2 {
		t.Fatalf("resume opt-out: %s, %+v", it.State, st.Counts())
	}
}

// failAfter lets n send requests through, then answers 402 (out of credit):
// the run stops, the rest not sent.
func failAfter(n int) func(http.Handler) http.Handler {
	var seen atomic.Int32
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost && int(seen.Add(1)) > n {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusPaymentRequired)
				_, _ = w.Write([]byte(`{"error":{"code":"insufficient_credit","message":"no credit"}}`))
				return
			}
			h.ServeHTTP(w, r)
		})
	}
}

// TestHoldWhileWaitingForTheRate: a chunk that waits for the rate budget
// past the start of quiet hours is not written (client.SendBy): the run is
// held there, its items not sent, none unknown.
func TestHoldWhileWaitingForTheRate(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 18, 28, 0, 0, time.UTC) // 21:58 in Tehran
	clock := fakeclock.New(t0)
	e := newEnv(t, sandbox.Options{}, nil)
	start := t0.Add(2 * time.Minute)
	hold := func(now time.Time) (string, time.Time, bool) {
		return "quiet hours began", t0.Add(10 * time.Hour), !now.Before(start)
	}
	p, j := newJournal(t, "20261125-182800-cccccc")
	// One request a minute: chunks at 21:58 and 21:59 go; the third waits
	// until 22:00 and is held there, never written.
	c := e.client(t, client.WithRatePerMinute(1), client.WithClock(clock.Now, clock.Sleep))
	run, err := dispatch.Start(context.Background(), c, dispatch.NewJob("20261125-182800-cccccc", "3000505", items(5, 0)), dispatch.Options{
		Journal: j, ChunkSize: 1, Hold: hold, HoldFrom: func(time.Time) time.Time { return start }, Now: clock.Now, Sleep: clock.Sleep})
	if err != nil {
		t.Fatal(err)
	}
	_, sum := drain(t, run)
	_ = j.Close()
	if sum.Cause != dispatch.StopQuiet || sum.Counts.Accepted != 2 || sum.Counts.NotSent != 3 || sum.Counts.Unknown != 0 || len(e.sb.Sent()) != 2 {
		t.Fatalf("summary %+v, service took %d", sum, len(e.sb.Sent()))
	}
	if st := replayState(t, p, "20261125-182800-cccccc"); !st.Held() || st.Counts().Unknown != 0 {
		t.Fatalf("journal: held %v %+v", st.Held(), st.Counts())
	}
}
