package app

// Opening sessions: a face opens one engine (from a profile, on the demo
// sandbox, or for the served host) and takes a session from it per
// operator. What the engine holds is shared by every session taken from
// it: one client (one key, one rate budget), one state directory (journals,
// the repeat guard, the known groups, the audit record) and, on a server,
// one send tracker.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// Engine is what every session opened on it shares. Open, OpenDemo or (in
// tests) a literal makes one; Session gives each operator theirs:
//
//	eng, err := app.Open(app.EngineOptions{Paths: paths, ProfileName: name, Profile: prof, BaseURL: url, Key: key})
//	s := eng.Session(nil)  // this machine's own terminal
//	s := eng.Session(&op)  // an operator of smsdesk serve
type Engine struct {
	Profile Profile
	// Client is nil offline (no key, or no base URL).
	Client *client.Client
	Paths  config.Paths
	// Now and Sleep are the clocks every session uses (nil: real time).
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	// Tracker is the send tracker of a server (smsdesk serve), shared by
	// its sessions; set it before the first session is taken. Nil elsewhere.
	Tracker *SendTracker
	// Operators is a server's operators file as it is now: its operators'
	// sessions decide every action by it (Session.Operators). Nil elsewhere.
	Operators func() ([]config.OperatorEntry, error)
	// Settings reads the profile's settings as they are now: every
	// session's plans and starts are decided by them (Session.Settings).
	// Nil: Profile's settings hold.
	Settings func() (*config.Profile, error)
	// Demo: the engine runs on a built-in sandbox, its state in a
	// temporary directory that Close removes.
	Demo bool
	// Warn is every session's Warn (Session.Warn).
	Warn func(error)
	// Webhooks: the profile's webhook events are received (ReceiveEvent);
	// nil: they are refused as not configured.
	Webhooks *Webhooks

	close func()
	// demo is the demo's sandbox (OpenDemo), nil for any other engine.
	demo *sandbox.Server
}

// EngineOptions say which profile an engine is opened on.
type EngineOptions struct {
	Paths       config.Paths
	ProfileName string
	// Profile is the profile's settings (nil: the defaults).
	Profile *config.Profile
	// BaseURL is the service's (a flag or the environment may override the
	// profile's); "" is offline.
	BaseURL string
	// Key is the API key; "" is offline: sessions have no client until a
	// face signs one in (the console's setup screen).
	Key string
	// Client is what the face adds to the client (user agent, logger,
	// clocks, retry notices); its clocks are the sessions' too.
	Client ClientOptions
	// Tracker: see Engine.Tracker.
	Tracker *SendTracker
	// Settings: see Engine.Settings (ProfileSettings reads the config file
	// of Paths).
	Settings func() (*config.Profile, error)
}

// Open opens an engine on a profile: its settings read, and with a key and
// a base URL a client paced by the profile and sharing the request budget
// kept in the state directory with every other smsdesk on this key. An
// error is a client the settings do not allow (an http:// base URL without
// allow_insecure_http); nothing is asked of the service.
func Open(o EngineOptions) (*Engine, error) {
	e := &Engine{
		Profile: ResolveProfile(o.ProfileName, o.BaseURL, o.Profile, ""),
		Paths:   o.Paths, Now: o.Client.Now, Sleep: o.Client.Sleep, Tracker: o.Tracker, Settings: o.Settings,
	}
	if o.Key != "" && o.BaseURL != "" {
		c, err := NewClient(o.Paths, o.BaseURL, o.Key, o.Profile, o.Client)
		if err != nil {
			return nil, err
		}
		e.Client, e.Profile.KeyKind = c, config.KeyKind(o.Key)
	}
	return e, nil
}

// DemoProfile is the profile name of the demo engine.
const DemoProfile = "demo"

