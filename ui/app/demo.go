package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/smsdesk/smsdesk/config"
)

// The demo shows the campaign loop as it runs for real (issue 42 §8): its
// sandbox posts signed webhook events (sms.sent, then delivered or
// failed) to a receiver in the same process, so that delivery lands in
// the history detail as it happens; and a few seconds after the demo's
// first send has a message accepted, one of its recipients writes «لغو
// ۱۱» back to the line (StartDemoReplies): it lands in the inbox and
// puts that number on the line's opt-out list.

// DemoOptions are the demo engine's options beyond the client's.
type DemoOptions struct {
	// WebhookURL is the in-process receiver's URL for the demo profile
	// (http://ADDR/webhook/demo): the sandbox posts its events there,
	// signed with a secret made for the demo. "": it posts none.
	WebhookURL string
}

// DemoReplyAfter is how long after the demo's first accepted message its
// recipient writes «لغو ۱۱» back.
const DemoReplyAfter = 4 * time.Second

// DemoReplyText is what the demo's recipient writes back.
const DemoReplyText = "لغو ۱۱"

// demoSecret is a new webhook secret for a demo's sandbox and receiver.
func demoSecret() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// StartDemoReplies starts the demo's recipient who writes back: once a
// send of the demo has a message accepted, DemoReplyAfter later that
// message's recipient writes «لغو ۱۱» to the send's line, through the
// sandbox's webhook (once). It ends with ctx (or once it has replied);
// the function it returns waits for it. An engine that is not a demo
// posting webhooks starts nothing.
func (e *Engine) StartDemoReplies(ctx context.Context) (wait func()) {
	if e.demo == nil || e.Webhooks == nil {
		return func() {}
	}
	feed, err := e.Paths.WatchChanges()
	if err != nil {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer feed.Close()
		to, line, ok := e.demoRecipient(ctx)
		for !ok {
			if _, err := feed.Next(ctx); err != nil {
				return // the demo ended
			}
			to, line, ok = e.demoRecipient(ctx)
		}
		t := time.NewTimer(DemoReplyAfter)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		_, _ = e.demo.Reply(ctx, to, line, DemoReplyText) // what the receiver answered is the inbox's to show
	}()
	return func() { <-done }
}

// demoRecipient is the first accepted message of the demo's sends: its
// recipient and line (ok false while none has been accepted).
func (e *Engine) demoRecipient(ctx context.Context) (to, line string, ok bool) {
	list, err := config.ListJournals(ctx, e.Paths)
	if err != nil {
		return "", "", false
	}
	for i := len(list) - 1; i >= 0; i-- { // the oldest first
		rows, err := config.SendDeliveries(ctx, e.Paths, list[i].ID)
		if err == nil && len(rows) > 0 {
			return rows[0].Recipient, rows[0].Sender, true
		}
	}
	return "", "", false
}
