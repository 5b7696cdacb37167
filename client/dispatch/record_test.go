package dispatch_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/dispatch"
	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
	"github.com/smsdesk/smsdesk/model"
)

// TestFirstRecordAsGiven: a run begins with the record its caller built
// (Options.Plan for a new job, Options.Resume for a resumed one), written
// as given but for what the engine fills in: the job's id, sender line and
// items, the chunk size, the items the run sends, the time when unset. The
// caller's record is not changed. A record of the wrong kind for the job
// writes nothing and sends nothing.
func TestFirstRecordAsGiven(t *testing.T) {
	const id = "20261125-193000-cccccc"
	e := newEnv(t, sandbox.Options{}, nil)
	at := time.Date(2026, 11, 26, 4, 30, 0, 0, time.UTC)
	now := func() time.Time { return at.Add(-time.Hour) }
	op := &model.Operator{Name: "sara", Fingerprint: "SHA256:sara"}
	plan := &model.JournalPlan{Profile: "live", Source: "pairs.csv", BaseURL: "https://sms.example/api/v1", Account: "acct",
		Operator: op, RepeatOf: []string{"earlier"}, Suffix: "لغو۱۱", IgnoreQuietHours: true, QuietHours: "quiet hours 22:00–08:00 Asia/Tehran",
		ScheduledFor: at}
	given := *plan
	p, j := newJournal(t, id)
	job := dispatch.NewJob(id, sandbox.DefaultSender, items(3, 0))
	if _, err := dispatch.Start(context.Background(), e.client(t), job, dispatch.Options{Journal: j, Resume: &model.JournalResume{}}); err == nil {
		t.Fatal("a new job started with a resume record")
	}
	if err := dispatch.Schedule(job, dispatch.Options{Journal: j, ChunkSize: 2, Plan: plan, Now: now}); err != nil {
		t.Fatal(err)
	}
	if err := j.CloseScheduled(at); err != nil {
		t.Fatal(err)
	}
	place, err := config.ReadLedgerPlace(p)
	if err != nil {
		t.Fatal(err)
	}
	loc := place.Location
	want := given
	want.ID, want.Sender, want.ChunkSize, want.Time, want.Items = id, sandbox.DefaultSender, 2, now(), items(3, 0)
	recs := ledgertest.Records(t, loc, id)
	if len(recs) != 1 || !reflect.DeepEqual(recs[0], &want) {
		t.Fatalf("written %d records, the first %+v\nwant %+v", len(recs), recs[0], &want)
	}
	if !reflect.DeepEqual(*plan, given) {
		t.Errorf("the caller's plan changed: %+v", plan)
	}

	j, fresh, err := config.OpenJournalLocked(t.Context(), p, id)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	resumed := dispatch.ResumeJob(fresh, false)
	if _, err := dispatch.Start(context.Background(), e.client(t), resumed, dispatch.Options{Journal: j, Plan: plan}); err == nil {
		t.Fatal("a resumed job started with a plan")
	}
	if n := len(ledgertest.Records(t, loc, id)); n != 1 || len(e.sb.Sent()) != 0 {
		t.Fatalf("the refused starts wrote %d records, sent %d", n-1, len(e.sb.Sent()))
	}
	start := &model.JournalResume{Operator: op, IgnoreQuietHours: true, Runner: model.RunnerCron, Time: at}
	run, err := dispatch.Start(context.Background(), e.client(t), resumed, dispatch.Options{Journal: j, Resume: start, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	drain(t, run)
	wantStart := model.JournalResume{Operator: op, IgnoreQuietHours: true, Runner: model.RunnerCron, Time: at, Indexes: []int{0, 1, 2}}
	recs = ledgertest.Records(t, loc, id)
	if len(recs) < 2 {
		t.Fatalf("%d records after the start", len(recs))
	}
	if !reflect.DeepEqual(recs[1], &wantStart) {
		t.Errorf("the start began with %+v\nwant %+v", recs[1], &wantStart)
	}
}
