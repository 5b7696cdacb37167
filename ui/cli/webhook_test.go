package cli

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/model/syncbuf"
	"github.com/smsdesk/smsdesk/ui/app"
	"github.com/smsdesk/smsdesk/ui/webhook"
)

const cliWebhookSecret = "whsec_cli_5d2e9a"

// runIn is run with stdin (not a terminal).
func (e *sendEnv) runIn(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(context.Background(), args, Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, Getenv: e.getenv})
	return code, out.String(), errb.String()
}

// TestWebhookSecretSet: the secret is read from stdin, stored (here in
// the 0600 file: no keyring in tests) and never printed, only its
// fingerprint; none given is refused; an argument is no way to give it.
func TestWebhookSecretSet(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	code, out, errOut := e.runIn(t, cliWebhookSecret+"\n", "webhook", "secret", "set", "--insecure-storage")
	if code != 0 || !strings.Contains(errOut, "✓ Webhook secret "+config.SecretFingerprint(cliWebhookSecret)+" stored for profile default") ||
		!strings.Contains(errOut, "plain text") {
		t.Fatalf("set: exit %d\n%s", code, errOut)
	}
	if strings.Contains(out+errOut, cliWebhookSecret) {
		t.Fatalf("the secret was printed:\n%s%s", out, errOut)
	}
	// Its fingerprint is a hash, never its last characters ("…2e9a" before).
	if fp := regexp.MustCompile(`Webhook secret (\S+) stored`).FindStringSubmatch(errOut); fp == nil || !regexp.MustCompile(`^sha256:[0-9a-f]{8}$`).MatchString(fp[1]) {
		t.Errorf("the secret's fingerprint is not a short hash: %q", errOut)
	}
	data, err := os.ReadFile(config.PathsIn(e.env["SMSDESK_CONFIG_DIR"], e.env["SMSDESK_STATE_DIR"]).CredentialsFile)
	if err != nil || !strings.Contains(string(data), `webhook_secret = "`+cliWebhookSecret+`"`) {
		t.Fatalf("not stored in the credentials file: %v", err)
	}
	if code, _, errOut := e.runIn(t, "\n", "webhook", "secret", "set", "--insecure-storage"); code != ExitUsage || !strings.Contains(errOut, "no webhook secret given") {
		t.Errorf("nothing on stdin: exit %d %s", code, errOut)
	}
	if code, _, _ := e.runIn(t, "", "webhook", "secret", "set", cliWebhookSecret); code != ExitUsage {
		t.Errorf("the secret as an argument: exit %d, want %d", code, ExitUsage)
	}
}

