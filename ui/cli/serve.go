package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
	"github.com/smsdesk/smsdesk/ui/serve"
	"github.com/smsdesk/smsdesk/ui/webhook"
)

// serveOptions are what serve was asked.
type serveOptions struct {
	f             *Factory
	IO            *IOStreams
	Addr, HostKey string
	Idle          time.Duration
	LoginGrace    time.Duration
	MaxStartups   string
	MaxSessions   int
	Demo          bool
	// WebhookAddr: receive the profile's webhook events there too
	// ("": not).
	WebhookAddr string
}

// stopGrace is how long a stopping server gives its sessions beyond the
// request timeout: the chunk in flight may take all of it, then its
// journal line and the console's quitting.
const stopGrace = 10 * time.Second

func newCmdServe(f *Factory, runF func(context.Context, *serveOptions) error) *cobra.Command {
	o := &serveOptions{f: f, IO: f.IO}
	if runF == nil {
		runF = serveRun
	}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the console over SSH to the operators (one key and one history for a team)",
		Long: `Serves the console over SSH: this host keeps the profile's API key and the
state (journals, history, the repeat guard, the rate budget); operators connect
with their own SSH keys (smsdesk operators add) and each gets the console in
their own terminal:

  ssh -p 2222 NAME@HOST

Public-key auth only; no shell, commands, port or agent forwarding. The host
key is made once (ed25519) in the state directory; its fingerprint is printed
at start so operators can check it. Loopback unless --addr names another
address. ctrl+c or SIGTERM: every session is told, sends stop after their
chunk in flight, and the server exits; a second one quits at once.
While it runs it starts the profile's scheduled sends (send-pair --at) at
their time, and continues sends held at quiet hours when they end, as
smsdesk scheduler does.
--webhook-addr ADDR also receives the service's webhook events at
http://ADDR/webhook/PROFILE, as smsdesk webhook does (same ledger).
--demo serves the console on a built-in sandbox (nothing real is sent, no
keyring, no state written; the operators are this machine's).`,
		Example: "  smsdesk serve\n  smsdesk serve --addr 0.0.0.0:2222 --idle 1h\n  smsdesk serve --demo\n  ssh -p 2222 sara@127.0.0.1",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return runF(cmd.Context(), o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Addr, "addr", serve.DefaultAddr, "address to listen on (loopback unless you name another, e.g. 0.0.0.0:2222)")
	fl.StringVar(&o.HostKey, "host-key", "", "the server's host key (default: "+serve.HostKeyFileName+" in the state directory, made on first use)")
	fl.DurationVar(&o.Idle, "idle", serve.DefaultIdle, "end a session after this long without a keystroke while none of its sends runs (0: never)")
	fl.DurationVar(&o.LoginGrace, "login-grace", serve.DefaultLoginGrace, "close a connection that has not signed in within this long (OpenSSH's LoginGraceTime)")
	fl.StringVar(&o.MaxStartups, "max-startups", serve.DefaultMaxStartups.String(), "start:rate:full over connections not yet signed in: from start, a new one sheds a stalled one with rate% chance, rising to 100% at full (OpenSSH's MaxStartups)")
	fl.IntVar(&o.MaxSessions, "max-sessions", serve.DefaultMaxSessions, "refuse sessions past this many at once")
	fl.BoolVar(&o.Demo, "demo", false, "serve the console on a built-in sandbox (nothing real is sent; no keyring, no state written)")
	fl.StringVar(&o.WebhookAddr, "webhook-addr", "", "receive the service's webhook events at http://ADDR/webhook/PROFILE too (as smsdesk webhook; e.g. 127.0.0.1:8787)")
	return cmd
}

// served is what a server runs on: the engine every session shares.
type served struct {
	paths   config.Paths // state and journals (a temporary directory for --demo)
	opPaths config.Paths // where the operators file is
	files   string       // the one directory served consoles read and write files in
	app     func(op model.Operator) *app.Session
	runner  *app.Runner // starts the profile's due sends while serving
	sess    *session    // the profile's session (nil for --demo): its engine receives webhooks
	demo    bool
	close   func()
}

// validate refuses limits that cannot be, before anything is read.
func (o *serveOptions) validate() error {
	if o.MaxSessions < 1 {
		return usageError("--max-sessions %d: give 1 or more", o.MaxSessions)
	}
	if o.Idle < 0 {
		return usageError("--idle %v: give a duration, or 0 for never", o.Idle)
	}
	if o.LoginGrace <= 0 {
		return usageError("--login-grace %v: give a duration, e.g. 30s", o.LoginGrace)
	}
	if _, err := serve.ParseStartups(o.MaxStartups); err != nil {
		return usageError("--%v", err)
	}
	if o.WebhookAddr != "" && o.Demo {
		return usageError("--webhook-addr receives a real profile's events: not with --demo")
	}
	if o.WebhookAddr != "" {
		return checkReceiverAddr("--webhook-addr", o.WebhookAddr)
	}
	return nil
}

