// Package cli is smsdesk's command-line face: a cobra command tree over the typed
// client, the local configuration and the domain model. Every command prints for
// people by default and stable JSON with --json.
package cli

import (
	"bytes"
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
	"github.com/smsdesk/smsdesk/ui/console"
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
	// TerminalWidth is stdout's width in columns when it is a terminal
	// (tables fit it); nil or 0: $COLUMNS, else 80.
	TerminalWidth func() int
	// Console runs the interactive console: console.Run, given by main.go
	// (tests can leave it nil).
	Console func(ctx context.Context, opts console.Options) error
	// Now and Sleep replace the clock that the client and the send engine wait
	// on (rate windows, Retry-After, retries); tests pass a fake one. nil: the
	// real clock.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	// CheckTimeout bounds what status and doctor ask the service, all told;
	// 0: 2.5 s, so that the command ends within 3 s (tests pass less).
	CheckTimeout time.Duration
}

// command holds the global flags and the environment for one run.
type command struct {
	env  Env
	args []string // as given, for the error of a mistyped subcommand
	// pathsFound are smsdesk's directories and ledger, once found (paths).
	pathsFound *config.Paths
	// once is send-pair's --once ID, for its report (sendPairJSON.Once).
	once        string
	profileFlag string
	baseURLFlag string
	debug       bool
	demo        bool
	quiet       bool
	noColor     bool
	jqExpr      string
	jq          *jqFilter // set when --jq is given
	// sel is --json=FIELDS: the keys kept of what the command prints.
	sel *jsonSelection
	// promptErr is the terminal's stderr for questions, kept when --json or
	// --quiet silence env.Stderr (only the final error goes there then).
	promptErr io.Writer
	// rawErr is stderr without sanitising, for the progress bar's terminal
	// control.
	rawErr      io.Writer
	logClose    func() error
	debugLogger *slog.Logger
	secretStore *config.Secrets
	// retries receives the clients' retry notices while the console owns the
	// terminal (nil: they go to stderr as they happen).
	retries chan client.RetryEvent
}

// retryNote tells at once that the service could not be reached and what
// happens next: a line on stderr, or a notice for the console's status line.
func (a *command) retryNote(ev client.RetryEvent) {
	if a.retries != nil {
		select {
		case a.retries <- ev:
		default: // the console shows the latest; never block a request
		}
		return
	}
	printf(a.env.Stderr, "smsdesk: %s\n", ev.String())
}

// Main runs smsdesk with args (without the program name) and returns the exit code.
func Main(ctx context.Context, args []string, env Env) int {
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	a := &command{env: env, args: args}
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetIn(env.Stdin)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if a.sel != nil {
		if selErr := a.sel.run(); selErr != nil && err == nil {
			err = selErr
		}
	}
	if a.jq != nil {
		if jqErr := a.jq.run(); jqErr != nil && err == nil {
			err = jqErr
		}
	}
	if a.logClose != nil {
		_ = a.logClose()
	}
	if a.pathsFound != nil {
		_ = a.pathsFound.CloseLedger()
	}
	if err != nil {
		if isCobraUsageError(err) {
			err = &ExitError{Code: ExitUsage, Err: fmt.Errorf("%w (see smsdesk --help)", err)}
		}
		switch {
		case errors.Is(err, errSilent):
		case cmd != nil && (jsonRequested(cmd) || jsonInArgs(args) && exitCode(err) == ExitUsage && !cmdHasJSON(cmd)):
			_ = printJSON(env.Stderr, errorJSONOf(err))
		default:
			var ee *ExitError
			if errors.As(err, &ee) {
				for _, d := range ee.Details {
					fmt.Fprintln(env.Stderr, model.SanitizeLine(d))
				}
			}
			fmt.Fprintln(env.Stderr, "smsdesk: "+cleanError(err))
		}
		return exitCode(err)
	}
	return ExitOK
}

// jsonInArgs reports --json (or --json=FIELDS) among the arguments, before
// any "--": a mistyped command given --json ("contacts lst --json") answers
// with the JSON error object a script asked for, though the command that
// ran has no --json.
func jsonInArgs(args []string) bool {
	for _, arg := range args {
		if arg == "--" {
			return false
		}
		if arg == "--json" || strings.HasPrefix(arg, "--json=") {
			return true
		}
	}
	return false
}

// cmdHasJSON reports whether the command has a --json flag.
func cmdHasJSON(cmd *cobra.Command) bool { return cmd.Flags().Lookup("json") != nil }

