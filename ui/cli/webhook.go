package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/ui/app"
	"github.com/smsdesk/smsdesk/ui/webhook"
)

// webhookOptions are what webhook was asked.
type webhookOptions struct {
	f    *Factory
	IO   *IOStreams
	Addr string
}

func newCmdWebhook(f *Factory, runF func(context.Context, *webhookOptions) error) *cobra.Command {
	o := &webhookOptions{f: f, IO: f.IO}
	if runF == nil {
		runF = webhookRun
	}
	cmd := &cobra.Command{
		Use:   "webhook",
		Short: "Receive the service's webhook events (delivery, replies) into the ledger",
		Long: `Receives the events the service posts (sms.sent, sms.delivered, sms.failed,
sms.inbound) for the profile at

  http://ADDR/webhook/PROFILE

Each post's X-Irnoti-Signature is checked against the profile's webhook secret
(smsdesk webhook secret set) and the event is committed to the ledger before it
is answered 200; a repeat is answered 200 and changes nothing; a ledger that
cannot write is answered 503 so that the service tries again. An event for a
message smsdesk has not recorded is kept, unmatched.

Loopback unless --addr names another address: put a TLS reverse proxy (Caddy,
nginx) in front and give the service its https URL (README: "Receiving
webhooks"). smsdesk serve --webhook-addr runs the same receiver beside SSH.
ctrl+c or SIGTERM: the posts in flight are answered, then it exits.`,
		Example: "  printf '%s\\n' \"$SECRET\" | smsdesk webhook secret set\n  smsdesk webhook --addr 127.0.0.1:8787\n" +
			"  SMSDESK_WEBHOOK_SECRET=… smsdesk webhook --profile live",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkReceiverAddr("--addr", o.Addr); err != nil {
				return err
			}
			return runF(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVar(&o.Addr, "addr", webhook.DefaultAddr, "address to listen on (loopback unless you name another)")
	cmd.AddCommand(newCmdWebhookSecret(f))
	return cmd
}

// checkReceiverAddr refuses an address that is not host:port, or whose
// host is empty (":8787" would listen on every interface without saying
// so).
func checkReceiverAddr(flag, addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return usageError("%s %q: want host:port, e.g. %s", flag, addr, webhook.DefaultAddr)
	}
	if host == "" {
		return usageError("%s %q would listen on every interface: give 127.0.0.1%s, or 0.0.0.0%s on purpose", flag, addr, addr, addr)
	}
	return nil
}

// webhookRun receives the profile's events until a signal.
func webhookRun(ctx context.Context, o *webhookOptions) error {
	s, err := o.f.session(ctx)
	if err != nil {
		return err
	}
	defer s.Engine.Close()
	src, err := o.f.receiveWebhooks(ctx, s)
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return listenErrorOf("webhook", o.Addr, err)
	}
	srv := webhook.New(webhook.Options{Receiver: s.Engine, Log: slog.New(slog.NewTextHandler(o.IO.ErrOut, nil))})
	receiverBanner(o.IO.ErrOut, "smsdesk webhook", l.Addr(), s.ProfileName, s.Engine.Webhooks.Secret, src)
	fmt.Fprintln(o.IO.ErrOut, "  Stop with ctrl+c.")
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	stopped := startReceiver(srv, l)
	<-ctx.Done()
	if err := stopped(); err != nil {
		return err
	}
	fmt.Fprintln(o.IO.ErrOut, "Stopped: every event answered 200 is in the ledger.")
	return nil
}

// receiveWebhooks gives the session's engine its profile's webhook secret
// (a receiver without one would answer every post 404) and opens the
// ledger (one that cannot be opened stops the receiver before it listens).
func (f *Factory) receiveWebhooks(ctx context.Context, s *session) (config.Source, error) {
	secret, src, err := f.secrets(s.Paths).GetWebhookSecret(s.ProfileName)
	if errors.Is(err, config.ErrNoWebhookSecret) {
		return "", usageError("%w", err)
	}
	if err != nil {
		return "", err
	}
	if _, err := s.Paths.Ledger(ctx); err != nil {
		return "", err
	}
	s.Engine.Webhooks = &app.Webhooks{Secret: secret}
	return src, nil
}

// startReceiver serves srv on l in the background. The function it
// returns stops it gracefully (the posts in flight are answered, within
// the server's write timeout) and says how serving ended.
func startReceiver(srv *webhook.Server, l net.Listener) func() error {
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	return func() error {
		ctx, cancel := context.WithTimeout(context.Background(), webhook.WriteTimeout+5*time.Second)
		defer cancel()
		err := srv.Shutdown(ctx)
		if serr := <-served; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
			return fmt.Errorf("webhook receiver: %w", serr)
		}
		if err != nil {
			return fmt.Errorf("webhook receiver: stopping: %w", err)
		}
		return nil
	}
}

