package cli

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
)

// ConsoleOptions is what the interactive console is opened with.
type ConsoleOptions struct {
	Client      *client.Client // nil when there is no key yet: the console opens its setup screen
	Paths       config.Paths
	Config      *config.Config
	ProfileName string
	Profile     *config.Profile
	BaseURL     string
	Secrets     *config.Secrets
	KeyError    error  // why there is no client, for the setup screen
	KeyKind     string // "live" or "test" from the key's prefix, "" when unknown
	Demo        bool   // the console runs on the in-process sandbox
	Logger      *slog.Logger
	// Login verifies a key, stores it and saves the profile exactly as
	// `smsdesk login` does, for the setup screen. Nil in the demo.
	Login func(ctx context.Context, baseURL, key string, insecure bool) (*client.Client, error)
	// Retries carries the client's retry notices to the console's status bar.
	Retries <-chan client.RetryEvent
	// SaveSenders stores the profile's sender lines when the operator agreed,
	// in the composer, to add one.
	SaveSenders func(lines []string) error
}

// runConsole opens the interactive console: on the sandbox with --demo, else on
// the resolved profile (with the setup screen when no key is found).
func (a *app) runConsole(ctx context.Context) error {
	if a.env.Console == nil {
		return usageError("the console is not available in this build")
	}
	if !a.env.StdoutIsTerminal || !a.env.StdinIsTerminal {
		return usageError("the console needs a terminal; for scripts use the commands (see smsdesk --help)")
	}
	if a.demo {
		return a.runDemo(ctx)
	}
	s, err := a.local()
	if err != nil {
		return err
	}
	a.retries = make(chan client.RetryEvent, 8) // the console owns the terminal: no stderr lines
	opts := ConsoleOptions{
		Retries: a.retries,
		Paths:   s.Paths, Config: s.Config, ProfileName: s.ProfileName, Profile: s.Profile,
		BaseURL: s.BaseURL, Secrets: a.secrets(s.Paths), Logger: a.logger(),
	}
	opts.Login = func(ctx context.Context, baseURL, key string, insecure bool) (*client.Client, error) {
		c, _, err := a.login(ctx, s, baseURL, key, insecure)
		return c, err
	}
	opts.SaveSenders = func(lines []string) error {
		return s.updateProfile(func(p *config.Profile) error { p.Senders = lines; return nil })
	}
	if s.BaseURL != "" {
		key, _, err := opts.Secrets.Get(s.ProfileName)
		if err == nil {
			opts.KeyKind = config.KeyKind(key)
			opts.Client, err = a.newClient(s.BaseURL, key, s.Profile, client.WithRateStore(config.NewRateState(s.Paths, s.BaseURL, key)))
		}
		opts.KeyError = err
	}
	return a.env.Console(ctx, opts)
}

// runDemo starts the sandbox in-process with its seed data and opens the console
// on it, with config and state in a temporary directory: nothing is written to
// the operator's config, state or keyring.
func (a *app) runDemo(ctx context.Context) error {
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
	c, err := a.newClient(baseURL, srv.Key(), prof)
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	return a.env.Console(ctx, ConsoleOptions{
		Client: c, Paths: paths, Config: cfg, ProfileName: "demo", Profile: prof, Retries: a.retries,
		BaseURL: baseURL, Demo: true, Logger: a.logger(), KeyKind: config.KeyKind(srv.Key()),
		// No keyring and no environment: the demo must not read or write the
		// operator's secrets.
		Secrets: config.NewSecrets(paths, nil, config.WithLookupEnv(func(string) (string, bool) { return "", false })),
		// The demo's profile lives in its temporary directory.
		SaveSenders: func(lines []string) error { prof.Senders = lines; return cfg.Save(paths) },
	})
}
