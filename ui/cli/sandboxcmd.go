package cli

import (
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

func (a *command) sandboxCommand() *cobra.Command {
	var opts sandbox.Options
	var addr string
	var credit int64
	cmd := &cobra.Command{
		Use:   "sandbox",
		Short: "Run a local sandbox of the SMS service (sends nothing real)",
		Long: `Serves the service's API on loopback with seed data: groups of Persian and
English contacts and a few sender lines. Messages are never sent; they move through
pending, sent and delivered (or failed) over a few seconds. Stop it with ctrl+c.`,
		Example: "  smsdesk sandbox\n  smsdesk sandbox --addr 127.0.0.1:9090 --rate 60 --data sandbox.json\n" +
			"  smsdesk sandbox --rate 20 --window 2s --rate-headers laravel\n" +
			"  smsdesk sandbox --rate 10 --window 1s --window-start first   # windows from each one's first request, as most gateways\n" +
			"  smsdesk sandbox --credit 200   # runs out after 200 SMS parts: 402 insufficient_credit\n" +
			"  smsdesk sandbox --big-group 3000 --page-size 15 --links-without-per-page   # Laravel's paging",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Seed = true
			if cmd.Flags().Changed("credit") {
				if credit < 0 {
					return usageError("--credit %d: give the SMS parts the account can send, 0 or more", credit)
				}
				opts.Credit = &credit
			}
			// ctrl+c, kill (SIGTERM) and a closed terminal stop it gracefully and
			// flush --data. Notify also undoes the SIGINT ignore a shell gives a
			// job started with &, so `kill -INT %1` works there too.
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
			defer stop()
			if err := sandbox.Serve(ctx, opts, addr, a.IO.Out); err != nil {
				return usageError("%w", err) // the sandbox's errors say "sandbox: " themselves
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:8080", "address to listen on (loopback unless you name another)")
	f.StringVar(&opts.Key, "key", "", "the API key the sandbox accepts (default sk_test_sandbox)")
	f.IntVar(&opts.RatePerMinute, "rate", 0, "requests per window before answering 429 (0: no limit)")
	f.DurationVar(&opts.RateWindow, "window", time.Minute, "the rate window, in whole seconds")
	f.StringVar(&opts.RateWindowStart, "window-start", sandbox.WindowStartSecond, "how a window is counted: second (fixed, from its first request's whole second, as Laravel), first (fixed, from its first request, as most gateways) or sliding (the last window before each request)")
	f.StringVar(&opts.RateHeaders, "rate-headers", sandbox.RateHeadersLaravel, "rate headers: laravel (Limit and Remaining; Reset and Retry-After on 429), full (Reset always) or none (Retry-After only)")
	f.StringVar(&opts.DataFile, "data", "", "keep the sandbox's data in this JSON file between runs")
	f.Int64Var(&credit, "credit", 0, "SMS parts the account can send before 402 insufficient_credit (default: what --data holds, else 1,000,000); restart with a new --credit to top up")
	f.BoolVar(&opts.NoCreditEndpoint, "no-credit-endpoint", false, "answer GET /account/credit with 404, like deployments without it")
	f.IntVar(&opts.PageSize, "page-size", sandbox.DefaultPageSize, "contacts per page when a list does not ask (Laravel's default is 15)")
	f.BoolVar(&opts.LinksWithoutPerPage, "links-without-per-page", false, "write next-page links with the page number only, as Laravel's paginator does by default")
	f.IntVar(&opts.DropEvery, "drop-every", 0, "lose the answer of every Nth send-pair request after sending its messages (a flaky link: the outcome is unknown to smsdesk)")
	f.BoolVar(&opts.Idempotency, "idempotency", false, "honour Idempotency-Key: a request sent again under the same key gets the first answer, and nothing is sent twice")
	f.IntVar(&opts.BigGroup, "big-group", 0, "add a group of this many generated contacts (\"Paging drill\") to a fresh sandbox")
	return cmd
}
