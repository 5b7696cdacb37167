package app

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/model/fakeclock"
)

// The record a send begins with is built here (planRecord, startRecord)
// and written by the engine as given: these tests read each first record
// back from the ledger and find it equal, field for field, to the one
// built, but for what only the engine fills in (the send's id, sender
// line, items and chunk size; the items a run sends; the time).

// records are send id's records as the ledger holds them.
func records(t *testing.T, paths config.Paths, id string) []model.JournalRecord {
	t.Helper()
	pl, err := config.ReadLedgerPlace(paths)
	if err != nil {
		t.Fatal(err)
	}
	return ledgertest.Records(t, pl.Location, id)
}

// checkWritten fails unless got, a record read back from the ledger,
// equals built (times as the ledger keeps them) but for the fields the
// engine fills in, which are taken from got.
func checkWritten(t *testing.T, got, built model.JournalRecord) {
	t.Helper()
	b, err := model.MarshalJournalRecord(built)
	if err != nil {
		t.Fatal(err)
	}
	want, err := model.UnmarshalJournalRecord(b)
	if err != nil {
		t.Fatal(err)
	}
	switch w := want.(type) {
	case *model.JournalPlan:
		g, ok := got.(*model.JournalPlan)
		if !ok {
			t.Fatalf("written %T, built a plan", got)
		}
		w.ID, w.Time, w.Sender, w.ChunkSize, w.Items = g.ID, g.Time, g.Sender, g.ChunkSize, g.Items
	case *model.JournalResume:
		g, ok := got.(*model.JournalResume)
		if !ok {
			t.Fatalf("written %T, built a resume", got)
		}
		w.Time, w.Indexes, w.IncludeUnknown, w.OptedOut = g.Time, g.Indexes, g.IncludeUnknown, g.OptedOut
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("written  %+v\nbuilt    %+v", got, want)
	}
}

