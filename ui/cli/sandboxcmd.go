package cli

import (
	"context"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
)

// sandboxOptions are what sandbox was asked: the sandbox's own options,
// the address it listens on, and --credit (CreditGiven: it was given).
type sandboxOptions struct {
	IO          *IOStreams
	Sandbox     sandbox.Options
	Addr        string
	Credit      int64
	CreditGiven bool
	// Delivered is --delivered-share.
	Delivered float64
	// getenv reads SMSDESK_WEBHOOK_SECRET when --webhook-secret is not given.
	getenv func(string) string
}

func newCmdSandbox(f *Factory, runF func(context.Context, *sandboxOptions) error) *cobra.Command {
	o := &sandboxOptions{IO: f.IO, getenv: f.Getenv}
	if runF == nil {
		runF = sandboxRun
	}
	opts := &o.Sandbox
	cmd := &cobra.Command{
		Use:   "sandbox",
		Short: "Run a local sandbox of the SMS service (sends nothing real)",
		Long: `Serves the service's API on loopback with seed data: groups of Persian and
English contacts and a few sender lines. Messages are never sent; they move through
pending, sent and delivered (or failed) over a few seconds. Stop it with ctrl+c.

With --webhook URL it posts each message's sms.sent, then sms.delivered or
sms.failed, to URL as the service does, signed with --webhook-secret (default
$SMSDESK_WEBHOOK_SECRET): some twice, some out of order (--duplicate-share,
--reorder-share). smsdesk sandbox reply posts a recipient's reply (sms.inbound).`,
		Example: "  smsdesk sandbox\n  smsdesk sandbox --addr 127.0.0.1:9090 --rate 60 --data sandbox.json\n" +
			"  smsdesk sandbox --rate 20 --window 2s --rate-headers laravel\n" +
			"  smsdesk sandbox --rate 10 --window 1s --window-start first   # windows from each one's first request, as most gateways\n" +
			"  smsdesk sandbox --credit 200   # runs out after 200 SMS parts: 402 insufficient_credit\n" +
			"  smsdesk sandbox --big-group 3000 --page-size 15 --links-without-per-page   # Laravel's paging\n" +
			"  smsdesk sandbox --webhook http://127.0.0.1:8787/webhook/default --webhook-secret whsec_try   # with smsdesk webhook",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.CreditGiven = cmd.Flags().Changed("credit")
			if cmd.Flags().Changed("delivered-share") {
				o.Sandbox.DeliveredShare = &o.Delivered
			}
			return runF(cmd.Context(), o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Addr, "addr", "127.0.0.1:8080", "address to listen on (loopback unless you name another)")
	fl.StringVar(&opts.Key, "key", "", "the API key the sandbox accepts (default sk_test_sandbox)")
	fl.IntVar(&opts.RatePerMinute, "rate", 0, "requests per window before answering 429 (0: no limit)")
	fl.DurationVar(&opts.RateWindow, "window", time.Minute, "the rate window, in whole seconds")
	fl.StringVar(&opts.RateWindowStart, "window-start", sandbox.WindowStartSecond, "how a window is counted: second (fixed, from its first request's whole second, as Laravel), first (fixed, from its first request, as most gateways) or sliding (the last window before each request)")
	fl.StringVar(&opts.RateHeaders, "rate-headers", sandbox.RateHeadersLaravel, "rate headers: laravel (Limit and Remaining; Reset and Retry-After on 429), full (Reset always) or none (Retry-After only)")
	fl.StringVar(&opts.DataFile, "data", "", "keep the sandbox's data in this JSON file between runs")
	fl.Int64Var(&o.Credit, "credit", 0, "SMS parts the account can send before 402 insufficient_credit (default: what --data holds, else 1,000,000); restart with a new --credit to top up")
	fl.BoolVar(&opts.NoCreditEndpoint, "no-credit-endpoint", false, "answer GET /account/credit with 404, like deployments without it")
	fl.IntVar(&opts.PageSize, "page-size", sandbox.DefaultPageSize, "contacts per page when a list does not ask (Laravel's default is 15)")
	fl.BoolVar(&opts.LinksWithoutPerPage, "links-without-per-page", false, "write next-page links with the page number only, as Laravel's paginator does by default")
	fl.IntVar(&opts.DropEvery, "drop-every", 0, "lose the answer of every Nth send-pair request after sending its messages (a flaky link: the outcome is unknown to smsdesk)")
	fl.BoolVar(&opts.Idempotency, "idempotency", false, "honour Idempotency-Key: a request sent again under the same key gets the first answer, and nothing is sent twice")
	fl.IntVar(&opts.BigGroup, "big-group", 0, "add a group of this many generated contacts (\"Paging drill\") to a fresh sandbox")
	fl.StringVar(&opts.WebhookURL, "webhook", "", "post signed webhook events to this URL, as the service does (e.g. http://127.0.0.1:8787/webhook/default)")
	fl.StringVar(&opts.WebhookSecret, "webhook-secret", "", "the secret the events are signed with: the receiver's (default $SMSDESK_WEBHOOK_SECRET)")
	fl.Float64Var(&o.Delivered, "delivered-share", sandbox.DefaultDeliveredShare, "share of messages delivered; the rest fail (status and events alike)")
	fl.Float64Var(&opts.DuplicateShare, "duplicate-share", sandbox.DefaultDuplicateShare, "share of webhook events posted twice")
	fl.Float64Var(&opts.ReorderShare, "reorder-share", sandbox.DefaultReorderShare, "share of messages whose final event is posted before sms.sent")
	cmd.AddCommand(newCmdSandboxReply(f, nil))
	return cmd
}

// sandboxRun serves the sandbox until a signal: ctrl+c, kill (SIGTERM) and
// a closed terminal stop it gracefully and flush --data. Notify also
// undoes the SIGINT ignore a shell gives a job started with &, so
// `kill -INT %1` works there too.
func sandboxRun(parent context.Context, o *sandboxOptions) error {
	opts := o.Sandbox
	opts.Seed = true
	if o.CreditGiven {
		if o.Credit < 0 {
			return usageError("--credit %d: give the SMS parts the account can send, 0 or more", o.Credit)
		}
		opts.Credit = &o.Credit
	}
	if opts.WebhookURL != "" && opts.WebhookSecret == "" && o.getenv != nil {
		opts.WebhookSecret = strings.TrimSpace(o.getenv(config.EnvWebhookSecret))
	}
	ctx, stop := signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if err := sandbox.Serve(ctx, opts, o.Addr, o.IO.Out); err != nil {
		return usageError("%w", err) // the sandbox's errors say "sandbox: " themselves
	}
	return nil
}
