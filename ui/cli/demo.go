package cli

import (
	"context"
	"fmt"
	"log/slog"
	"net"

	"github.com/smsdesk/smsdesk/ui/app"
	"github.com/smsdesk/smsdesk/ui/webhook"
)

// startDemo opens the demo engine with the campaign loop wired as it runs
// for real: a webhook receiver on a loopback port of this process (the
// same face smsdesk serve --webhook-addr runs) that the demo's sandbox
// posts its signed events to, and the demo's recipient who writes «لغو ۱۱»
// back after the first send (app.Engine.StartDemoReplies). stop ends them
// in order: the reply, the receiver (its posts in flight answered), then
// the engine (the sandbox and its poster, the ledger, the temporary
// directory).
func startDemo(ctx context.Context, o app.ClientOptions, log *slog.Logger) (eng *app.Engine, stop func(), err error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, fmt.Errorf("demo: a loopback port for its webhook receiver: %w", err)
	}
	eng, err = app.OpenDemo(o, app.DemoOptions{WebhookURL: "http://" + l.Addr().String() + "/webhook/" + app.DemoProfile})
	if err != nil {
		_ = l.Close() // nothing served on it yet
		return nil, nil, err
	}
	stopReceiver := startReceiver(webhook.New(webhook.Options{Receiver: eng, Log: log}), l)
	ctx, cancel := context.WithCancel(ctx)
	waitReplies := eng.StartDemoReplies(ctx)
	return eng, func() {
		cancel()
		waitReplies()
		_ = stopReceiver() // the demo's own receiver: how it stopped is nobody's to act on
		eng.Close()
	}, nil
}
