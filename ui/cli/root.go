// Package cli is smsdesk's command-line face: a cobra command tree over the
// application layer (ui/app). Every command prints for people by default and
// stable JSON with --json. Each command is one file: its options, the cobra
// command that fills them (newCmdX(f, runF)), their validate and the run
// function; Factory holds what every command needs (docs/ARCHITECTURE.md,
// "How to add a command").
package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

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
	// LookWait bounds a runner's looks at the ledger (scheduler; 0: 25 s,
	// ledger.LookWait); tests pass less.
	LookWait time.Duration
}

// Main runs smsdesk with args (without the program name) and returns the exit code.
func Main(ctx context.Context, args []string, env Env) int {
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	f := newFactory(args, env)
	ro := &rootOptions{f: f}
	root := newCmdRoot(ro)
	root.SetArgs(args)
	root.SetIn(env.Stdin)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if ferr := ro.filterOutput(); ferr != nil && err == nil {
		err = ferr
	}
	f.close()
	if err != nil {
		return reportError(env.Stderr, cmd, args, err)
	}
	return ExitOK
}

// rootOptions are the root command's own: --demo (the console on the
// sandbox), and --jq and --json=FIELDS, which filter what the command that
// ran printed once it has run.
type rootOptions struct {
	f      *Factory
	demo   bool
	jqExpr string
	jq     *jqFilter      // set when --jq is given
	sel    *jsonSelection // --json=FIELDS: the keys kept of what the command prints
}

// filterOutput writes what the command printed through --json=FIELDS, then
// --jq.
func (ro *rootOptions) filterOutput() error {
	var err error
	if ro.sel != nil {
		err = ro.sel.run()
	}
	if ro.jq != nil {
		if jqErr := ro.jq.run(); jqErr != nil && err == nil {
			err = jqErr
		}
	}
	return err
}

// newCmdRoot is smsdesk itself: the console without a command, and every
// command under it.
func newCmdRoot(ro *rootOptions) *cobra.Command {
	f := ro.f
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
			return f.runConsole(cmd.Context(), ro.demo)
		},
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error { return ro.setUp(cmd) },
	}
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		// A mistyped subcommand is named before the flags that followed
		// it: "contacts lst --json" said "unknown flag: --json" (contacts
		// has no --json), not "did you mean list?".
		if name := subcommandWord(cmd, f.args); name != "" {
			return unknownCommand(cmd, name)
		}
		return usageError("%v (see %s --help)", err, cmd.CommandPath())
	})
	pf := root.PersistentFlags()
	pf.StringVar(&f.profileFlag, "profile", "", "profile to use (default: the active one, or $SMSDESK_PROFILE)")
	pf.StringVar(&f.baseURLFlag, "base-url", "", "service base URL, e.g. https://host/v1 (default: $SMSDESK_BASE_URL or the profile's)")
	pf.BoolVar(&f.debug, "debug", false, "write a debug log (key redacted) to the state directory")
	pf.StringVar(&ro.jqExpr, "jq", "", "filter --json output with a jq expression, e.g. --jq '.results[].status'")
	pf.BoolVar(&f.noColor, "no-color", false, "no colour in the console (as NO_COLOR=1 does); the commands print none")
	pf.BoolVarP(&f.quiet, "quiet", "q", false, "print only results and errors: no progress, notes or warnings on stderr")
	root.Flags().BoolVar(&ro.demo, "demo", false, "open the console on a built-in sandbox of the service (writes nothing to your config, state or keyring)")
	addCommands(root, f)
	root.SetVersionTemplate("smsdesk {{.Version}}\n")
	rejectUnknownSubcommands(root)
	f.wireCompletion(root)
	return root
}

// addCommands adds every command to root, in the order --help lists them.
func addCommands(root *cobra.Command, f *Factory) {
	root.AddCommand(
		newCmdVersion(f, nil),
		environmentHelp(),
		newCmdSandbox(f, nil),
		newCmdGroups(f),
		newCmdContacts(f),
		newCmdSendPair(f, nil),
		newCmdHistory(f, nil),
		newCmdLogin(f, nil),
		newCmdLogout(f, nil),
		newCmdStatus(f, nil),
		newCmdConfig(f),
		newCmdProfiles(f),
		newCmdMan(f, nil),
		newCmdDoctor(f, nil),
		newCmdOperators(f),
		newCmdOptOut(f),
		newCmdServe(f, nil),
		newCmdWebhook(f, nil),
		newCmdScheduler(f, nil),
		newCmdLedger(f),
		newCmdAudit(f, nil),
		newCmdInbox(f, nil),
		newCmdLines(f, nil),
	)
}

// setUp reads the global flags of the command that runs, before it runs:
// --jq and --json=FIELDS catch what it prints to filter it afterwards;
// --json and --quiet silence stderr; text for people is sanitised; --debug
// opens the log.
func (ro *rootOptions) setUp(cmd *cobra.Command) error {
	f := ro.f
	var filter *bytes.Buffer
	out := f.IO.Out
	if ro.jqExpr != "" {
		if jsonLinesRequested(cmd) {
			return usageError("--jq reads the one JSON document of --json; --json-lines streams a line at a time: pipe it to jq instead (smsdesk … --json-lines | jq -c 'select(.status == \"failed\")')")
		}
		if !jsonRequested(cmd) {
			return usageError("--jq filters --json output: add --json")
		}
		code, err := compileJQ(ro.jqExpr)
		if err != nil {
			return err
		}
		ro.jq = &jqFilter{expr: ro.jqExpr, code: code, out: out, buf: &bytes.Buffer{}}
		filter, out = ro.jq.buf, ro.jq.buf
	}
	if fields := jsonFieldsOf(cmd); fields != nil {
		// --json=FIELDS: the command prints all; Main keeps these keys,
		// and --jq (when given) reads what is kept.
		ro.sel = &jsonSelection{fields: fields, out: out, buf: &bytes.Buffer{}}
		filter = ro.sel.buf
	}
	var w io.Writer
	if filter != nil {
		w = filter
	}
	// With --json, stderr carries only the final error object (Main writes
	// it to the real stderr); --quiet drops progress, notes and warnings
	// too. Text for people is sanitised where it meets the terminal: no
	// escape sequence from a service or a file reaches it, whichever call
	// printed it. The progress bar alone writes underneath (its carriage
	// return and erase-line are deliberate); JSON escapes its own controls.
	f.IO.setUp(w, jsonRequested(cmd), f.quiet)
	cmd.SetContext(printLedgerWaits(cmd.Context(), f.IO)) // a write that waits for another smsdesk says so
	return f.setupLogging(ro.demo)
}
