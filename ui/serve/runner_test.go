package serve

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/model/eventually"
	"github.com/smsdesk/smsdesk/model/fakeclock"
	"github.com/smsdesk/smsdesk/ui/app"
)

// TestServeStartsADueSend: a send an operator scheduled is started by the
// server itself at its time, with no session open and no command: its
// journal names the operator who scheduled it and serve as the runner,
// the service takes every pair once, and the server's log says so.
func TestServeStartsADueSend(t *testing.T) {
	clock := fakeclock.New(time.Date(2026, 11, 25, 6, 30, 0, 0, time.UTC)) // 10:00 in Tehran
	w := newWorld(t, worldOptions{serve: func(o *Options) {
		s := o.NewSession(model.Operator{Name: "runner"})
		s.Operator, s.Now = nil, clock.Now
		o.Runner, o.RunnerPoll = &app.Runner{Session: s, Kind: model.RunnerServe}, 5*time.Millisecond
	}})
	sara := w.srv.opts.NewSession(model.Operator{Name: "sara", Fingerprint: gossh.FingerprintSHA256(w.keys["sara"].PublicKey()), Role: model.RoleSender})
	sara.Now = clock.Now
	ctx := context.Background()
	p, err := sara.PrepareSend(ctx, app.SendRequest{Plan: sara.Plan(sara.Profile.Sender, pairRows(4)), Source: app.FileSource("pairs.csv"),
		At: clock.Now().Add(30 * time.Minute)})
	if err != nil {
		t.Fatalf("prepare: %v", err)
	}
	if p.Refusal != nil {
		t.Fatalf("prepare: %v", p.Refusal)
	}
	sc, err := p.Schedule(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(w.sb.Sent()); n != 0 {
		t.Fatalf("scheduling sent %d", n)
	}

	clock.Advance(30 * time.Minute)
	var st *model.JournalState
	eventually.True(t, wait, func() bool {
		st, err = config.ReadJournal(t.Context(), w.paths, sc.ID)
		return err == nil && st.Complete()
	}, func() string { return fmt.Sprintf("the server did not start the due send: %v, %+v", err, st) })
	if st.StartedBy != model.RunnerServe || st.Plan.Operator == nil || st.Plan.Operator.Name != "sara" || st.Counts().Accepted != 4 {
		t.Errorf("journal: started by %q, scheduled by %v, counts %+v", st.StartedBy, st.Plan.Operator, st.Counts())
	}
	w.shutdown()()
	if n := len(w.sb.Sent()); n != 4 {
		t.Errorf("the service took %d, want 4 once", n)
	}
	if log := w.log.String(); !strings.Contains(log, "scheduler: send "+sc.ID+" started") || !strings.Contains(log, "runner=serve") {
		t.Errorf("the server's log:\n%s", log)
	}
}

// TestServeHearsOfANewSend: a server whose own look for due sends comes
// only every hour hears through the ledger of a send scheduled after it
// began to wait, and starts it at its time (the serve found a send
// scheduled from the CLI at its next 30-second look: 23 s late). The
// server's clock is half an hour ahead of the operator's: the send is due
// for it as soon as it is scheduled.
func TestServeHearsOfANewSend(t *testing.T) {
	opClock := fakeclock.New(time.Date(2026, 11, 25, 6, 30, 0, 0, time.UTC))
	runClock := fakeclock.New(opClock.Now().Add(30 * time.Minute))
	waiting := make(chan struct{})
	var once sync.Once
	w := newWorld(t, worldOptions{serve: func(o *Options) {
		s := o.NewSession(model.Operator{Name: "runner"})
		s.Operator, s.Now = nil, runClock.Now
		o.Runner, o.RunnerPoll = &app.Runner{Session: s, Kind: model.RunnerServe, Report: func(ev app.RunnerEvent) {
			if ev.Kind == app.RunnerWaiting {
				once.Do(func() { close(waiting) })
			}
		}}, time.Hour
	}})
	select {
	case <-waiting:
	case <-time.After(wait):
		t.Fatal("the server's runner never waited")
	}
	sara := w.srv.opts.NewSession(model.Operator{Name: "sara", Fingerprint: gossh.FingerprintSHA256(w.keys["sara"].PublicKey()), Role: model.RoleSender})
	sara.Now = opClock.Now
	ctx := context.Background()
	p, err := sara.PrepareSend(ctx, app.SendRequest{Plan: sara.Plan(sara.Profile.Sender, pairRows(2)), Source: app.FileSource("pairs.csv"),
		At: runClock.Now()})
	if err != nil || p.Refusal != nil {
		t.Fatalf("prepare: %v %v", err, p.Refusal)
	}
	sc, err := p.Schedule(ctx)
	if err != nil {
		t.Fatal(err)
	}
	eventually.True(t, wait, func() bool {
		st, err := config.ReadJournal(t.Context(), w.paths, sc.ID)
		return err == nil && st.Complete()
	}, func() string { return "the server did not hear of send " + sc.ID })
	w.shutdown()()
	if n := len(w.sb.Sent()); n != 2 {
		t.Errorf("the service took %d, want 2 once", n)
	}
}
