package app

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/model/fakeclock"
	"github.com/smsdesk/smsdesk/model/syncbuf"
)

// TestStartLogSaysHowASendBegan: the server's log says how each send
// began. A runner's start of a scheduled send replays its journal as a
// resume does, and was logged resume=true; it is start=scheduled with the
// runner, a new send start=new.
func TestStartLogSaysHowASendBegan(t *testing.T) {
	v := newService(t, sandbox.Options{})
	g := newScheduling(t, v, nil, fakeclock.New(tehran(t, 10, 0)))
	var buf syncbuf.Buffer
	tracker := &SendTracker{Log: slog.New(slog.NewTextHandler(&buf, nil))}
	s := g.operator(t, &sara)
	s.Tracker = tracker
	id := schedule(t, s, pairs(2), g.clock.Now().Add(time.Minute))
	r, _ := g.runner(t, model.RunnerServe)
	r.Session.Tracker = tracker
	g.clock.Advance(time.Minute)
	if n := pass(t, r); n != 1 {
		t.Fatalf("started %d, want the scheduled send", n)
	}
	now := send(t, s, []model.PairRow{{Line: 2, Recipient: "09350000000", Message: "now"}}).Summary.JobID
	if err := tracker.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	log := buf.String()
	for _, want := range []string{
		"msg=\"send started\" send=" + id + " items=2 start=scheduled runner=serve",
		"msg=\"send ended\" send=" + id + " items=2 start=scheduled runner=serve accepted=2",
		"msg=\"send started\" send=" + now + " items=1 start=new operator=sara",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
	if strings.Contains(log, "resume=true") {
		t.Errorf("the log calls a start a resume:\n%s", log)
	}
}
