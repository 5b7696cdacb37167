package cli

import (
	"context"

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

// local loads paths, config and the resolved profile, without any key.
func (f *Factory) local() (*session, error) { return f.loadLocal(false) }

// localCreating is local for `login`: a profile named by --profile or
// $SMSDESK_PROFILE that does not exist yet is a new one (saved when the key
// is), not an error.
func (f *Factory) localCreating() (*session, error) { return f.loadLocal(true) }

func (f *Factory) loadLocal(create bool) (*session, error) {
	paths, err := f.paths()
	if err != nil {
		return nil, err
	}
	cfg, err := config.Load(paths)
	if err != nil {
		return nil, err
	}
	for _, w := range cfg.Warnings {
		printf(f.IO.ErrOut, "smsdesk: warning: %s\n", w)
	}
	name, prof, err := cfg.Resolve(f.profileFlag, f.Getenv(config.EnvProfile))
	if err != nil && create {
		if n := firstNonEmpty(f.profileFlag, f.Getenv(config.EnvProfile)); cfg.Profile(n) == nil && config.ValidateProfileName(n) == nil {
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
	s.BaseURL = firstNonEmpty(f.baseURLFlag, f.Getenv("SMSDESK_BASE_URL"), prof.BaseURL)
	if err := f.open(s, ""); err != nil { // offline: no key asked for
		return nil, err
	}
	return s, nil
}

// open opens the application layer on the session's profile with key (""
// offline) and takes this terminal's session from it.
func (f *Factory) open(s *session, key string) error {
	// Every plan and every start reads the profile's settings again: a
	// serve, a scheduler or a console running for days obeys config set
	// from its next send.
	eng, err := app.Open(app.EngineOptions{Paths: s.Paths, ProfileName: s.ProfileName, Profile: s.Profile, BaseURL: s.BaseURL, Key: key, Client: f.clientOptions(),
		Settings: app.ProfileSettings(s.Paths, s.ProfileName)})
	if err != nil {
		return usageError("%w", err)
	}
	eng.Warn = f.warn
	s.Engine, s.App, s.Client = eng, eng.Session(nil), eng.Client
	return nil
}

// session loads the profile, finds the key and builds a client.
func (f *Factory) session(ctx context.Context) (*session, error) {
	s, err := f.local()
	if err != nil {
		return nil, err
	}
	if s.BaseURL == "" {
		return nil, usageError("no service base URL for profile %q: pass --base-url URL, set SMSDESK_BASE_URL, or run `smsdesk login --base-url URL`", s.ProfileName)
	}
	key, src, err := f.secrets(s.Paths).Get(s.ProfileName)
	if err != nil {
		return nil, withKind(ExitAuth, "auth", err) // no key: exit 4, like a refused one
	}
	s.KeySource, s.Fingerprint = src, config.Fingerprint(key)
	if err := f.open(s, key); err != nil {
		return nil, err
	}
	return s, nil
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
