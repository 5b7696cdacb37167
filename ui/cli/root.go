// Package cli is smsdesk's command-line face: a cobra command tree over the typed
// client, the local configuration and the domain model. Every command prints for
// people by default and stable JSON with --json.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// Version is the program version shown by `smsdesk version` and sent in the
// User-Agent header.
const Version = "0.1.0"

// Env is what the command line reads from and writes to; tests give their own.
type Env struct {
	Stdin            io.Reader
	Stdout, Stderr   io.Writer
	Getenv           func(string) string
	StdinIsTerminal  bool
	StdoutIsTerminal bool
	// Console runs the interactive console; main.go provides it so that this
	// package need not import the console (and tests can leave it nil).
	Console func(ctx context.Context, opts ConsoleOptions) error
	// Now and Sleep replace the clock that the client and the send engine wait
	// on (rate windows, Retry-After, retries); tests pass a fake one. nil: the
	// real clock.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
}

// app holds the global flags and the environment for one run.
type app struct {
	env         Env
	profileFlag string
	baseURLFlag string
	debug       bool
	demo        bool
	logClose    func() error
	debugLogger *slog.Logger
	secretStore *config.Secrets
	// retries receives the clients' retry notices while the console owns the
	// terminal (nil: they go to stderr as they happen).
	retries chan client.RetryEvent
}

// retryNote tells at once that the service could not be reached and what
// happens next: a line on stderr, or a notice for the console's status line.
func (a *app) retryNote(ev client.RetryEvent) {
	if a.retries != nil {
		select {
		case a.retries <- ev:
		default: // the console shows the latest; never block a request
		}
		return
	}
	fmt.Fprintf(a.env.Stderr, "smsdesk: %s\n", model.SanitizeLine(ev.String()))
}

// Main runs smsdesk with args (without the program name) and returns the exit code.
func Main(ctx context.Context, args []string, env Env) int {
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	a := &app{env: env}
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetIn(env.Stdin)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	err := root.ExecuteContext(ctx)
	if a.logClose != nil {
		_ = a.logClose()
	}
	if err != nil {
		if isCobraUsageError(err) {
			err = &ExitError{Code: ExitUsage, Err: fmt.Errorf("%w (see smsdesk --help)", err)}
		}
		if !errors.Is(err, errSilent) {
			fmt.Fprintln(env.Stderr, "smsdesk: "+cleanError(err))
		}
		return exitCode(err)
	}
	return ExitOK
}

// isCobraUsageError recognises cobra's own parsing errors (unknown command,
// wrong arguments), which cobra returns as plain errors without a type.
func isCobraUsageError(err error) bool {
	var ee *ExitError
	if errors.As(err, &ee) {
		return false
	}
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "accepts ", "requires at least", "invalid argument"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// errSilent marks an error already reported to the user.
var errSilent = errors.New("already reported")

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "smsdesk",
		Short: "A terminal console and command line for SMS operators",
		Long: `smsdesk drives an SMS service's API: contact groups, contacts and paired
sends, where each recipient gets only its own text.

Run it without a command for the interactive console; --demo opens the console
on a built-in sandbox of the service.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runConsole(cmd.Context())
		},
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			return a.setupLogging()
		},
	}
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return usageError("%v (see %s --help)", err, cmd.CommandPath())
	})
	pf := root.PersistentFlags()
	pf.StringVar(&a.profileFlag, "profile", "", "profile to use (default: the active one, or $SMSDESK_PROFILE)")
	pf.StringVar(&a.baseURLFlag, "base-url", "", "service base URL, e.g. https://host/v1 (default: $SMSDESK_BASE_URL or the profile's)")
	pf.BoolVar(&a.debug, "debug", false, "write a debug log (key redacted) to the state directory")
	root.Flags().BoolVar(&a.demo, "demo", false, "open the console on a built-in sandbox of the service (writes nothing to your config, state or keyring)")

	root.AddCommand(
		a.versionCommand(),
		a.sandboxCommand(),
		a.groupsCommand(),
		a.contactsCommand(),
		a.sendPairCommand(),
		a.historyCommand(),
		a.loginCommand(),
		a.logoutCommand(),
		a.statusCommand(),
		a.configCommand(),
		a.profilesCommand(),
	)
	return root
}

func (a *app) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print smsdesk's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintf(a.env.Stdout, "smsdesk %s\n", Version)
			return nil
		},
	}
}

// logger returns the debug logger, or one that discards everything.
func (a *app) logger() *slog.Logger {
	if a.debugLogger != nil {
		return a.debugLogger
	}
	return slog.New(slog.DiscardHandler)
}
