package app

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
)

// TestResumeLooksAgainForSendsBegunMeanwhile: a resume checked for repeats
// when it was prepared looks again when it starts, as a new send does: a send
// of the same pairs begun while its question was on screen (another
// smsdesk, --allow-repeat) makes the start a repeat refusal naming it,
// before any request and with the resumed send's journal as it was. A
// resume prepared with AllowRepeat goes.
func TestResumeLooksAgainForSendsBegunMeanwhile(t *testing.T) {
	credit := int64(1)
	v := newService(t, sandbox.Options{Credit: &credit, NoCreditEndpoint: true})
	paths := tempPaths(t)
	prof := &config.Profile{Name: "live", Sender: sandbox.DefaultSender, ChunkSize: 1}
	here := v.session(t, paths, prof)
	ctx := context.Background()

	stopped := send(t, here, pairs(3)) // the credit stops it after the first pair
	id := stopped.Summary.JobID
	v.sb.SetCredit(100)
	r, err := here.PrepareResume(t.Context(), id, ResumeOptions{})
	if err != nil || len(r.Todo) != 2 {
		t.Fatalf("prepare: %v, todo %v; want the 2 pairs the credit stopped (%+v)", err, r, stopped.Summary.Counts)
	}
	onPurpose, err := here.PrepareResume(t.Context(), id, ResumeOptions{AllowRepeat: true})
	if err != nil {
		t.Fatal(err)
	}

	// While the question is on screen, another smsdesk sends the same file
	// again on purpose (--allow-repeat).
	there := v.session(t, paths, prof)
	x, err := prepare(t, there, pairs(3), true).Start(ctx, SendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	again := finish(t, x)
	if again.Summary.Counts.Accepted != 3 {
		t.Fatalf("the other send: %+v", again.Summary.Counts)
	}

	posts := v.sb.RequestsTo("POST", "/sms/send-pair")
	_, _, err = r.Start(ctx, SendOptions{})
	var ref *Refusal
	if !errors.As(err, &ref) || ref.Rule != RuleRepeat ||
		!strings.HasPrefix(ref.Reason, "2 of the 2 messages resuming send "+id+" would send are pairs other sends accepted, or may have sent") ||
		ref.SendID != id || ref.Repeat == nil || ref.Repeat.SendID != again.Summary.JobID || len(ref.Details) != 1 {
		t.Fatalf("start: %#v, want a repeat refusal naming send %s", err, again.Summary.JobID)
	}
	if n := v.sb.RequestsTo("POST", "/sms/send-pair") - posts; n != 0 {
		t.Errorf("the refused start made %d send requests", n)
	}
	st, err := config.ReadJournal(t.Context(), paths, id)
	if err != nil || st.Counts().Accepted != 1 || len(st.ResumeIndexes(false)) != 2 {
		t.Errorf("send %s after the refused start: %v %+v; want it as it was", id, err, st.Counts())
	}
	if config.JournalInUse(t.Context(), paths, id) {
		t.Errorf("the refused start left send %s's journal held", id)
	}

	x, _, err = onPurpose.Start(ctx, SendOptions{})
	if err != nil {
		t.Fatalf("a resume with AllowRepeat: %v", err)
	}
	for range x.Events() {
	}
	if out, err := x.Finish(); err != nil || out.Summary.Counts.Accepted != 3 {
		t.Errorf("a resume with AllowRepeat: %v %+v; want every pair accepted", err, out.Summary.Counts)
	}
}