// TestNewSendAndResumeRecordsAsBuilt: an admin's send through quiet hours
// that repeats an earlier send on purpose, and her resume of it, begin
// with the records ui/app built for them.
func TestNewSendAndResumeRecordsAsBuilt(t *testing.T) {
	credit := int64(100)
	v := newService(t, sandbox.Options{Credit: &credit, NoCreditEndpoint: true})
	paths := tempPaths(t)
	prof := &config.Profile{Name: "live", Sender: sandbox.DefaultSender, QuietHours: "22:00-08:00", OptOutSuffix: "لغو۱۱", ChunkSize: 1}
	now := tehran(t, 23, 0)
	s := v.clocked(t, paths, prof, fakeclock.New(now))
	s.Operator = &model.Operator{Name: "nima", Fingerprint: "SHA256:nima", Role: model.RoleAdmin}
	ctx := context.Background()
	req := SendRequest{Plan: s.Plan(s.Profile.Sender, pairs(2)), Source: FileSource("pairs.csv"), IgnoreQuietHours: true}

	first := startPrepared(t, s, req)
	v.sb.SetCredit(1) // the repeat's first pair goes, then the credit stops it
	req.AllowRepeat = true
	p, err := s.PrepareSend(ctx, req)
	if err != nil || p.Refusal != nil {
		t.Fatal(err, p.Refusal)
	}
	plan := p.planRecord()
	if plan.Profile != "live" || plan.Source != "pairs.csv" || plan.BaseURL != v.baseURL || plan.Account == "" ||
		plan.Operator == nil || plan.Operator.Name != "nima" || plan.Suffix != "لغو۱۱" || plan.NoSuffix ||
		!plan.IgnoreQuietHours || plan.QuietHours == "" || !slices.Equal(plan.RepeatOf, []string{first}) || !plan.ScheduledFor.IsZero() {
		t.Fatalf("built %+v", plan)
	}
	x, err := p.Start(ctx, SendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := finish(t, x)
	if out.Summary.Cause != StopCredit {
		t.Fatalf("the repeat: %+v, want it stopped by the credit", out.Summary)
	}
	recs := records(t, paths, x.ID())
	got := recs[0].(*model.JournalPlan)
	checkWritten(t, got, plan)
	if got.ID != x.ID() || !got.Time.Equal(now) || got.Sender != sandbox.DefaultSender || got.ChunkSize != 1 || len(got.Items) != 2 {
		t.Errorf("the engine's part: id %s time %v sender %s chunk %d items %d", got.ID, got.Time, got.Sender, got.ChunkSize, len(got.Items))
	}

	v.sb.SetCredit(100)
	r, err := s.PrepareResume(t.Context(), x.ID(), ResumeOptions{AllowRepeat: true, IgnoreQuietHours: true})
	if err != nil {
		t.Fatal(err)
	}
	start := s.startRecord(true, "")
	if start.Operator == nil || start.Operator.Name != "nima" || !start.IgnoreQuietHours || start.Runner != "" {
		t.Fatalf("built %+v", start)
	}
	y, _, err := r.Start(ctx, SendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	finish(t, y)
	recs = records(t, paths, x.ID())
	i := slices.IndexFunc(recs, func(rec model.JournalRecord) bool { return rec.RecordType() == model.RecordResume })
	if i < 0 {
		t.Fatalf("no resume record in %d records", len(recs))
	}
	resume := recs[i].(*model.JournalResume)
	checkWritten(t, resume, start)
	if !slices.Equal(resume.Indexes, []int{1}) || resume.IncludeUnknown || !resume.Time.Equal(now) {
		t.Errorf("the engine's part: indexes %v include unknown %v time %v", resume.Indexes, resume.IncludeUnknown, resume.Time)
	}
}

// startPrepared checks req through s and starts it; it returns the
// send's id once it has finished.
func startPrepared(t *testing.T, s *Session, req SendRequest) string {
	t.Helper()
	p, err := s.PrepareSend(context.Background(), req)
	if err != nil || p.Refusal != nil {
		t.Fatal(err, p.Refusal)
	}
	x, err := p.Start(context.Background(), SendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	finish(t, x)
	return x.ID()
}

// TestScheduledRecordsAsBuilt: a scheduled send's plan, and the record
// its runner begins it with at its time, are the ones ui/app built.
func TestScheduledRecordsAsBuilt(t *testing.T) {
	v := newService(t, sandbox.Options{})
	g := newScheduling(t, v, nil, fakeclock.New(tehran(t, 10, 0)))
	at := g.clock.Now().Add(2 * time.Hour)
	s := g.operator(t, &sara)
	p, err := s.PrepareSend(context.Background(), SendRequest{Plan: s.Plan(s.Profile.Sender, pairs(3)), Source: FileSource("pairs.csv"), At: at})
	if err != nil || p.Refusal != nil {
		t.Fatal(err, p.Refusal)
	}
	plan := p.planRecord()
	if !plan.ScheduledFor.Equal(at) || plan.Operator == nil || plan.Operator.Name != "sara" || plan.Profile != "live" || plan.IgnoreQuietHours {
		t.Fatalf("built %+v", plan)
	}
	sc, err := p.Schedule(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	recs := records(t, g.paths, sc.ID)
	checkWritten(t, recs[0], plan)

	r, _ := g.runner(t, model.RunnerScheduler)
	start := r.Session.startRecord(false, r.Kind)
	if start.Runner != model.RunnerScheduler || start.Operator != nil || start.IgnoreQuietHours {
		t.Fatalf("built %+v", start)
	}
	g.clock.Advance(2 * time.Hour)
	if n := pass(t, r); n != 1 {
		t.Fatalf("at its time: started %d, want 1", n)
	}
	recs = records(t, g.paths, sc.ID)
	if len(recs) < 2 {
		t.Fatalf("%d records after the start", len(recs))
	}
	resume, ok := recs[1].(*model.JournalResume)
	if !ok {
		t.Fatalf("the start began with a %T", recs[1])
	}
	checkWritten(t, resume, start)
	if !slices.Equal(resume.Indexes, []int{0, 1, 2}) || !resume.Time.Equal(at) {
		t.Errorf("the engine's part: indexes %v time %v", resume.Indexes, resume.Time)
	}
}