// jsonRequested reports --json (or --json-lines) on the command that ran:
// stdout is JSON then, and stderr carries only the final error, as JSON.
func jsonRequested(cmd *cobra.Command) bool {
	f := cmd.Flags().Lookup("json")
	return f != nil && f.Value.String() == "true" || jsonLinesRequested(cmd)
}

// jsonLinesRequested reports --json-lines on the command that ran.
func jsonLinesRequested(cmd *cobra.Command) bool {
	f := cmd.Flags().Lookup("json-lines")
	return f != nil && f.Value.String() == "true"
}

// errorJSON is how an error reads on stderr under --json: one object a script
// can parse, whatever went wrong, with the exit code it will see. Absent
// values are null, never missing.
type errorJSON struct {
	Error struct {
		Code        string   `json:"code"` // one of errorCodes
		Message     string   `json:"message"`
		Hint        *string  `json:"hint"`         // what to do about it
		Details     []string `json:"details"`      // refused rows or problems, one a line
		ServiceCode *string  `json:"service_code"` // the service's error_code, when it gave one
		// SendID is the send the refusal is about (ExitError.SendID): for a
		// script, not only in the message's words.
		SendID *string `json:"send_id"`
		Exit   int     `json:"exit"`
	} `json:"error"`
}

func errorJSONOf(err error) errorJSON {
	var out errorJSON
	out.Error.Exit = exitCode(err)
	out.Error.Code = errorKind(err)
	out.Error.Message = model.SanitizeLine(err.Error())
	out.Error.Details = []string{}
	if h := errorHint(err); h != "" {
		out.Error.Hint = &h
	}
	var ee *ExitError
	if errors.As(err, &ee) && ee.Details != nil {
		out.Error.Details = ee.Details
	}
	if ee != nil && ee.SendID != "" {
		out.Error.SendID = &ee.SendID
	}
	var ae *client.APIError
	if errors.As(err, &ae) && ae.Code != "" {
		out.Error.ServiceCode = &ae.Code
	}
	return out
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

func (a *command) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "smsdesk",
		Short: "A terminal console and command line for SMS operators",
		Long: `smsdesk drives an SMS service's API: contact groups, contacts and paired
sends, where each recipient gets only its own text.

Run it without a command for the interactive console; --demo opens the console
on a built-in sandbox of the service.` + exitCodesHelp(),
		SilenceUsage:  true,
		SilenceErrors: true,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return unknownCommand(cmd, args[0])
			}
			return nil
		},
		Version: versionText(),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runConsole(cmd.Context())
		},
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			a.promptErr = a.env.Stderr
			if a.jqExpr != "" {
				if jsonLinesRequested(cmd) {
					return usageError("--jq reads the one JSON document of --json; --json-lines streams a line at a time: pipe it to jq instead (smsdesk … --json-lines | jq -c 'select(.status == \"failed\")')")
				}
				if !jsonRequested(cmd) {
					return usageError("--jq filters --json output: add --json")
				}
				code, err := compileJQ(a.jqExpr)
				if err != nil {
					return err
				}
				a.jq = &jqFilter{expr: a.jqExpr, code: code, out: a.env.Stdout, buf: &bytes.Buffer{}}
				a.env.Stdout = a.jq.buf
			}
			if fields := jsonFieldsOf(cmd); fields != nil {
				// --json=FIELDS: the command prints all; Main keeps these
				// keys, and --jq (when given) reads what is kept.
				a.sel = &jsonSelection{fields: fields, out: a.env.Stdout, buf: &bytes.Buffer{}}
				a.env.Stdout = a.sel.buf
			}
			if a.quiet || jsonRequested(cmd) {
				// With --json, stderr carries only the final error object
				// (Main writes it to the real stderr); --quiet drops progress,
				// notes and warnings too.
				a.env.Stderr = io.Discard
			}
			// Text for people is sanitised where it meets the terminal: no
			// escape sequence from a service or a file reaches it, whichever
			// call printed it. The progress bar alone writes underneath (its
			// carriage return and erase-line are deliberate); JSON escapes its
			// own controls.
			a.rawErr = a.env.Stderr
			a.env.Stderr = model.NewSanitizingWriter(a.env.Stderr)
			if !jsonRequested(cmd) {
				a.env.Stdout = model.NewSanitizingWriter(a.env.Stdout)
			}
			return a.setupLogging()
		},
	}
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		// A mistyped subcommand is named before the flags that followed
		// it: "contacts lst --json" said "unknown flag: --json" (contacts
		// has no --json), not "did you mean list?".
		if name := a.subcommandWord(cmd); name != "" {
			return unknownCommand(cmd, name)
		}
		return usageError("%v (see %s --help)", err, cmd.CommandPath())
	})
	pf := root.PersistentFlags()
	pf.StringVar(&a.profileFlag, "profile", "", "profile to use (default: the active one, or $SMSDESK_PROFILE)")
	pf.StringVar(&a.baseURLFlag, "base-url", "", "service base URL, e.g. https://host/v1 (default: $SMSDESK_BASE_URL or the profile's)")
	pf.BoolVar(&a.debug, "debug", false, "write a debug log (key redacted) to the state directory")
	pf.StringVar(&a.jqExpr, "jq", "", "filter --json output with a jq expression, e.g. --jq '.results[].status'")
	pf.BoolVar(&a.noColor, "no-color", false, "no colour in the console (as NO_COLOR=1 does); the commands print none")
	pf.BoolVarP(&a.quiet, "quiet", "q", false, "print only results and errors: no progress, notes or warnings on stderr")
	root.Flags().BoolVar(&a.demo, "demo", false, "open the console on a built-in sandbox of the service (writes nothing to your config, state or keyring)")

	root.AddCommand(
		a.versionCommand(),
		environmentHelp(),
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
		a.manCommand(),
		a.doctorCommand(),
		a.operatorsCommand(),
		a.optOutCommand(),
		a.serveCommand(),
		a.schedulerCommand(),
		a.ledgerCommand(),
		a.auditCommand(),
	)
	root.SetVersionTemplate("smsdesk {{.Version}}\n")
	rejectUnknownSubcommands(root)
	a.wireCompletion(root)
	return root
}

