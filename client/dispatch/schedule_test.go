package dispatch_test

import (
	"context"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/dispatch"
	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// TestScheduleThenStart: Schedule journals the plan with its time and
// sends nothing; a runner's resume of it is the send's first run, named
// by the runner, and sends every item once.
func TestScheduleThenStart(t *testing.T) {
	e := newEnv(t, sandbox.Options{}, nil)
	at := time.Date(2026, 11, 26, 4, 30, 0, 0, time.UTC)
	p, j := newJournal(t, "20261125-182800-bbbbbb")
	job := dispatch.NewJob("20261125-182800-bbbbbb", "3000505", items(5, 0))
	if err := dispatch.Schedule(job, dispatch.Options{Journal: j}); err == nil {
		t.Fatal("a job scheduled without a time")
	}
	if err := dispatch.Schedule(job, dispatch.Options{Journal: j, Plan: &model.JournalPlan{ScheduledFor: at, Profile: "live"}}); err != nil {
		t.Fatal(err)
	}
	if err := j.CloseScheduled(at); err != nil {
		t.Fatal(err)
	}
	if n := len(e.sb.Sent()); n != 0 {
		t.Fatalf("scheduling sent %d", n)
	}
	st := replayState(t, p, job.ID)
	if !st.Waiting() || !st.Plan.ScheduledFor.Equal(at) || st.Runs != 0 || st.Counts().NotSent != 5 {
		t.Fatalf("scheduled: waiting %v for %v runs %d counts %+v", st.Waiting(), st.Plan.ScheduledFor, st.Runs, st.Counts())
	}

	j, fresh, err := config.OpenJournalLocked(t.Context(), p, job.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	run, err := dispatch.Start(context.Background(), e.client(t), dispatch.ResumeJob(fresh, false),
		dispatch.Options{Journal: j, Resume: &model.JournalResume{Runner: model.RunnerCron}, Now: func() time.Time { return at }})
	if err != nil {
		t.Fatal(err)
	}
	if _, sum := drain(t, run); sum.Counts.Accepted != 5 {
		t.Fatalf("started: %+v", sum.Counts)
	}
	st = replayState(t, p, job.ID)
	if st.Waiting() || !st.Complete() || st.Runs != 1 || st.StartedBy != model.RunnerCron || !st.StartedAt.Equal(at) {
		t.Fatalf("after the start: waiting %v complete %v runs %d started by %q at %v", st.Waiting(), st.Complete(), st.Runs, st.StartedBy, st.StartedAt)
	}
	if n := len(e.sb.Sent()); n != 5 {
		t.Fatalf("the service took %d, want 5", n)
	}
}
