package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/ui/app"
)

// verifyTimeout bounds the harmless request that checks a key.
const verifyTimeout = 20 * time.Second

// checkTimeout bounds what status and doctor ask the service, all told: a
// dead service is said within 3 s of starting the command (the checks, and
// the process around them). Env.CheckTimeout replaces it in tests.
const checkTimeout = 2500 * time.Millisecond

// checkTimeout is the bound on status's and doctor's requests.
func (f *Factory) checkTimeout() time.Duration {
	if f.CheckTimeout > 0 {
		return f.CheckTimeout
	}
	return checkTimeout
}

// checkContext is parent bounded by checkTimeout, for one attempt: a check
// says what it sees now instead of retrying for retry_for.
func (f *Factory) checkContext(parent context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(client.RetryUntil(parent, f.now()), f.checkTimeout())
}

// noAnswer says in words why a check that ran out of its time failed: the
// client says "the caller's time ran out", and here the caller is the check
// and the service said nothing. Other errors, and a stop by the operator
// (parent ended), are returned as they are.
func (f *Factory) noAnswer(err error, check, parent context.Context, baseURL string) error {
	if err != nil && errors.Is(check.Err(), context.DeadlineExceeded) && parent.Err() == nil {
		return fmt.Errorf("no answer from %s within %s: is the service running, and is the base URL right?", hostOf(baseURL), f.checkTimeout())
	}
	return err
}

// verifyKey proves the key with c (app.ProveKey: a 2xx answer, with the
// profile's known groups too). When the base URL has no API behind it (a
// web page, or every probe answered 404), the form of it that answers as
// the API is named in the hint (exit 2). When none does and the key was
// not refused, the error is client.ErrNotProved (exit 1: the service could
// not tell), never a ✓.
func (f *Factory) verifyKey(ctx context.Context, c *client.Client, baseURL, key string, prof *config.Profile, paths config.Paths) (client.Proof, error) {
	kp, err := app.ProveKey(ctx, c, paths, prof, baseURL, key, f.clientOptions())
	notAPI, notProved := errors.Is(err, client.ErrNotAPI), errors.Is(err, client.ErrNotProved)
	switch {
	case !notAPI && !notProved:
		return kp.Proof, err
	case kp.Answering != "":
		return kp.Proof, &ExitError{Code: ExitUsage, Kind: "usage", Err: err,
			Hint: fmt.Sprintf("%s answers as the API: smsdesk login --base-url %s", kp.Answering, kp.Answering)}
	case notProved:
		return kp.Proof, &ExitError{Code: ExitService, Kind: "service", Err: err,
			Hint: fmt.Sprintf("check the base URL in the provider's documentation; %s did not answer as the API either", strings.Join(kp.Tried, ", "))}
	}
	return kp.Proof, &ExitError{Code: ExitUsage, Kind: "usage", Err: err,
		Hint: fmt.Sprintf("check the base URL in the provider's documentation; %s did not answer either", strings.Join(kp.Tried, ", "))}
}

// wrapKeep prefixes err's message and keeps its exit code and hint.
func wrapKeep(err error, format string, args ...any) error {
	var ee *ExitError
	if errors.As(err, &ee) {
		return &ExitError{Code: ee.Code, Kind: ee.Kind, Hint: ee.Hint, Details: ee.Details, Err: fmt.Errorf(format+": %w", append(args, ee.Err)...)}
	}
	return fmt.Errorf(format+": %w", append(args, err)...)
}

// loginOptions are what login was asked.
type loginOptions struct {
	f  *Factory
	IO *IOStreams
	// WithKey reads the key from stdin; Insecure stores it in a 0600 file.
	WithKey, Insecure bool
}

