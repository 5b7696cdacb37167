package cli

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// sandboxReplyOptions are what sandbox reply was asked.
type sandboxReplyOptions struct {
	IO               *IOStreams
	From, Line, Text string
	// Sandbox is the running sandbox's API root, Key its key; or Webhook
	// (with its secret) to post to directly.
	Sandbox, Key           string
	Webhook, WebhookSecret string
	getenv                 func(string) string
}

// replyTimeout bounds sandbox reply's one request.
const replyTimeout = 15 * time.Second

func newCmdSandboxReply(f *Factory, runF func(context.Context, *sandboxReplyOptions) error) *cobra.Command {
	o := &sandboxReplyOptions{IO: f.IO, getenv: f.Getenv}
	if runF == nil {
		runF = sandboxReplyRun
	}
	cmd := &cobra.Command{
		Use:   "reply FROM LINE TEXT",
		Short: "Post a recipient's reply (sms.inbound) as the service would",
		Long: `Posts an sms.inbound event: FROM (a mobile) wrote TEXT to LINE. The running
sandbox posts it to its --webhook URL, signed, and this says what the receiver
answered. With --webhook URL it is posted there directly, signed with
--webhook-secret (default $SMSDESK_WEBHOOK_SECRET), without a sandbox.`,
		Example: "  smsdesk sandbox reply 09121234567 3000505 '۱۱'\n" +
			"  smsdesk sandbox reply 09121234567 3000505 'لغو' --sandbox http://127.0.0.1:9090/api/v1\n" +
			"  smsdesk sandbox reply 09121234567 3000505 hello --webhook http://127.0.0.1:8787/webhook/default --webhook-secret whsec_try",
		Args: cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.From, o.Line, o.Text = args[0], args[1], args[2]
			return runF(cmd.Context(), o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Sandbox, "sandbox", "http://"+sandbox.DefaultServeAddr+"/api/v1", "the running sandbox's base URL")
	fl.StringVar(&o.Key, "key", sandbox.DefaultKey, "the running sandbox's API key")
	fl.StringVar(&o.Webhook, "webhook", "", "post straight to this webhook URL instead of through a sandbox")
	fl.StringVar(&o.WebhookSecret, "webhook-secret", "", "with --webhook: the secret to sign with (default $SMSDESK_WEBHOOK_SECRET)")
	return cmd
}

// sandboxReplyRun posts the reply and says what the receiver answered.
func sandboxReplyRun(parent context.Context, o *sandboxReplyOptions) error {
	ctx, cancel := context.WithTimeout(parent, replyTimeout)
	defer cancel()
	c := &http.Client{Timeout: replyTimeout}
	var res sandbox.ReplyResult
	var where string
	if o.Webhook != "" {
		secret := o.WebhookSecret
		if secret == "" && o.getenv != nil {
			secret = strings.TrimSpace(o.getenv(config.EnvWebhookSecret))
		}
		if secret == "" {
			return usageError("--webhook needs the secret to sign with: --webhook-secret S, or export %s", config.EnvWebhookSecret)
		}
		from, err := model.OptOutKey(o.From)
		if err != nil {
			return usageError("FROM %q: %w", model.SanitizeLine(o.From), err)
		}
		res.MessageID = sandbox.NewInboundID()
		body := sandbox.InboundEvent(res.MessageID, from, strings.TrimSpace(o.Line), o.Text, time.Now())
		if res.WebhookStatus, err = sandbox.PostEvent(ctx, c, o.Webhook, secret, body); err != nil {
			return fmt.Errorf("sandbox reply: the receiver at %s did not answer: %w", model.SanitizeLine(o.Webhook), err)
		}
		where = model.SanitizeLine(o.Webhook)
	} else {
		var err error
		res, err = sandbox.RequestReply(ctx, c, apiRoot(o.Sandbox), o.Key, o.From, o.Line, o.Text)
		var refused *sandbox.ReplyError
		if errors.As(err, &refused) {
			return fmt.Errorf("sandbox reply: %s", model.SanitizeLine(err.Error()))
		}
		if err != nil {
			return fmt.Errorf("sandbox reply: %w (is `smsdesk sandbox --webhook URL` running at %s? --sandbox names another)", err, model.SanitizeLine(o.Sandbox))
		}
		where = "the sandbox's webhook"
	}
	if res.WebhookStatus < 200 || res.WebhookStatus > 299 {
		return fmt.Errorf("sandbox reply: posted sms.inbound %s to %s: the receiver answered %d", res.MessageID, where, res.WebhookStatus)
	}
	printf(o.IO.ErrOut, "✓ Posted sms.inbound %s (%s to line %s) to %s: the receiver answered %d\n", res.MessageID,
		model.SanitizeLine(o.From), model.SanitizeLine(o.Line), where, res.WebhookStatus)
	return nil
}

// apiRoot is a sandbox's base URL with the API's path: one given as the
// address alone (http://127.0.0.1:18500, as an operator copies it from the
// address it listens on) is taken as its /api/v1.
func apiRoot(base string) string {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil || strings.Trim(u.Path, "/") != "" {
		return base
	}
	u.Path = "/api/v1"
	return u.String()
}