// serveRun serves the console over SSH until a signal.
func serveRun(ctx context.Context, o *serveOptions) error {
	startups, err := serve.ParseStartups(o.MaxStartups)
	if err != nil {
		return usageError("--%v", err)
	}
	if err := o.f.strictModes(o.Demo); err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(o.IO.ErrOut, nil))
	sends := &app.SendTracker{Log: log}
	eng, err := o.f.serveEngine(ctx, o.Demo, sends)
	if err != nil {
		return err
	}
	defer eng.close()
	operators := serve.TrustedOperators(eng.opPaths)
	ops, err := operators()
	if err != nil {
		return untrusted(err)
	}
	if len(ops) == 0 {
		return usageError("nobody could sign in: no operators yet (%s); add one first: smsdesk operators add NAME --key-file ~/.ssh/id_ed25519.pub", eng.opPaths.OperatorsFile())
	}
	eng.files = filepath.Join(eng.paths.StateDir, "files")
	if err := os.MkdirAll(eng.files, 0o700); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	factory, stop := o.f.serveConsole(eng)
	hostKey := o.HostKey
	if hostKey == "" {
		hostKey = filepath.Join(eng.paths.StateDir, serve.HostKeyFileName)
	}
	signer, created, err := serve.LoadHostKey(hostKey)
	if err != nil {
		return untrusted(err)
	}
	srv, err := serve.New(serve.Options{
		Addr: o.Addr, HostKey: signer, Operators: operators,
		NewSession: eng.app, Console: factory, Stop: stop, Idle: o.Idle, MaxSessions: o.MaxSessions, Log: log, Runner: eng.runner,
		LoginGrace: o.LoginGrace, MaxStartups: startups,
	})
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return listenError(o.Addr, err)
	}
	serveBanner(o.IO.ErrOut, l.Addr(), srv.Fingerprint(), hostKey, created, len(ops), eng.demo)
	stopHooks, err := o.serveWebhooks(ctx, eng, log)
	if err != nil {
		_ = l.Close() // the error above is the one to report
		return err
	}
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	err = serveUntilStopped(ctx, srv, l, sends, sigs, o.IO.ErrOut)
	// The receiver stops after the sessions (their sends' outcomes are
	// written), before the ledger closes.
	if herr := stopHooks(); herr != nil && err == nil {
		err = herr
	}
	return err
}

// serveWebhooks starts the receiver of --webhook-addr beside SSH, on the
// engine every session shares. The function it returns stops it (nothing
// to stop when it was not asked).
func (o *serveOptions) serveWebhooks(ctx context.Context, eng *served, log *slog.Logger) (func() error, error) {
	if o.WebhookAddr == "" || eng.sess == nil {
		return func() error { return nil }, nil
	}
	src, err := o.f.receiveWebhooks(ctx, eng.sess)
	if err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", o.WebhookAddr)
	if err != nil {
		return nil, listenErrorOf("serve --webhook-addr", o.WebhookAddr, err)
	}
	receiverBanner(o.IO.ErrOut, "smsdesk serve", l.Addr(), eng.sess.ProfileName, eng.sess.Engine.Webhooks.Secret, src)
	return startReceiver(webhook.New(webhook.Options{Receiver: eng.sess.Engine, Log: log}), l), nil
}

// strictModes refuses to serve from a config file or a state directory
// (or anything in it) that another user may change (serve.CheckStrictModes),
// before anything is read from them; --demo keeps no state.
func (f *Factory) strictModes(demo bool) error {
	p, err := f.paths()
	if err != nil {
		return err
	}
	if demo {
		p.StateDir = ""
	}
	return untrusted(serve.CheckStrictModes(p))
}

// untrusted words a file serve does not trust (serve.CheckTrusted) as a
// config error (exit 2) whose hint is the fix; other errors pass.
func untrusted(err error) error {
	var u *serve.UntrustedFileError
	if errors.As(err, &u) {
		return &ExitError{Code: ExitUsage, Kind: "config", Err: err, Hint: u.Fix}
	}
	return err
}

// stoppable is a server serveUntilStopped runs: *serve.Server.
type stoppable interface {
	Serve(l net.Listener) error
	Shutdown(ctx context.Context, sends *app.SendTracker) error
	Close() error
}