func newCmdLogin(f *Factory, runF func(context.Context, *loginOptions) error) *cobra.Command {
	o := &loginOptions{f: f, IO: f.IO}
	if runF == nil {
		runF = loginRun
	}
	cmd := &cobra.Command{
		Use:   "login",
		Short: "Store an API key for a profile (verified first)",
		Long: `Asks for the API key with a masked prompt (or reads it from stdin with
--with-key), checks it against the service with a harmless request, and stores it
in the system keyring. A key the service refuses is not stored.

On a machine without a keyring (a headless server, an SSH session without D-Bus)
either export SMSDESK_API_KEY for each session, or pass --insecure-storage to keep
the key in a 0600 file in smsdesk's config directory.

The key is never taken as a command-line argument: arguments end up in shell
history and in ps.`,
		Example: "  smsdesk login --base-url https://sms.example.com/v1\n  echo \"$KEY\" | smsdesk login --profile test --base-url https://sms.example.com/v1 --with-key   # creates profile test\n  smsdesk login --insecure-storage",
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, args []string) error { return runF(cmd.Context(), o) },
	}
	cmd.Flags().BoolVar(&o.WithKey, "with-key", false, "read the API key from standard input")
	cmd.Flags().BoolVar(&o.Insecure, "insecure-storage", false, "store the key in a plain-text 0600 file instead of the system keyring")
	return cmd
}

// loginRun asks for the base URL (when the profile has none) and the key,
// checks the key with the service and stores it (Factory.login).
func loginRun(ctx context.Context, o *loginOptions) error {
	s, err := o.f.localCreating()
	if err != nil {
		return err
	}
	created := s.Config.Profile(s.ProfileName) == nil
	if s.BaseURL == "" {
		if !o.IO.InIsTerminal || o.WithKey {
			return usageError("no base URL for profile %q: pass --base-url URL (e.g. https://sms.example.com/v1)", s.ProfileName)
		}
		u, err := prompt(ctx, o.IO.In, o.IO.Terminal(), "Service base URL: ", false)
		if err != nil {
			return usageError("login: %w", err)
		}
		s.BaseURL = strings.TrimSpace(u)
	}
	key, err := o.readKey(ctx)
	if err != nil {
		return err
	}
	start := time.Now()
	_, src, unproved, err := o.f.login(ctx, s, s.BaseURL, key, o.Insecure)
	if err != nil {
		return err
	}
	if unproved != nil {
		printf(o.IO.ErrOut, "! The service at %s did not refuse key %s, but %s (%d ms)\n", hostOf(s.BaseURL), config.Fingerprint(key),
			cleanError(unproved), time.Since(start).Milliseconds())
	} else {
		printf(o.IO.ErrOut, "✓ The service at %s accepted key %s (%d ms)\n", hostOf(s.BaseURL), config.Fingerprint(key), time.Since(start).Milliseconds())
	}
	if w := src.Warning(); w != "" {
		fmt.Fprintln(o.IO.ErrOut, "! "+w)
	}
	if o.f.secrets(s.Paths).FromEnvironment() {
		fmt.Fprintln(o.IO.ErrOut, "! SMSDESK_API_KEY is set in this environment and takes precedence over the stored key")
	}
	what := "profile " + s.ProfileName
	if created {
		what = "new profile " + s.ProfileName
	}
	if s.Config.Active == s.ProfileName {
		what += " (active)"
	}
	fmt.Fprintf(o.IO.ErrOut, "✓ Logged in: %s, key stored in %s\n", what, src)
	return nil
}

// login verifies key against the service at baseURL, stores it for the
// session's profile and saves the profile: the one path shared by `smsdesk
// login` and the console's setup screen. A key the service refuses is not stored.
//
// unproved, when not nil, says why the key was stored without a ✓: it was
// not refused, but nothing at the base URL (nor at its other documented
// forms) answered 2xx as the API.
func (f *Factory) login(ctx context.Context, s *session, baseURL, key string, insecure bool) (c *client.Client, src config.Source, unproved, err error) {
	key = tidyKey(key)
	c, err = f.newClient(config.Paths{}, baseURL, key, s.Profile)
	if err != nil {
		return nil, "", nil, usageError("%w", err)
	}
	vctx, cancel := context.WithTimeout(ctx, verifyTimeout)
	_, err = f.verifyKey(vctx, c, baseURL, key, s.Profile, s.Paths)
	cancel()
	var ee *ExitError
	if errors.Is(err, client.ErrNotProved) && errors.As(err, &ee) && ee.Code == ExitService {
		// Not refused, and no other form of the base URL answers: a
		// deployment without a 2xx probe (no credit endpoint, no group
		// known yet) looks the same as a wrong base URL. The key is
		// stored; login says what was not proved instead of a ✓.
		unproved = err
	} else if err != nil {
		return nil, "", nil, wrapKeep(err, "the key was not stored: the service at %s did not accept it", hostOf(baseURL))
	}
	src, err = f.secrets(s.Paths).Set(s.ProfileName, key, insecure)
	if err != nil {
		if errors.Is(err, config.ErrKeyringUnavailable) {
			return nil, "", nil, usageError("the key was not stored: %w", err)
		}
		return nil, "", nil, fmt.Errorf("the key was not stored: %w", err)
	}
	s.BaseURL = baseURL
	s.Profile.BaseURL = baseURL
	if err := s.saveProfile(s.Profile); err != nil {
		return nil, src, unproved, withCode(exitCode(err), fmt.Errorf("the key was stored, but the profile could not be saved: %w", err))
	}
	return c, src, unproved, nil
}

