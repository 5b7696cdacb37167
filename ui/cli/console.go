package cli

import (
	"context"
	"os"

	"charm.land/lipgloss/v2"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/ui/console"
)

// runConsole opens the interactive console: on the sandbox with --demo, else on
// the resolved profile (with the setup screen when no key is found).
func (f *Factory) runConsole(ctx context.Context, demo bool) error {
	if f.Console == nil {
		return usageError("the console is not available in this build")
	}
	if !f.IO.OutIsTerminal || !f.IO.InIsTerminal {
		return usageError("the console needs a terminal; for scripts use the commands (see smsdesk --help)")
	}
	if t := f.Getenv("TERM"); t == "dumb" {
		return usageError("TERM=dumb: this terminal cannot draw the console (it has no cursor movement); every operation is a command too: smsdesk groups list, smsdesk contacts list ID, smsdesk send-pair … (see smsdesk --help)")
	}
	if demo {
		return f.runDemo(ctx)
	}
	s, err := f.local()
	if err != nil {
		return err
	}
	// The ledger opens before the console owns the terminal: an upgrade
	// from an older smsdesk's files says so on stderr, and one that failed
	// is said here rather than at the first send.
	if _, err := s.Paths.Ledger(ctx); err != nil {
		return err
	}
	f.retries = make(chan client.RetryEvent, 8) // the console owns the terminal: no stderr lines
	secrets := f.secrets(s.Paths)
	keyFromEnv := false
	if s.BaseURL != "" {
		if key, src, err := secrets.Get(s.ProfileName); err == nil {
			keyFromEnv = src == config.SourceEnv
			_ = f.open(s, key) // a client the settings refuse: the setup screen says why
		}
	}
	opts := console.Options{Retries: f.retries, Session: s.App, StateDir: s.Paths.StateDir, Logger: f.logger(), KeyFromEnv: keyFromEnv,
		SaveSenders: s.Engine.SaveSenders}
	opts.Login = func(ctx context.Context, baseURL, key string, insecure bool) (*client.Client, string, error) {
		c, _, _, err := f.login(ctx, s, baseURL, key, insecure) // not proved: the console opens, and its loads say what the service answers
		return c, config.KeyKind(tidyKey(key)), err
	}
	f.displaySettings(&opts, s.Config.Console)
	opts.SaveBidi = func(mode string) error {
		_, err := config.Update(s.Paths, func(c *config.Config) error { c.Console.Bidi = mode; return nil })
		return err
	}
	return f.Console(ctx, opts)
}

// displaySettings applies the [console] settings to this process's own
// terminal (console.Options.Display), with --no-color and the home
// directory a leading ~/ stands for.
func (f *Factory) displaySettings(opts *console.Options, cs config.ConsoleSettings) {
	in, inOK := f.IO.In.(*os.File)
	out, outOK := f.IO.Out.(*os.File)
	dark := func() bool { return !inOK || !outOK || lipgloss.HasDarkBackground(in, out) }
	opts.Display(cs, f.Getenv, dark)
	opts.NoColor = opts.NoColor || f.noColor
	opts.HomeDir = f.Getenv("HOME")
	if opts.HomeDir == "" {
		opts.HomeDir = f.Getenv("USERPROFILE") // Windows
	}
}

// runDemo opens the console on the demo engine (app.OpenDemo: a sandbox
// in this process, config and state in a temporary directory): nothing is
// written to the operator's config, state or keyring.
func (f *Factory) runDemo(ctx context.Context) error {
	f.retries = make(chan client.RetryEvent, 8)
	eng, stop, err := startDemo(ctx, f.clientOptions(), f.logger())
	if err != nil {
		return err
	}
	defer stop()
	eng.Warn = f.warn
	opts := console.Options{
		Session: eng.Session(nil), StateDir: eng.Paths.StateDir, Retries: f.retries, Demo: true, Logger: f.logger(),
		SaveSenders: eng.SaveSenders, // into the demo's temporary config
	}
	// The operator's display settings apply (read only: the demo writes
	// nothing of the operator's; B lasts the session).
	cs := config.ConsoleSettings{}
	if userPaths, err := f.paths(); err == nil {
		if userCfg, err := config.Load(userPaths); err == nil {
			cs = userCfg.Console
		}
	}
	f.displaySettings(&opts, cs)
	return f.Console(ctx, opts)
}
