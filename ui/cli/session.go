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
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// session is everything a command needs to talk to the service for one profile.
type session struct {
	Paths       config.Paths
	Config      *config.Config
	ProfileName string
	Profile     *config.Profile
	BaseURL     string
	KeySource   config.Source
	Fingerprint string
	Client      *client.Client
	// Engine is the application layer opened on the profile (with its
	// client once the key is found); App is this terminal's session on it:
	// every flow (plan, send, resume, import, history, changes to groups
	// and contacts) goes through it.
	Engine *app.Engine
	App    *app.Session
}

// paths are smsdesk's files, from the environment smsdesk was given.
// They are found once per command: their ledger is opened once, on first
// use, and closed when Main returns.
func (a *command) paths() (config.Paths, error) {
	if a.pathsFound != nil {
		return *a.pathsFound, nil
	}
	p, err := config.PathsFromEnv(a.lookupEnv)
	if err != nil {
		return p, fmt.Errorf("finding smsdesk's directories: %w", err)
	}
	// The first use of the ledger may move an older smsdesk's state
	// directory into it: that is said once, on stderr, as it happens.
	// (Its lines are kept: stderr drops control characters itself.)
	p.OnUpgrade(func(report string) { fmt.Fprintln(a.env.Stderr, report) })
	a.pathsFound = &p
	return p, nil
}

// local loads paths, config and the resolved profile, without any key.
func (a *command) local() (*session, error) { return a.loadLocal(false) }

// localCreating is local for `login`: a profile named by --profile or
// $SMSDESK_PROFILE that does not exist yet is a new one (saved when the key
// is), not an error.
func (a *command) localCreating() (*session, error) { return a.loadLocal(true) }

func (a *command) loadLocal(create bool) (*session, error) {
	paths, err := a.paths()
	if err != nil {
		return nil, err
	}
	cfg, err := config.Load(paths)
	if err != nil {
		return nil, err
	}
	for _, w := range cfg.Warnings {
		printf(a.env.Stderr, "smsdesk: warning: %s\n", w)
	}
	name, prof, err := cfg.Resolve(a.profileFlag, a.env.Getenv(config.EnvProfile))
	if err != nil && create {
		if n := firstNonEmpty(a.profileFlag, a.env.Getenv(config.EnvProfile)); cfg.Profile(n) == nil && config.ValidateProfileName(n) == nil {
			name, prof, err = n, &config.Profile{Name: n}, nil
		}
	}
	if err != nil {
		return nil, usageError("%w", err)
	}
	if prof == nil {
		prof = &config.Profile{Name: name}
	}
	s := &session{Paths: paths, Config: cfg, ProfileName: name, Profile: prof}
	s.BaseURL = firstNonEmpty(a.baseURLFlag, a.env.Getenv("SMSDESK_BASE_URL"), prof.BaseURL)
	if err := a.open(s, ""); err != nil { // offline: no key asked for
		return nil, err
	}
	return s, nil
}

// open opens the application layer on the session's profile with key (""
// offline) and takes this terminal's session from it.
func (a *command) open(s *session, key string) error {
	// Every plan and every start reads the profile's settings again: a
	// serve, a scheduler or a console running for days obeys config set
	// from its next send.
	eng, err := app.Open(app.EngineOptions{Paths: s.Paths, ProfileName: s.ProfileName, Profile: s.Profile, BaseURL: s.BaseURL, Key: key, Client: a.clientOptions(),
		Settings: app.ProfileSettings(s.Paths, s.ProfileName)})
	if err != nil {
		return usageError("%w", err)
	}
	s.Engine, s.App, s.Client = eng, eng.Session(nil), eng.Client
	return nil
}

// secrets returns the secret store for this machine: one per run, so that a
// keyring that hangs costs its timeout once.
func (a *command) secrets(paths config.Paths) *config.Secrets {
	if a.secretStore == nil {
		a.secretStore = config.NewSecrets(paths, config.SystemKeyring(), config.WithLookupEnv(a.lookupEnv))
	}
	return a.secretStore
}