// rejectUnknownSubcommands makes every command that only groups others
// (contacts, groups, config, …) refuse an unknown subcommand with exit 2 and
// suggestions, as the root does, instead of printing its help and exiting 0
// (a script's typo then went unnoticed).
func rejectUnknownSubcommands(c *cobra.Command) {
	for _, sub := range c.Commands() {
		rejectUnknownSubcommands(sub)
	}
	if !c.HasSubCommands() || !c.HasParent() {
		return
	}
	if c.Run != nil || c.RunE != nil {
		// A command that runs itself and has subcommands (history, with
		// show and cancel): arguments it does not take are a mistyped
		// subcommand, suggested as the root's are ("history cancle" said
		// only "unknown command").
		if own := c.Args; own != nil {
			c.Args = func(cmd *cobra.Command, args []string) error {
				err := own(cmd, args)
				if err != nil && len(args) > 0 {
					return unknownCommand(cmd, args[0])
				}
				return err
			}
		}
		return
	}
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		return unknownCommand(cmd, args[0])
	}
}

// subcommandWord is the word given where cmd expects one of its
// subcommands, when it is none of them ("lst" in "contacts lst --json"); ""
// when cmd has no subcommands or none was given. Flags are skipped as cobra
// skips them to find a command: a flag that takes a value, given without
// "=", takes the next word with it.
func (a *command) subcommandWord(cmd *cobra.Command) string {
	if !cmd.HasSubCommands() {
		return ""
	}
	_, rest, err := cmd.Root().Find(a.args)
	if err != nil {
		return ""
	}
	for i := 0; i < len(rest); i++ {
		w := rest[i]
		switch {
		case w == "--":
			return ""
		case strings.HasPrefix(w, "--"):
			name, _, hasValue := strings.Cut(w[2:], "=")
			if f := cmd.Flags().Lookup(name); f != nil && !hasValue && f.NoOptDefVal == "" {
				i++ // its value
			}
			continue
		case strings.HasPrefix(w, "-") && len(w) == 2:
			if f := cmd.Flags().ShorthandLookup(w[1:]); f != nil && f.NoOptDefVal == "" {
				i++
			}
			continue
		case strings.HasPrefix(w, "-"):
			continue
		}
		for _, sub := range cmd.Commands() {
			if sub.Name() == w || sub.HasAlias(w) {
				return ""
			}
		}
		return w
	}
	return ""
}

// unknownCommand is the exit-2 error for a mistyped command, with cobra's
// suggestions (a prefix, or within two edits): "did you mean list?".
func unknownCommand(cmd *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q for %q", name, cmd.CommandPath())
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2 // cobra sets it on the root only
	}
	if s := cmd.SuggestionsFor(name); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	}
	return usageError("%s (see %s --help)", msg, cmd.CommandPath())
}

// logger returns the debug logger, or one that discards everything.
func (a *command) logger() *slog.Logger {
	if a.debugLogger != nil {
		return a.debugLogger
	}
	return slog.New(slog.DiscardHandler)
}
