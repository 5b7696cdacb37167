package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/ui/app"
	"github.com/smsdesk/smsdesk/ui/console"
)

// runConsole opens the interactive console: on the sandbox with --demo, else on
// the resolved profile (with the setup screen when no key is found).
func (a *command) runConsole(ctx context.Context) error {
	if a.env.Console == nil {
		return usageError("the console is not available in this build")
	}
	if !a.env.StdoutIsTerminal || !a.env.StdinIsTerminal {
		return usageError("the console needs a terminal; for scripts use the commands (see smsdesk --help)")
	}
	if t := a.env.Getenv("TERM"); t == "dumb" {
		return usageError("TERM=dumb: this terminal cannot draw the console (it has no cursor movement); every operation is a command too: smsdesk groups list, smsdesk contacts list ID, smsdesk send-pair … (see smsdesk --help)")
	}
	if a.demo {
		return a.runDemo(ctx)
	}
	s, err := a.local()
	if err != nil {
		return err
	}
	a.retries = make(chan client.RetryEvent, 8) // the console owns the terminal: no stderr lines
	secrets := a.secrets(s.Paths)
	opts := console.Options{Retries: a.retries, Session: s.App, StateDir: s.Paths.StateDir, Logger: a.logger()}
	opts.Login = func(ctx context.Context, baseURL, key string, insecure bool) (*client.Client, string, error) {
		c, _, err := a.login(ctx, s, baseURL, key, insecure)
		return c, config.KeyKind(tidyKey(key)), err
	}
	opts.SaveSenders = func(lines []string) error {
		return s.updateProfile(func(p *config.Profile) error { p.Senders = lines; return nil })
	}
	if s.BaseURL != "" {
		if key, src, err := secrets.Get(s.ProfileName); err == nil {
			opts.KeyFromEnv = src == config.SourceEnv
			if c, err := app.NewClient(s.Paths, s.BaseURL, key, s.Profile, a.clientOptions()); err == nil {
				s.App.SignIn(c, key)
			}
		}
	}
	a.displaySettings(&opts, s.Config.Console)
	opts.SaveBidi = func(mode string) error {
		_, err := config.Update(s.Paths, func(c *config.Config) error { c.Console.Bidi = mode; return nil })
		return err
	}
	return a.env.Console(ctx, opts)
}

// displaySettings applies the [console] settings: bidi (auto resolved from
// the terminal's name), mouse, alternate screen and theme (auto asks the
// terminal for its background, before the program starts).
func (a *command) displaySettings(opts *console.Options, cs config.ConsoleSettings) {
	opts.BidiVisual = config.ResolveBidi(cs.Bidi, a.env.Getenv)
	opts.NoColor = a.noColor || a.env.Getenv("NO_COLOR") != "" // --no-color, or no-color.org: set and not empty
	opts.HomeDir = a.env.Getenv("HOME")
	if opts.HomeDir == "" {
		opts.HomeDir = a.env.Getenv("USERPROFILE") // Windows
	}
	switch term := a.env.Getenv("TERM"); {
	case a.env.Getenv("TMUX") != "":
		opts.Multiplexer = "tmux"
	case a.env.Getenv("STY") != "", strings.HasPrefix(term, "screen"):
		opts.Multiplexer = "screen"
	}
	opts.NoMouse = !cs.MouseOn()
	opts.NoAltScreen = !cs.AltScreenOn()
	opts.Theme = cs.Theme
	if opts.Theme == "" || opts.Theme == "auto" {
		opts.Theme = "dark"
		in, inOK := a.env.Stdin.(*os.File)
		out, outOK := a.env.Stdout.(*os.File)
		if inOK && outOK && !lipgloss.HasDarkBackground(in, out) {
			opts.Theme = "light"
		}
	}
}

// runDemo starts the sandbox in-process with its seed data and opens the console
// on it, with config and state in a temporary directory: nothing is written to
// the operator's config, state or keyring.
func (a *command) runDemo(ctx context.Context) error {
	dir, err := os.MkdirTemp("", "smsdesk-demo-")
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	defer os.RemoveAll(dir)
	srv, err := sandbox.New(sandbox.Options{Seed: true, RatePerMinute: 600})
	if err != nil {
		return fmt.Errorf("demo: starting the sandbox: %w", err)
	}
	defer srv.Close()
	baseURL, err := srv.Start("127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("demo: starting the sandbox: %w", err)
	}
	paths := config.PathsIn(filepath.Join(dir, "config"), filepath.Join(dir, "state"))
	prof := &config.Profile{Name: "demo", BaseURL: baseURL, Senders: srv.Senders(), RatePerMinute: 600}
	if len(prof.Senders) > 0 {
		prof.Sender = prof.Senders[0]
	}
	cfg := &config.Config{Active: "demo", Profiles: map[string]*config.Profile{"demo": prof}}
	for _, g := range srv.Groups() {
		if err := config.TrackGroup(paths, "demo", g); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
	}
	a.retries = make(chan client.RetryEvent, 8)
	c, err := app.NewClient(paths, baseURL, srv.Key(), prof, a.clientOptions())
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	// The demo is a session like any other, its state in the temporary
	// directory: sends are journaled, history and resume work as they do
	// for real, and nothing is left behind.
	sess := &app.Session{Profile: app.ResolveProfile("demo", baseURL, prof, ""), Paths: paths, Now: a.env.Now, Sleep: a.env.Sleep}
	sess.SignIn(c, srv.Key())
	opts := console.Options{
		Session: sess, StateDir: paths.StateDir, Retries: a.retries, Demo: true, Logger: a.logger(),
		// The demo's profile lives in its temporary directory.
		SaveSenders: func(lines []string) error { prof.Senders = lines; return cfg.Save(paths) },
	}
	// The operator's display settings apply (read only: the demo writes
	// nothing of the operator's; B lasts the session).
	a.displaySettings(&opts, config.ConsoleSettings{})
	if userPaths, err := a.paths(); err == nil {
		if userCfg, err := config.Load(userPaths); err == nil {
			a.displaySettings(&opts, userCfg.Console)
		}
	}
	return a.env.Console(ctx, opts)
}
