package cli

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/ui/app"
	"github.com/smsdesk/smsdesk/ui/console"
)

// Factory is what every command is built with, once per run of smsdesk
// (gh's cmdutil.Factory): the streams, the environment and the clock, the
// global flags, and what is opened on first use and closed when Main
// returns: smsdesk's paths and ledger, the profile's session on ui/app
// (local, session), the secret store and the debug log. A command copies
// what it needs into its options; the factory holds no command's state.
type Factory struct {
	IO     *IOStreams
	Getenv func(string) string
	// Now and Sleep are the clock the client and the send engine wait on
	// (Env.Now, Env.Sleep; nil: the real clock).
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	// CheckTimeout bounds what status and doctor ask the service (0: 2.5 s).
	CheckTimeout time.Duration
	// Console runs the interactive console (nil in a build without it).
	Console func(ctx context.Context, opts console.Options) error

	// The global flags, the root command's: --profile, --base-url,
	// --debug, --quiet, --no-color.
	profileFlag, baseURLFlag string
	debug, quiet, noColor    bool

	args []string // as given, for the error of a mistyped subcommand
	// pathsFound are smsdesk's directories and ledger, once found (paths).
	pathsFound  *config.Paths
	secretStore *config.Secrets
	debugLogger *slog.Logger
	logClose    func() error
	// retries receives the clients' retry notices while the console owns
	// the terminal (nil: they go to stderr as they happen).
	retries chan client.RetryEvent
}

// newFactory is the factory of one run of smsdesk with args in env.
func newFactory(args []string, env Env) *Factory {
	return &Factory{IO: newIOStreams(env), Getenv: env.Getenv, Now: env.Now, Sleep: env.Sleep, CheckTimeout: env.CheckTimeout, Console: env.Console, args: args}
}

// close closes what the run opened: the debug log and the ledger.
func (f *Factory) close() {
	if f.logClose != nil {
		_ = f.logClose() // a log that does not close loses only its tail
	}
	if f.pathsFound != nil {
		if err := f.pathsFound.CloseLedger(); err != nil {
			printf(f.IO.ErrOut, "smsdesk: warning: closing the ledger: %v\n", err)
		}
	}
}

// now is the run's clock.
func (f *Factory) now() time.Time {
	if f.Now != nil {
		return f.Now()
	}
	return time.Now()
}

// retryNote tells at once that the service could not be reached and what
// happens next: a line on stderr, or a notice for the console's status line.
func (f *Factory) retryNote(ev client.RetryEvent) {
	if f.retries != nil {
		select {
		case f.retries <- ev:
		default: // the console shows the latest; never block a request
		}
		return
	}
	printf(f.IO.ErrOut, "smsdesk: %s\n", ev.String())
}

// warn says what ui/app could not record besides a flow's outcome (an
// audit record: app.Session.Warn): on stderr, or in the debug log while
// the console owns the terminal.
func (f *Factory) warn(err error) {
	if f.retries != nil {
		f.logger().Warn(err.Error())
		return
	}
	printf(f.IO.ErrOut, "smsdesk: warning: %v\n", err)
}

// logger returns the debug logger, or one that discards everything.
func (f *Factory) logger() *slog.Logger {
	if f.debugLogger != nil {
		return f.debugLogger
	}
	return slog.New(slog.DiscardHandler)
}

// paths are smsdesk's files, from the environment smsdesk was given.
// They are found once per run: their ledger is opened once, on first use,
// and closed when Main returns.
func (f *Factory) paths() (config.Paths, error) {
	if f.pathsFound != nil {
		return *f.pathsFound, nil
	}
	p, err := config.PathsFromEnv(f.lookupEnv)
	if err != nil {
		return p, fmt.Errorf("finding smsdesk's directories: %w", err)
	}
	// The first use of the ledger may move an older smsdesk's state
	// directory into it: that is said once, on stderr, as it happens.
	// (Its lines are kept: stderr drops control characters itself.)
	p.OnUpgrade(func(report string) { fmt.Fprintln(f.IO.ErrOut, report) })
	f.pathsFound = &p
	return p, nil
}

// lookupEnv reads the environment through Getenv (empty counts as unset).
func (f *Factory) lookupEnv(k string) (string, bool) {
	v := f.Getenv(k)
	return v, v != ""
}

// secrets returns the secret store for this machine: one per run, so that a
// keyring that hangs costs its timeout once.
func (f *Factory) secrets(paths config.Paths) *config.Secrets {
	if f.secretStore == nil {
		f.secretStore = config.NewSecrets(paths, config.SystemKeyring(), config.WithLookupEnv(f.lookupEnv))
	}
	return f.secretStore
}

// clientOptions are what every client of this run carries: the user agent,
// the debug log, the clock and the retry notices.
func (f *Factory) clientOptions() app.ClientOptions {
	return app.ClientOptions{UserAgent: "smsdesk/" + Version, Logger: f.logger(), Now: f.Now, Sleep: f.Sleep, RetryNotify: f.retryNote}
}

// newClient builds a client with the profile's pacing and safety settings
// (app.NewClient); with paths (their state directory) it shares the
// profile's request budget with smsdesk's other processes.
func (f *Factory) newClient(paths config.Paths, baseURL, key string, prof *config.Profile) (*client.Client, error) {
	return app.NewClient(paths, baseURL, key, prof, f.clientOptions())
}

// setupLogging opens the --debug log file in the state directory (demo:
// in the temporary directory, as the demo writes nothing of the
// operator's).
func (f *Factory) setupLogging(demo bool) error {
	if !f.debug {
		return nil
	}
	path := filepath.Join(os.TempDir(), "smsdesk-demo-debug.log")
	if !demo {
		paths, err := f.paths()
		if err != nil {
			return err
		}
		path = paths.DebugLog()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("creating state directory for the debug log: %w", err)
	}
	file, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("opening debug log: %w", err)
	}
	secrets := []string{}
	if k := f.Getenv("SMSDESK_API_KEY"); k != "" {
		secrets = append(secrets, k)
	}
	h := config.RedactingHandler(slog.NewTextHandler(file, &slog.HandlerOptions{Level: slog.LevelDebug}), secrets...)
	f.debugLogger = slog.New(h).With("pid", os.Getpid(), "started", time.Now().Format(time.RFC3339))
	f.logClose = file.Close
	fmt.Fprintf(f.IO.ErrOut, "smsdesk: debug log: %s\n", path)
	return nil
}
