package dispatch_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/client/dispatch"
	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// The helper process: when killHelperEnv is set, TestKillHelper runs a
// 2,000-pair send against the parent's sandbox, journaling to the parent's
// temp state dir, until the parent kills it.
const (
	killHelperEnv = "SMSDESK_DISPATCH_KILL_HELPER"
	killBaseEnv   = "SMSDESK_DISPATCH_KILL_BASE"
	killKeyEnv    = "SMSDESK_DISPATCH_KILL_KEY"
	killStateEnv  = "SMSDESK_DISPATCH_KILL_STATE"
	killID        = "killed"
	killPairs     = 2000
	killChunk     = 20
	killAtRequest = 15 // the parent kills the helper while serving this request
)

func TestKillHelper(t *testing.T) {
	if os.Getenv(killHelperEnv) == "" {
		t.Skip("helper process for TestKilledSendResumes")
	}
	p := config.PathsIn(os.Getenv(killStateEnv), os.Getenv(killStateEnv))
	j, err := config.CreateJournal(t.Context(), p, killID)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(os.Getenv(killBaseEnv), os.Getenv(killKeyEnv), client.WithRatePerMinute(0))
	if err != nil {
		t.Fatal(err)
	}
	run, err := dispatch.Start(context.Background(), c, dispatch.NewJob(killID, sandbox.DefaultSender, items(killPairs, 0)),
		dispatch.Options{ChunkSize: killChunk, Journal: j, Plan: &model.JournalPlan{Profile: "default"}})
	if err != nil {
		t.Fatal(err)
	}
	drain(t, run)
	t.Fatal("helper finished: the parent should have killed it")
}

func TestKilledSendResumes(t *testing.T) {
	if os.Getenv(killHelperEnv) != "" {
		t.Skip("in the helper process")
	}
	var calls atomic.Int64
	var child *os.Process
	started := make(chan struct{}) // closed when child is set
	dead := make(chan struct{})    // closed when the helper has exited
	var waitErr error
	e := newEnv(t, sandbox.Options{}, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if isSendPair(r) && calls.Add(1) == killAtRequest {
				next.ServeHTTP(httptest.NewRecorder(), r) // the service takes this chunk…
				<-started                                 // (Start has returned long before, in practice)
				child.Kill()                              // …and the sender dies before hearing so
				select {
				case <-dead:
				case <-time.After(waitLimit):
				}
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	state := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKillHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), killHelperEnv+"=1", killBaseEnv+"="+e.base, killKeyEnv+"="+e.sb.Key(), killStateEnv+"="+state)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	child = cmd.Process
	close(started)
	go func() { waitErr = cmd.Wait(); close(dead) }()
	select {
	case <-dead:
	case <-time.After(waitLimit):
		cmd.Process.Kill()
		t.Fatal("helper did not end")
	}
	err := waitErr
	var ee *exec.ExitError
	if !errors.As(err, &ee) || !ee.Sys().(syscall.WaitStatus).Signaled() || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("helper ended with %v, want killed by SIGKILL", err)
	}

	// History: interrupted, with the right state for every recipient.
	p := config.PathsIn(state, state)
	list, err := config.ListJournals(t.Context(), p)
	if err != nil || len(list) != 1 || list[0].Err != nil || list[0].Running {
		t.Fatalf("history: %+v, %v", list, err)
	}
	st := list[0].State
	if !st.Interrupted || st.Complete() {
		t.Errorf("history: interrupted=%v complete=%v, want interrupted", st.Interrupted, st.Complete())
	}
	accepted := (killAtRequest - 1) * killChunk
	want := model.StateCounts{Total: killPairs, Accepted: accepted, Unknown: killChunk, NotSent: killPairs - accepted - killChunk}
	if got := st.Counts(); got != want {
		t.Errorf("history counts %+v, want %+v", got, want)
	}
	checkAgainstServer(t, e.sb, st.Items)
	sent := sentCounts(e.sb)
	for _, it := range st.Items {
		if it.State == model.StateUnknown && len(sent[sentKey{it.Recipient, it.Message}]) != 1 {
			t.Errorf("item %d unknown but not the chunk the service took", it.Index)
		}
	}

	// Resume: sends only what certainly did not go.
	j, err := config.OpenJournal(t.Context(), p, killID)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	job := dispatch.ResumeJob(st, false)
	if n := len(job.ToSend()); n != want.NotSent {
		t.Fatalf("resume would send %d, want %d", n, want.NotSent)
	}
	run, err := dispatch.Start(ctxTimeout(t, waitLimit), e.client(t), job, dispatch.Options{ChunkSize: 100, Journal: j})
	if err != nil {
		t.Fatal(err)
	}
	_, sum := drain(t, run)
	if c := sum.Counts; c.Accepted != killPairs-killChunk || c.Unknown != killChunk || c.NotSent != 0 || sum.Interrupted {
		t.Errorf("after resume: %+v interrupted=%v", c, sum.Interrupted)
	}
	checkAgainstServer(t, e.sb, run.Results())
	if n := len(e.sb.Sent()); n != killPairs {
		t.Errorf("the service sent %d messages, want each of the %d exactly once", n, killPairs)
	}
	j.Close()
	st2, err := config.ReadJournal(t.Context(), p, killID)
	if err != nil {
		t.Fatal(err)
	}
	over := st2.Complete() || st2.Unresolved() // unresolved: the killed chunk stays unknown
	if !over || st2.Unresolved() != (sum.Counts.Unknown > 0) || st2.Runs != 2 || st2.Counts() != sum.Counts {
		t.Errorf("journal after resume: complete=%v unresolved=%v runs=%d counts=%+v", st2.Complete(), st2.Unresolved(), st2.Runs, st2.Counts())
	}
}