// TestWebhookReceives: smsdesk webhook --addr receives the profile's
// events signed with its secret, commits them (a send's message moves to
// delivered), refuses a wrong signature, and stops with exit 0 on the
// first signal (the context here); it refuses to start without a secret,
// and on ":port" (every interface, unsaid).
func TestWebhookReceives(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	if _, errOut := e.mustRun(t, ExitUsage, "webhook", "--addr", "127.0.0.1:0"); !strings.Contains(errOut, "smsdesk webhook secret set --profile default --insecure-storage") || !strings.Contains(errOut, "export SMSDESK_WEBHOOK_SECRET") {
		t.Errorf("no secret: %s", errOut)
	}
	if _, errOut := e.mustRun(t, ExitUsage, "webhook", "--addr", ":41799"); !strings.Contains(errOut, "every interface") {
		t.Errorf(":port: %s", errOut)
	}
	pairs := e.pairsFile(t, "p.csv", 2, nil)
	e.mustRun(t, 0, "send-pair", "--sender", sandbox.DefaultSender, "--file", pairs, "--yes")
	sent := e.sb.Sent()
	if len(sent) != 2 {
		t.Fatalf("%d sent", len(sent))
	}
	e.env[config.EnvWebhookSecret] = cliWebhookSecret
	url, stderr, cancel, code := e.startReceiver(t, "webhook", "--addr", "127.0.0.1:0")
	defer cancel()
	post := func(raw []byte, sig string) int {
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(raw))
		req.Header.Set(webhook.SignatureHeader, sig)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, s := range sent {
		raw := fmt.Appendf(nil, `{"event":"sms.delivered","message_id":%q,"recipient":%q}`, s.MessageID, s.Recipient)
		if c := post(raw, app.Sign(cliWebhookSecret, raw)); c != http.StatusOK {
			t.Errorf("%s: %d", s.MessageID, c)
		}
		if c := post(raw, app.Sign("wrong", raw)); c != http.StatusUnauthorized {
			t.Errorf("%s wrongly signed: %d", s.MessageID, c)
		}
	}
	cancel()
	if c := <-code; c != 0 {
		t.Fatalf("exit %d: %s", c, stderr.String())
	}
	out := stderr.String()
	if !strings.Contains(out, "Stopped: every event answered 200 is in the ledger.") || strings.Contains(out, cliWebhookSecret) ||
		!strings.Contains(out, config.SecretFingerprint(cliWebhookSecret)) || !strings.Contains(out, "bad_signature") {
		t.Errorf("stderr:\n%s", out)
	}
	l, err := ledger.Open(context.Background(), filepath.Join(e.env["SMSDESK_STATE_DIR"], ledger.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ids := e.sendIDs(t)
	if len(ids) != 1 {
		t.Fatalf("sends: %v", ids)
	}
	rows, err := l.SendDeliveries(context.Background(), ids[0])
	if err != nil || len(rows) != 2 || rows[0].State != model.DeliveryDelivered || rows[1].State != model.DeliveryDelivered {
		t.Errorf("deliveries: %+v %v, want both delivered", rows, err)
	}
}

// startReceiver runs smsdesk with args until the cancel it returns is
// called, and waits for its banner's webhook URL; code gets the exit code.
func (e *sendEnv) startReceiver(t *testing.T, args ...string) (url string, stderr *syncbuf.Buffer, cancel func(), code chan int) {
	t.Helper()
	stderr = &syncbuf.Buffer{}
	ctx, cancel := context.WithCancel(context.Background())
	code = make(chan int, 1)
	go func() {
		code <- Main(ctx, args, Env{Stdin: strings.NewReader(""), Stdout: stderr, Stderr: stderr, Getenv: e.getenv})
	}()
	banner := regexp.MustCompile(`webhook events at (http://127\.0\.0\.1:\d+/webhook/default)\n`)
	var m []string
	deadline := time.Now().Add(waitLimit)
	for m = banner.FindStringSubmatch(stderr.String()); m == nil; m = banner.FindStringSubmatch(stderr.String()) {
		select {
		case c := <-code:
			cancel()
			t.Fatalf("exit %d before the banner: %s", c, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("no banner: %s", stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	return m[1], stderr, cancel, code
}

// TestServeReceivesWebhooks: serve --webhook-addr receives beside SSH,
// on the sessions' engine, and stops with it; --webhook-addr is refused
// with --demo, and on ":port".
func TestServeReceivesWebhooks(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	e.mustRun(t, 0, "operators", "add", "sara", "--key", testOperatorKey)
	if _, errOut := e.mustRun(t, ExitUsage, "serve", "--demo", "--webhook-addr", "127.0.0.1:0"); !strings.Contains(errOut, "not with --demo") {
		t.Errorf("--demo: %s", errOut)
	}
	if _, errOut := e.mustRun(t, ExitUsage, "serve", "--webhook-addr", ":41798"); !strings.Contains(errOut, "every interface") {
		t.Errorf(":port: %s", errOut)
	}
	e.env[config.EnvWebhookSecret] = cliWebhookSecret
	url, stderr, cancel, code := e.startReceiver(t, "serve", "--addr", "127.0.0.1:0", "--webhook-addr", "127.0.0.1:0")
	defer cancel()
	raw := []byte(`{"event":"sms.sent","message_id":"not-ours"}`)
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(raw))
	req.Header.Set(webhook.SignatureHeader, app.Sign(cliWebhookSecret, raw))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("post: %d", resp.StatusCode)
	}
	cancel()
	if c := <-code; c != 0 {
		t.Fatalf("exit %d: %s", c, stderr.String())
	}
	if out := stderr.String(); !strings.Contains(out, "kept, unmatched") || strings.Contains(out, cliWebhookSecret) {
		t.Errorf("stderr:\n%s", out)
	}
}