// receiverBanner says where the receiver listens, for which profile, with
// which secret (its fingerprint only) and what to put in front.
func receiverBanner(w io.Writer, who string, addr net.Addr, profile, secret string, src config.Source) {
	fmt.Fprintf(w, "%s: receiving profile %s's webhook events at http://%s/webhook/%s\n", who, profile, addr, profile)
	fmt.Fprintf(w, "  Webhook secret %s (from %s)\n", config.SecretFingerprint(secret), src)
	if src == config.SourceWebhookEnv {
		fmt.Fprintf(w, "  %s holds for every profile this process receives for.\n", config.EnvWebhookSecret)
	}
	if tcp, _ := addr.(*net.TCPAddr); tcp != nil && !tcp.IP.IsLoopback() {
		fmt.Fprintf(w, "  Not loopback, and plain HTTP: anyone who can reach %s can post to it (signatures are checked); put TLS in front.\n", addr)
	} else {
		fmt.Fprintln(w, "  Loopback only: give the service the https URL of a reverse proxy in front (README: Receiving webhooks).")
	}
}

// webhookSecretOptions are what webhook secret set was asked.
type webhookSecretOptions struct {
	f        *Factory
	IO       *IOStreams
	Insecure bool
}

func newCmdWebhookSecret(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "secret",
		Short: "Manage the profile's webhook secret",
		Args:  cobra.NoArgs,
	}
	o := &webhookSecretOptions{f: f, IO: f.IO}
	set := &cobra.Command{
		Use:   "set",
		Short: "Store the profile's webhook secret (read from a prompt or stdin, never an argument)",
		Long: `Stores the secret the service signs the profile's webhook events with, in the
system keyring beside the API key (or, with --insecure-storage, in the 0600
credentials file). It is read from a masked prompt, or from the first line of
standard input when that is not a terminal; never from an argument (arguments
end up in shell history and in ps). It is never printed: only its fingerprint.

On a headless host SMSDESK_WEBHOOK_SECRET may hold it instead; it then holds for
every profile that process receives for.`,
		Example: "  smsdesk webhook secret set --profile live\n  printf '%s\\n' \"$SECRET\" | smsdesk webhook secret set --insecure-storage",
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, args []string) error { return webhookSecretSet(cmd.Context(), o) },
	}
	set.Flags().BoolVar(&o.Insecure, "insecure-storage", false, "store the secret in a plain-text 0600 file instead of the system keyring")
	cmd.AddCommand(set)
	return cmd
}

// webhookSecretSet reads the secret and stores it for the profile.
func webhookSecretSet(ctx context.Context, o *webhookSecretOptions) error {
	s, err := o.f.local()
	if err != nil {
		return err
	}
	secret, err := o.readSecret(ctx)
	if err != nil {
		return err
	}
	src, err := o.f.secrets(s.Paths).SetWebhookSecret(s.ProfileName, secret, o.Insecure)
	if errors.Is(err, config.ErrKeyringUnavailable) {
		return usageError("the webhook secret was not stored: %w", err)
	}
	if err != nil {
		return fmt.Errorf("the webhook secret was not stored: %w", err)
	}
	printf(o.IO.ErrOut, "✓ Webhook secret %s stored for profile %s in %s\n", config.SecretFingerprint(secret), s.ProfileName, src)
	if w := src.WebhookWarning(); w != "" {
		fmt.Fprintln(o.IO.ErrOut, "! "+w)
	}
	if _, ok := o.f.lookupEnv(config.EnvWebhookSecret); ok {
		fmt.Fprintf(o.IO.ErrOut, "! %s is set in this environment and takes precedence over the stored secret\n", config.EnvWebhookSecret)
	}
	return nil
}

// readSecret reads the secret from a masked prompt, or the first line of
// stdin when it is not a terminal.
func (o *webhookSecretOptions) readSecret(ctx context.Context) (string, error) {
	var secret string
	if o.IO.InIsTerminal {
		var err error
		if secret, err = prompt(ctx, o.IO.In, o.IO.Terminal(), "Webhook secret (input hidden): ", true); err != nil {
			return "", usageError("webhook secret set: %w", err)
		}
	} else {
		line, _ := bufio.NewReader(o.IO.In).ReadString('\n') // what came before an error is the line
		secret = line
	}
	if strings.TrimSpace(secret) == "" {
		return "", usageError("no webhook secret given: type it at the prompt, or pipe it on standard input")
	}
	return secret, nil
}