// serveUntilStopped serves until a signal (or ctx) asks it to stop, then
// stops gracefully within the request timeout; a second signal closes every
// connection at once.
func serveUntilStopped(ctx context.Context, srv stoppable, l net.Listener, sends *app.SendTracker, sigs <-chan os.Signal, stderr io.Writer) error {
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-sigs:
	case <-ctx.Done():
	}
	fmt.Fprintf(stderr, "Stopping: every session is told; sends stop after their chunk in flight (at most %v). Again to quit at once.\n", app.RequestTimeout)
	sctx, cancel := context.WithTimeout(context.Background(), app.RequestTimeout+stopGrace)
	defer cancel()
	forced := make(chan struct{})
	closed := make(chan error, 1) // srv.Close's error, once forced
	go func() {                   // the second signal
		select {
		case <-sigs:
			close(forced)
			cancel()
			closed <- srv.Close()
		case <-sctx.Done():
		}
	}()
	err := srv.Shutdown(sctx, sends)
	if serr := <-served; serr != nil && !errors.Is(serr, serve.ErrServerClosed) {
		// The listener failed as the server stopped: said, not dropped.
		fmt.Fprintf(stderr, "serve: %s\n", cleanError(serr))
	}
	select {
	case <-forced:
		if cerr := <-closed; cerr != nil {
			fmt.Fprintf(stderr, "serve: closing the connections: %s\n", cleanError(cerr))
		}
		return &ExitError{Code: ExitInterrupted, Kind: "interrupted", Err: errors.New("quit at once: a chunk in flight may be unknown"),
			Hint: "smsdesk history shows each send; smsdesk history show ID its recipients"}
	default:
	}
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	fmt.Fprintln(stderr, "Stopped: every send is journaled (smsdesk history).")
	return nil
}

// serveBanner says where the server listens, how to check its host key and
// how to connect.
func serveBanner(w io.Writer, addr net.Addr, fingerprint, hostKey string, created bool, operators int, demo bool) {
	tcp, _ := addr.(*net.TCPAddr)
	what := "the profile's service"
	if demo {
		what = "a built-in sandbox (demo: nothing real is sent)"
	}
	fmt.Fprintf(w, "smsdesk serve: the console on %s, for %d operator(s), at %s\n", what, operators, addr)
	if tcp != nil && !tcp.IP.IsLoopback() {
		fmt.Fprintf(w, "  Not loopback: anyone who can reach %s may try to sign in (public keys of the operators only).\n", addr)
	} else {
		fmt.Fprintln(w, "  Loopback only: connections from this machine (--addr 0.0.0.0:2222 serves the network).")
	}
	made := ""
	if created {
		made = ", made now"
	}
	fmt.Fprintf(w, "  Host key %s (%s%s)\n", fingerprint, hostKey, made)
	port := "2222"
	if tcp != nil {
		port = fmt.Sprint(tcp.Port)
	}
	fmt.Fprintf(w, "  Connect: ssh -p %s NAME@HOST (check the host key fingerprint above at the first connection)\n", port)
}

// serveEngine opens what every session shares: the profile's engine (one
// client, whose key never leaves this process, one rate budget, one state
// directory) with the server's send tracker; with demo, the demo engine
// (app.OpenDemo).
func (f *Factory) serveEngine(ctx context.Context, demo bool, sends *app.SendTracker) (*served, error) {
	opPaths, err := f.paths()
	if err != nil {
		return nil, err
	}
	var eng *app.Engine
	var sess *session
	if demo {
		if eng, err = app.OpenDemo(f.clientOptions(), app.DemoOptions{}); err != nil {
			return nil, err
		}
	} else {
		s, err := f.session(ctx)
		if err != nil {
			return nil, err
		}
		// Open the ledger before serving (an upgrade from an older
		// smsdesk's files is said once, on stderr; one that failed stops
		// serve here).
		if _, err := s.Paths.Ledger(ctx); err != nil {
			return nil, err
		}
		eng, sess = s.Engine, s
	}
	eng.Tracker = sends
	eng.Warn = nil                                  // the tracker's log says it, beside the server's other lines
	eng.Operators = serve.TrustedOperators(opPaths) // every action is checked against the file as it is then
	return &served{paths: eng.Paths, opPaths: opPaths, demo: eng.Demo, close: eng.Close, sess: sess,
		app:    func(op model.Operator) *app.Session { return eng.Session(&op) },
		runner: &app.Runner{Session: eng.Session(nil), Kind: model.RunnerServe, PollDelivery: true}}, nil
}

// listenError is serve's refusal of an address it cannot listen on, with
// what to do as the sandbox says it: a port in use wants another --addr.
func listenError(addr string, err error) error { return listenErrorOf("serve", addr, err) }

// listenErrorOf is listenError for the command named who.
func listenErrorOf(who, addr string, err error) error {
	ee := &ExitError{Code: ExitUsage, Kind: "usage", Err: fmt.Errorf("%s: %w", who, err)}
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		ee.Hint = fmt.Sprintf("something else listens on %s: pick another --addr (e.g. --addr %s) or stop what holds the port", addr, nextPort(addr))
	case errors.Is(err, syscall.EACCES):
		ee.Hint = "ports below 1024 need privileges: pick another --addr (e.g. --addr 127.0.0.1:2222)"
	default:
		ee.Hint = "pick another --addr (host:port, e.g. 127.0.0.1:2222)"
	}
	return ee
}

// nextPort is addr with the port after its own ("127.0.0.1:2223" for
// 127.0.0.1:2222), an address to suggest when addr's port is taken.
func nextPort(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	n, perr := strconv.Atoi(port)
	if err != nil || perr != nil || n <= 0 || n >= 65535 {
		return "127.0.0.1:2223"
	}
	return net.JoinHostPort(host, strconv.Itoa(n+1))
}