// lookupEnv reads the environment through Env.Getenv (empty counts as unset).
func (a *command) lookupEnv(k string) (string, bool) {
	v := a.env.Getenv(k)
	return v, v != ""
}

// session loads the profile, finds the key and builds a client.
func (a *command) session(ctx context.Context) (*session, error) {
	s, err := a.local()
	if err != nil {
		return nil, err
	}
	if s.BaseURL == "" {
		return nil, usageError("no service base URL for profile %q: pass --base-url URL, set SMSDESK_BASE_URL, or run `smsdesk login --base-url URL`", s.ProfileName)
	}
	key, src, err := a.secrets(s.Paths).Get(s.ProfileName)
	if err != nil {
		return nil, withKind(ExitAuth, "auth", err) // no key: exit 4, like a refused one
	}
	s.KeySource, s.Fingerprint = src, config.Fingerprint(key)
	if err := a.open(s, key); err != nil {
		return nil, err
	}
	return s, nil
}

// newClient builds a client with the profile's pacing and safety settings
// (app.NewClient), without the shared rate store unless extra adds it.
func (a *command) newClient(baseURL, key string, prof *config.Profile, extra ...client.Option) (*client.Client, error) {
	return app.NewClient(config.Paths{}, baseURL, key, prof, a.clientOptions(), extra...)
}

// clientOptions are what every client of this run carries: the user agent,
// the debug log, the clock and the retry notices.
func (a *command) clientOptions() app.ClientOptions {
	return app.ClientOptions{UserAgent: "smsdesk/" + Version, Logger: a.logger(), Now: a.env.Now, Sleep: a.env.Sleep, RetryNotify: a.retryNote}
}

// setupLogging opens the --debug log file in the state directory.
func (a *command) setupLogging() error {
	if !a.debug {
		return nil
	}
	path := filepath.Join(os.TempDir(), "smsdesk-demo-debug.log") // the demo writes nothing to the operator's state
	if !a.demo {
		paths, err := a.paths()
		if err != nil {
			return err
		}
		path = paths.DebugLog()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("creating state directory for the debug log: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("opening debug log: %w", err)
	}
	secrets := []string{}
	if k := a.env.Getenv("SMSDESK_API_KEY"); k != "" {
		secrets = append(secrets, k)
	}
	h := config.RedactingHandler(slog.NewTextHandler(f, &slog.HandlerOptions{Level: slog.LevelDebug}), secrets...)
	a.debugLogger = slog.New(h).With("pid", os.Getpid(), "started", time.Now().Format(time.RFC3339))
	a.logClose = f.Close
	fmt.Fprintf(a.env.Stderr, "smsdesk: debug log: %s\n", path)
	return nil
}

// saveProfile stores prof under the session's profile name (replacing it),
// makes it the active profile when none is, and writes the config file.
func (s *session) saveProfile(prof *config.Profile) error {
	return s.updateProfile(func(p *config.Profile) error { *p = *prof; return nil })
}

// updateProfile changes the session's profile as it is in the config file
// now, under the file's lock (config.Update): concurrent commands each keep
// what the others changed. The session sees the result.
func (s *session) updateProfile(fn func(*config.Profile) error) error {
	var fnErr error
	c, err := config.Update(s.Paths, func(c *config.Config) error {
		p := config.Profile{}
		if cur := c.Profiles[s.ProfileName]; cur != nil {
			p = *cur
		}
		if fnErr = fn(&p); fnErr != nil {
			return fnErr
		}
		p.Name = s.ProfileName
		if err := c.SetProfile(&p); err != nil {
			fnErr = usageError("%w", err)
			return fnErr
		}
		if c.Active == "" {
			return c.Use(s.ProfileName)
		}
		return nil
	})
	if fnErr != nil {
		return fnErr
	}
	if err != nil {
		return err
	}
	s.Config, s.Profile = c, c.Profiles[s.ProfileName]
	return nil
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// cleanError renders an error for people: sanitised, with the service's hint.
func cleanError(err error) string {
	msg := model.SanitizeLine(err.Error())
	if h := errorHint(err); h != "" {
		msg += "\n  → " + model.SanitizeLine(h)
	}
	return msg
}