// OpenDemo opens an engine on a sandbox started in this process with its
// seed data, the profile "demo" and every seeded group tracked, its config
// and state in a new temporary directory: sends are journaled, history,
// resume and the audit record work as they do for real, and nothing is
// written to the operator's own config, state or keyring. Close stops the
// sandbox and removes the directory.
//
// With d.WebhookURL the sandbox posts its webhook events there, signed
// with a secret made for the demo, which the engine receives
// (ReceiveEvent), and StartDemoReplies has a recipient write back.
func OpenDemo(o ClientOptions, d DemoOptions) (*Engine, error) {
	sopts := sandbox.Options{Seed: true, RatePerMinute: 600}
	var hooks *Webhooks
	if d.WebhookURL != "" {
		secret, err := demoSecret()
		if err != nil {
			return nil, fmt.Errorf("demo: %w", err)
		}
		sopts.WebhookURL, sopts.WebhookSecret, hooks = d.WebhookURL, secret, &Webhooks{Secret: secret}
	}
	dir, err := os.MkdirTemp("", "smsdesk-demo-")
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	sb, err := sandbox.New(sopts)
	if err != nil {
		_ = os.RemoveAll(dir) // the demo's own temporary directory: nothing of the operator's
		return nil, fmt.Errorf("demo: starting the sandbox: %w", err)
	}
	// The demo's sandbox and temporary directory: nothing of the
	// operator's is in them, and what is left the system clears.
	cleanup := func() { _ = sb.Close(); _ = os.RemoveAll(dir) }
	e, err := openDemo(dir, sb, o)
	if err != nil {
		cleanup()
		return nil, fmt.Errorf("demo: %w", err)
	}
	e.close, e.Webhooks, e.demo = cleanup, hooks, sb
	return e, nil
}

func openDemo(dir string, sb *sandbox.Server, o ClientOptions) (*Engine, error) {
	baseURL, err := sb.Start("127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("starting the sandbox: %w", err)
	}
	paths := config.PathsIn(filepath.Join(dir, "config"), filepath.Join(dir, "state"))
	prof := &config.Profile{Name: DemoProfile, BaseURL: baseURL, Senders: sb.Senders(), RatePerMinute: 600}
	if len(prof.Senders) > 0 {
		prof.Sender = prof.Senders[0]
	}
	// The profile is written to the temporary config file: what the
	// console saves (sender lines) lands there, as it would for real.
	cfg := &config.Config{Active: DemoProfile, Profiles: map[string]*config.Profile{DemoProfile: prof}}
	if err := cfg.Save(paths); err != nil {
		return nil, err
	}
	for _, g := range sb.Groups() {
		if err := config.RememberCreatedGroup(paths, DemoProfile, g); err != nil { // the service's names
			return nil, err
		}
	}
	e, err := Open(EngineOptions{Paths: paths, ProfileName: DemoProfile, Profile: prof, BaseURL: baseURL, Key: sb.Key(), Client: o,
		Settings: ProfileSettings(paths, DemoProfile)})
	if err != nil {
		return nil, err
	}
	e.Demo = true
	return e, nil
}

// Close ends what the engine started (the demo's sandbox and temporary
// directory) and closes its ledger. Sessions taken from it must be done.
func (e *Engine) Close() {
	_ = e.Paths.CloseLedger()
	if e.close != nil {
		e.close()
		e.close = nil
	}
}

// Session is a session on the engine for op: nil is this machine's own
// terminal (everything allowed), else an operator of a served console (their
// role decides, their name is on their journals and audit records). Every
// session of an engine shares its client, state and tracker.
func (e *Engine) Session(op *model.Operator) *Session {
	s := &Session{Profile: e.Profile, Client: e.Client, Paths: e.Paths, Now: e.Now, Sleep: e.Sleep, Tracker: e.Tracker, Settings: e.Settings, Warn: e.Warn}
	if op != nil {
		o := *op
		s.Operator, s.Operators = &o, e.Operators
	}
	return s
}

// SaveSenders stores the profile's sender lines in the config file as it is
// now, under its lock (config.Update): the console's composer adds a line
// the operator agreed to. A profile the file does not have yet is added
// (and made active when none is).
func (e *Engine) SaveSenders(lines []string) error {
	if e.Paths.ConfigFile == "" {
		return errors.New("saving sender lines: no config file")
	}
	_, err := config.Update(e.Paths, func(c *config.Config) error {
		p := config.Profile{}
		if cur := c.Profiles[e.Profile.Name]; cur != nil {
			p = *cur
		}
		p.Name, p.Senders = e.Profile.Name, lines
		if err := c.SetProfile(&p); err != nil {
			return err
		}
		if c.Active == "" {
			return c.Use(p.Name)
		}
		return nil
	})
	return err
}
