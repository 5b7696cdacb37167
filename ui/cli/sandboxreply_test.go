package cli

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/config/ledger"
)

// forwarder is a URL to give the sandbox before its receiver listens: it
// passes each post on to the receiver's URL once that is set (503 until).
func forwarder(t *testing.T) (url string, target *atomic.Pointer[string]) {
	target = &atomic.Pointer[string]{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		to := target.Load()
		if to == nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, *to, r.Body)
		req.Header = r.Header.Clone()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/webhook/default", target
}

// TestSandboxWebhooksLand is the loop by the commands: a sandbox posting
// its webhooks (some twice, some out of order) to smsdesk webhook; a
// send's messages all reach their final state in the ledger, with its
// time; smsdesk sandbox reply files a reply in the inbox, linked to
// the send, through the sandbox and straight to the receiver.
func TestSandboxWebhooksLand(t *testing.T) {
	t.Parallel()
	url, target := forwarder(t)
	e := newSendEnvOpts(t, sandbox.Options{WebhookURL: url, WebhookSecret: cliWebhookSecret, DeliveryDelay: 20 * time.Millisecond,
		DuplicateShare: 0.5, ReorderShare: 0.5}, nil)
	e.env[config.EnvWebhookSecret] = cliWebhookSecret
	hook, stderr, cancel, code := e.startReceiver(t, "webhook", "--addr", "127.0.0.1:0")
	defer cancel()
	target.Store(&hook)
	pairs := e.pairsFile(t, "p.csv", 6, nil)
	e.mustRun(t, 0, "send-pair", "--sender", sandbox.DefaultSender, "--file", pairs, "--yes")
	id := e.sendIDs(t)[0]

	l, err := ledger.Open(context.Background(), filepath.Join(e.env["SMSDESK_STATE_DIR"], ledger.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var rows []ledger.Delivery
	deadline := time.Now().Add(waitLimit)
	for final := 0; final < 6; {
		if time.Now().After(deadline) {
			t.Fatalf("deliveries %+v; stats %+v\n%s", rows, e.sb.WebhookStats(), stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
		if rows, err = l.SendDeliveries(context.Background(), id); err != nil {
			t.Fatal(err)
		}
		final = 0
		for _, r := range rows {
			if r.State.Final() {
				final++
			}
		}
	}
	for _, r := range rows {
		// A message whose sms.sent came after its final state has no sent
		// time: the late event changed nothing.
		if r.At(r.State).IsZero() || !r.SentAt.IsZero() && r.At(r.State).Before(r.SentAt) {
			t.Errorf("%s: %s at %v, sent at %v: want the final time, after the sent time if any", r.MessageID, r.State, r.At(r.State), r.SentAt)
		}
	}
	// A reply through the sandbox, and one straight to the receiver.
	to := rows[0].Recipient
	_, errOut := e.mustRun(t, 0, "sandbox", "reply", to, sandbox.DefaultSender, "۱۱", "--sandbox", e.base, "--key", e.sb.Key()) // its address alone: the API's path is added
	if !strings.Contains(errOut, "the receiver answered 200") {
		t.Errorf("reply: %s", errOut)
	}
	e.mustRun(t, 0, "sandbox", "reply", "09351112233", sandbox.DefaultSender, "hello", "--webhook", hook)
	_, errOut = e.mustRun(t, 1, "sandbox", "reply", to, sandbox.DefaultSender, "x", "--webhook", hook, "--webhook-secret", "wrong")
	if !strings.Contains(errOut, "the receiver answered 401") {
		t.Errorf("a wrong secret: %s", errOut)
	}
	box, err := l.InboxMessages(context.Background(), rows[0].Account, 0)
	if err != nil || len(box) != 2 {
		t.Fatalf("inbox: %+v %v", box, err)
	}
	if box[1].Sender != to || box[1].Message != "۱۱" || box[1].SendID != id || box[0].SendID != "" {
		t.Errorf("inbox: %+v", box)
	}
	cancel()
	if c := <-code; c != 0 {
		t.Fatalf("exit %d", c)
	}
}
