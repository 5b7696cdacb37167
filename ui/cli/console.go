package cli

import (
	"context"
	"os"

	"charm.land/lipgloss/v2"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/ui/app"
	"github.com/smsdesk/smsdesk/ui/console"
)

// runConsole opens the interactive console: on the sandbox with --demo, else on
// the resolved profile (with the setup screen when no key is found).
func (a *command) runConsole(ctx context.Context, demo bool) error {
	if a.Console == nil {
		return usageError("the console is not available in this build")
	}
	if !a.IO.OutIsTerminal || !a.IO.InIsTerminal {
		return usageError("the console needs a terminal; for scripts use the commands (see smsdesk --help)")
	}
	if t := a.Getenv("TERM"); t == "dumb" {
		return usageError("TERM=dumb: this terminal cannot draw the console (it has no cursor movement); every operation is a command too: smsdesk groups list, smsdesk contacts list ID, smsdesk send-pair … (see smsdesk --help)")
	}
	if demo {
		return a.runDemo(ctx)
	}
	s, err := a.local()
	if err != nil {
		return err
	}
	// The ledger opens before the console owns the terminal: an upgrade
	// from an older smsdesk's files says so on stderr, and one that failed
	// is said here rather than at the first send.
	if _, err := s.Paths.Ledger(ctx); err != nil {
		return err
	}
	a.retries = make(chan client.RetryEvent, 8) // the console owns the terminal: no stderr lines
	secrets := a.secrets(s.Paths)
	keyFromEnv := false
	if s.BaseURL != "" {
		if key, src, err := secrets.Get(s.ProfileName); err == nil {
			keyFromEnv = src == config.SourceEnv
			_ = a.open(s, key) // a client the settings refuse: the setup screen says why
		}
	}
	opts := console.Options{Retries: a.retries, Session: s.App, StateDir: s.Paths.StateDir, Logger: a.logger(), KeyFromEnv: keyFromEnv,
		SaveSenders: s.Engine.SaveSenders}
	opts.Login = func(ctx context.Context, baseURL, key string, insecure bool) (*client.Client, string, error) {
		c, _, _, err := a.login(ctx, s, baseURL, key, insecure) // not proved: the console opens, and its loads say what the service answers
		return c, config.KeyKind(tidyKey(key)), err
	}
	a.displaySettings(&opts, s.Config.Console)
	opts.SaveBidi = func(mode string) error {
		_, err := config.Update(s.Paths, func(c *config.Config) error { c.Console.Bidi = mode; return nil })
		return err
	}
	return a.Console(ctx, opts)
}

// displaySettings applies the [console] settings to this process's own
// terminal (console.Options.Display), with --no-color and the home
// directory a leading ~/ stands for.
func (a *command) displaySettings(opts *console.Options, cs config.ConsoleSettings) {
	in, inOK := a.IO.In.(*os.File)
	out, outOK := a.IO.Out.(*os.File)
	dark := func() bool { return !inOK || !outOK || lipgloss.HasDarkBackground(in, out) }
	opts.Display(cs, a.Getenv, dark)
	opts.NoColor = opts.NoColor || a.noColor
	opts.HomeDir = a.Getenv("HOME")
	if opts.HomeDir == "" {
		opts.HomeDir = a.Getenv("USERPROFILE") // Windows
	}
}

// runDemo opens the console on the demo engine (app.OpenDemo: a sandbox
// in this process, config and state in a temporary directory): nothing is
// written to the operator's config, state or keyring.
func (a *command) runDemo(ctx context.Context) error {
	a.retries = make(chan client.RetryEvent, 8)
	eng, err := app.OpenDemo(a.clientOptions())
	if err != nil {
		return err
	}
	defer eng.Close()
	opts := console.Options{
		Session: eng.Session(nil), StateDir: eng.Paths.StateDir, Retries: a.retries, Demo: true, Logger: a.logger(),
		SaveSenders: eng.SaveSenders, // into the demo's temporary config
	}
	// The operator's display settings apply (read only: the demo writes
	// nothing of the operator's; B lasts the session).
	cs := config.ConsoleSettings{}
	if userPaths, err := a.paths(); err == nil {
		if userCfg, err := config.Load(userPaths); err == nil {
			cs = userCfg.Console
		}
	}
	a.displaySettings(&opts, cs)
	return a.Console(ctx, opts)
}