// tidyKey takes the key out of what operators paste from a panel or a
// script: surrounding space and quotes, an "Authorization:" or "Bearer "
// prefix, an "export SMSDESK_API_KEY=" assignment. A key is one word
// (sk_live_…, sk_test_…), so none of that can be part of it.
func tidyKey(s string) string {
	s = strings.TrimSpace(s)
	for {
		before := s
		for _, p := range []string{"export ", "SMSDESK_API_KEY=", "Authorization:", "Bearer "} {
			if len(s) >= len(p) && strings.EqualFold(s[:len(p)], p) {
				s = strings.TrimSpace(s[len(p):])
			}
		}
		if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
			s = strings.TrimSpace(s[1 : len(s)-1])
		}
		if s == before {
			return s
		}
	}
}

// readKey reads the API key from stdin (--with-key) or a masked prompt.
func (o *loginOptions) readKey(ctx context.Context) (string, error) {
	if o.WithKey {
		line, err := bufio.NewReader(o.IO.In).ReadString('\n')
		key := strings.TrimSpace(line)
		if key == "" {
			if err != nil {
				return "", usageError("--with-key: no key on standard input")
			}
			return "", usageError("--with-key: the first line of standard input is empty")
		}
		return key, nil
	}
	if !o.IO.InIsTerminal {
		return "", usageError("stdin is not a terminal: pipe the key with --with-key (e.g. `echo \"$KEY\" | smsdesk login --with-key`), or export SMSDESK_API_KEY")
	}
	key, err := prompt(ctx, o.IO.In, o.IO.Terminal(), "API key (input hidden): ", true)
	if err != nil {
		return "", usageError("login: %w", err)
	}
	key = strings.TrimSpace(key)
	if key == "" {
		return "", usageError("no key entered")
	}
	return key, nil
}

// logoutOptions are what logout was asked.
type logoutOptions struct {
	f  *Factory
	IO *IOStreams
}

func newCmdLogout(f *Factory, runF func(context.Context, *logoutOptions) error) *cobra.Command {
	o := &logoutOptions{f: f, IO: f.IO}
	if runF == nil {
		runF = logoutRun
	}
	return &cobra.Command{
		Use:   "logout",
		Short: "Remove the profile's stored API key (keyring and file) and its cached contacts",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return runF(cmd.Context(), o) },
	}
}

// logoutRun removes the profile's stored key and its cached contacts.
func logoutRun(_ context.Context, o *logoutOptions) error {
	s, err := o.f.local()
	if err != nil {
		return err
	}
	// The console's cached contact lists (names and numbers) go with the key.
	if err := app.ForgetCachedContacts(s.Paths, s.ProfileName); err != nil {
		fmt.Fprintln(o.IO.ErrOut, "! "+cleanError(err))
	}
	removed, err := o.f.secrets(s.Paths).Delete(s.ProfileName)
	for _, src := range removed {
		fmt.Fprintf(o.IO.ErrOut, "✓ Removed the key for profile %s from %s\n", s.ProfileName, src)
	}
	switch {
	case err != nil && len(removed) > 0 && errors.Is(err, config.ErrKeyringUnavailable):
		// On a box without a keyring this is always so: a note, not a failure.
		printf(o.IO.ErrOut, "note: %s\n", err)
	case err != nil:
		return err
	}
	if len(removed) == 0 {
		fmt.Fprintf(o.IO.ErrOut, "No stored key for profile %s\n", s.ProfileName)
	}
	if o.f.Getenv("SMSDESK_API_KEY") != "" {
		fmt.Fprintln(o.IO.ErrOut, "! SMSDESK_API_KEY is still set in this environment; unset it too")
	}
	return nil
}
