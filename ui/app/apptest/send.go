package apptest

import (
	"context"
	"testing"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// Start prepares and starts a send of plan through s, as an operator who
// allowed repeats would (an earlier send, another terminal's, another
// operator's), through the layer's one entry point for a new send. It
// fails the test when the send is refused or does not start.
func Start(t testing.TB, ctx context.Context, s *app.Session, plan *model.SendPlan, src app.Source, o app.SendOptions) *app.Send {
	t.Helper()
	p, err := s.PrepareSend(ctx, app.SendRequest{Plan: plan, Source: src, AllowRepeat: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.Refusal != nil {
		t.Fatal(p.Refusal.Text())
	}
	x, err := p.Start(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	return x
}
