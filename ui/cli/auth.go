package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// verifyTimeout bounds the harmless request that checks a key.
const verifyTimeout = 20 * time.Second

// checkTimeout bounds what status and doctor ask the service, all told: a
// dead service is said within 3 s of starting the command (the checks, and
// the process around them). Env.CheckTimeout replaces it in tests.
const checkTimeout = 2500 * time.Millisecond

// checkTimeout is the bound on status's and doctor's requests.
func (a *command) checkTimeout() time.Duration {
	if a.env.CheckTimeout > 0 {
		return a.env.CheckTimeout
	}
	return checkTimeout
}

// checkContext is parent bounded by checkTimeout, for one attempt: a check
// says what it sees now instead of retrying for retry_for.
func (a *command) checkContext(parent context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(client.RetryUntil(parent, a.now()), a.checkTimeout())
}

// noAnswer says in words why a check that ran out of its time failed: the
// client says "the caller's time ran out", and here the caller is the check
// and the service said nothing. Other errors, and a stop by the operator
// (parent ended), are returned as they are.
func (a *command) noAnswer(err error, check, parent context.Context, baseURL string) error {
	if err != nil && errors.Is(check.Err(), context.DeadlineExceeded) && parent.Err() == nil {
		return fmt.Errorf("no answer from %s within %s: is the service running, and is the base URL right?", hostOf(baseURL), a.checkTimeout())
	}
	return err
}

// verifyKey checks the key with c (client.Verify). When the base URL has no
// API behind it, the other documented forms of it are tried (…/v1 and
// …/api/v1), and the one that answers as the API is named in the hint.
func (a *command) verifyKey(ctx context.Context, c *client.Client, baseURL, key string, prof *config.Profile) error {
	err := c.Verify(ctx)
	if !errors.Is(err, client.ErrNotAPI) {
		return err
	}
	for _, alt := range client.SiblingBaseURLs(baseURL) {
		ac, aerr := a.newClient(alt, key, prof)
		if aerr != nil || ac.Verify(ctx) != nil {
			continue
		}
		return &ExitError{Code: ExitUsage, Kind: "usage", Err: err,
			Hint: fmt.Sprintf("%s answers as the API: smsdesk login --base-url %s", alt, alt)}
	}
	return &ExitError{Code: ExitUsage, Kind: "usage", Err: err,
		Hint: "check the base URL in the provider's documentation; …/v1 and …/api/v1 did not answer either"}
}

// wrapKeep prefixes err's message and keeps its exit code and hint.
func wrapKeep(err error, format string, args ...any) error {
	var ee *ExitError
	if errors.As(err, &ee) {
		return &ExitError{Code: ee.Code, Kind: ee.Kind, Hint: ee.Hint, Details: ee.Details, Err: fmt.Errorf(format+": %w", append(args, ee.Err)...)}
	}
	return fmt.Errorf(format+": %w", append(args, err)...)
}

func (a *command) loginCommand() *cobra.Command {
	var withKey, insecure bool
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
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			s, err := a.localCreating()
			if err != nil {
				return err
			}
			created := s.Config.Profile(s.ProfileName) == nil
			if s.BaseURL == "" {
				if !a.env.StdinIsTerminal || withKey {
					return usageError("no base URL for profile %q: pass --base-url URL (e.g. https://sms.example.com/v1)", s.ProfileName)
				}
				u, err := prompt(ctx, a.env.Stdin, a.env.Stderr, "Service base URL: ", false)
				if err != nil {
					return usageError("login: %w", err)
				}
				s.BaseURL = strings.TrimSpace(u)
			}
			key, err := a.readKey(ctx, withKey)
			if err != nil {
				return err
			}
			start := time.Now()
			_, src, err := a.login(ctx, s, s.BaseURL, key, insecure)
			if err != nil {
				return err
			}
			printf(a.env.Stderr, "✓ The service at %s accepted key %s (%d ms)\n", hostOf(s.BaseURL), config.Fingerprint(key), time.Since(start).Milliseconds())
			if w := src.Warning(); w != "" {
				fmt.Fprintln(a.env.Stderr, "! "+w)
			}
			if a.secrets(s.Paths).FromEnvironment() {
				fmt.Fprintln(a.env.Stderr, "! SMSDESK_API_KEY is set in this environment and takes precedence over the stored key")
			}
			what := "profile " + s.ProfileName
			if created {
				what = "new profile " + s.ProfileName
			}
			if s.Config.Active == s.ProfileName {
				what += " (active)"
			}
			fmt.Fprintf(a.env.Stderr, "✓ Logged in: %s, key stored in %s\n", what, src)
			return nil
		},
	}
	cmd.Flags().BoolVar(&withKey, "with-key", false, "read the API key from standard input")
	cmd.Flags().BoolVar(&insecure, "insecure-storage", false, "store the key in a plain-text 0600 file instead of the system keyring")
	return cmd
}

// login verifies key against the service at baseURL, stores it for the
// session's profile and saves the profile: the one path shared by `smsdesk
// login` and the console's setup screen. A key the service refuses is not stored.
func (a *command) login(ctx context.Context, s *session, baseURL, key string, insecure bool) (*client.Client, config.Source, error) {
	key = tidyKey(key)
	c, err := a.newClient(baseURL, key, s.Profile)
	if err != nil {
		return nil, "", usageError("%w", err)
	}
	vctx, cancel := context.WithTimeout(ctx, verifyTimeout)
	err = a.verifyKey(vctx, c, baseURL, key, s.Profile)
	cancel()
	if err != nil {
		return nil, "", wrapKeep(err, "the key was not stored: the service at %s did not accept it", hostOf(baseURL))
	}
	src, err := a.secrets(s.Paths).Set(s.ProfileName, key, insecure)
	if err != nil {
		if errors.Is(err, config.ErrKeyringUnavailable) {
			return nil, "", usageError("the key was not stored: %w", err)
		}
		return nil, "", fmt.Errorf("the key was not stored: %w", err)
	}
	s.BaseURL = baseURL
	s.Profile.BaseURL = baseURL
	if err := s.saveProfile(s.Profile); err != nil {
		return nil, src, withCode(exitCode(err), fmt.Errorf("the key was stored, but the profile could not be saved: %w", err))
	}
	return c, src, nil
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
func (a *command) readKey(ctx context.Context, fromStdin bool) (string, error) {
	if fromStdin {
		line, err := bufio.NewReader(a.env.Stdin).ReadString('\n')
		key := strings.TrimSpace(line)
		if key == "" {
			if err != nil {
				return "", usageError("--with-key: no key on standard input")
			}
			return "", usageError("--with-key: the first line of standard input is empty")
		}
		return key, nil
	}
	if !a.env.StdinIsTerminal {
		return "", usageError("stdin is not a terminal: pipe the key with --with-key (e.g. `echo \"$KEY\" | smsdesk login --with-key`), or export SMSDESK_API_KEY")
	}
	key, err := prompt(ctx, a.env.Stdin, a.env.Stderr, "API key (input hidden): ", true)
	if err != nil {
		return "", usageError("login: %w", err)
	}
	key = strings.TrimSpace(key)
	if key == "" {
		return "", usageError("no key entered")
	}
	return key, nil
}

func (a *command) logoutCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "logout",
		Short: "Remove the profile's stored API key (keyring and file) and its cached contacts",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.local()
			if err != nil {
				return err
			}
			// The console's cached contact lists (names and numbers) go with the key.
			if err := config.ForgetCachedContacts(s.Paths, s.ProfileName); err != nil {
				fmt.Fprintln(a.env.Stderr, "! "+cleanError(err))
			}
			removed, err := a.secrets(s.Paths).Delete(s.ProfileName)
			for _, src := range removed {
				fmt.Fprintf(a.env.Stderr, "✓ Removed the key for profile %s from %s\n", s.ProfileName, src)
			}
			switch {
			case err != nil && len(removed) > 0 && errors.Is(err, config.ErrKeyringUnavailable):
				// On a box without a keyring this is always so: a note, not a failure.
				printf(a.env.Stderr, "note: %s\n", err)
			case err != nil:
				return err
			}
			if len(removed) == 0 {
				fmt.Fprintf(a.env.Stderr, "No stored key for profile %s\n", s.ProfileName)
			}
			if a.env.Getenv("SMSDESK_API_KEY") != "" {
				fmt.Fprintln(a.env.Stderr, "! SMSDESK_API_KEY is still set in this environment; unset it too")
			}
			return nil
		},
	}
}

func (a *command) statusCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show the profile, service and key in use, and whether the service accepts it",
		Long: `Shows the profile, the service and the key in use, and asks the service once
(within 3 s) whether its API accepts the key.

Exit codes: 0 accepted; 4 the key is missing or the service refused it (401);
2 no base URL, or none the program may use; 1 the service could not tell (not
reachable, no API at that base URL, an error). Under --json, stdout has the
status and stderr the error object.`,
		Example: "  smsdesk status\n  smsdesk --profile test status --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.local()
			if err != nil {
				return err
			}
			st := statusReport{Profile: s.ProfileName, BaseURL: s.BaseURL}
			// failure is why the key is not accepted, with the exit code the
			// README's table gives it: 4 for a key missing or refused (as every
			// other command), 2 for a base URL missing or refused here, else 1.
			var failure error
			key, src, kerr := a.secrets(s.Paths).Get(s.ProfileName)
			switch {
			case kerr != nil:
				st.KeyError = kerr.Error()
				failure = withKind(ExitAuth, "auth", kerr)
			case s.BaseURL == "":
				st.KeySource, st.Fingerprint = string(src), config.Fingerprint(key)
				st.KeyError = "no base URL: pass --base-url, set SMSDESK_BASE_URL or run `smsdesk login --base-url URL`"
				failure = usageError("%s", st.KeyError)
			default:
				st.KeySource, st.Fingerprint = string(src), config.Fingerprint(key)
				c, err := a.newClient(s.BaseURL, key, s.Profile, client.WithRateStore(config.NewRateState(s.Paths, s.BaseURL, key)))
				if err != nil {
					st.ServiceError = err.Error()
					failure = usageError("%w", err)
					break
				}
				start := time.Now()
				// One attempt, bounded: status says what it sees now; a dead
				// service is reported within checkTimeout, not after
				// retry_for of retries.
				vctx, cancel := a.checkContext(cmd.Context())
				err = a.noAnswer(a.verifyKey(vctx, c, s.BaseURL, key, s.Profile), vctx, cmd.Context(), s.BaseURL)
				cancel()
				st.CheckMillis, st.checked = time.Since(start).Milliseconds(), true
				if err != nil {
					st.ServiceError = cleanError(err)
					failure = err
				} else {
					st.Accepted = true
					st.Credit = a.creditReport(cmd.Context(), c)
				}
				st.Rate = newRateReport(c.RateStatus())
			}
			if asJSON {
				if err := printJSON(a.env.Stdout, st); err != nil {
					return err
				}
			} else {
				st.print(a)
			}
			switch {
			case st.Accepted:
				return nil
			case asJSON:
				return failure // stdout has the status; stderr the error object
			}
			return &ExitError{Code: exitCode(failure), Kind: errorKind(failure), Err: errSilent} // printed above
		},
	}
	addJSONFlag(cmd, &asJSON, "print the status as JSON", statusFields, "smsdesk status --json=accepted,service_error   # a health check's two keys")
	return cmd
}

// statusReport is what `smsdesk status` tells. Under --json what does not
// apply is null, never "" (README "JSON output"): MarshalJSON.
type statusReport struct {
	Profile      string      `json:"profile"`
	BaseURL      string      `json:"base_url"`        // "" (null) when there is none
	KeySource    string      `json:"key_source"`      // "" (null) when no key was found
	Fingerprint  string      `json:"key_fingerprint"` // "" (null) when no key was found
	KeyError     string      `json:"key_error"`       // why there is no key to check; "" (null): there is
	Accepted     bool        `json:"accepted"`
	ServiceError string      `json:"service_error"` // why the service did not accept it; "" (null) when it did, or was not asked
	CheckMillis  int64       `json:"check_ms"`      // null when the service was not asked
	Rate         *rateReport `json:"rate"`          // null until the service was asked
	// Credit is the account's credit where the service has the endpoint
	// (null elsewhere).
	Credit  *creditReport `json:"credit"`
	checked bool          // the service was asked: CheckMillis is a measure
}

// MarshalJSON writes the report with null for what does not apply.
func (st statusReport) MarshalJSON() ([]byte, error) {
	var ms *int64
	if st.checked {
		ms = &st.CheckMillis
	}
	return marshalJSON(struct {
		Profile      string        `json:"profile"`
		BaseURL      *string       `json:"base_url"`
		KeySource    *string       `json:"key_source"`
		Fingerprint  *string       `json:"key_fingerprint"`
		KeyError     *string       `json:"key_error"`
		Accepted     bool          `json:"accepted"`
		ServiceError *string       `json:"service_error"`
		CheckMillis  *int64        `json:"check_ms"`
		Rate         *rateReport   `json:"rate"`
		Credit       *creditReport `json:"credit"`
	}{st.Profile, nullable(st.BaseURL), nullable(st.KeySource), nullable(st.Fingerprint), nullable(st.KeyError), st.Accepted,
		nullable(st.ServiceError), ms, st.Rate, st.Credit})
}

// creditReport is GET /account/credit in `smsdesk status`; a figure the
// service did not give is null.
type creditReport struct {
	Parts *int64 `json:"sms_count"`
	Rial  *int64 `json:"rial"`
	Error string `json:"error"` // "" (null) when the service answered
}

// MarshalJSON writes the error as null when there is none.
func (r creditReport) MarshalJSON() ([]byte, error) {
	return marshalJSON(struct {
		Parts *int64  `json:"sms_count"`
		Rial  *int64  `json:"rial"`
		Error *string `json:"error"`
	}{r.Parts, r.Rial, nullable(r.Error)})
}

// creditReport asks the service for the account's credit: nil where the
// service has no such endpoint (404/405: the feature is off without noise).
func (a *command) creditReport(ctx context.Context, c *client.Client) *creditReport {
	cctx, cancel := context.WithTimeout(ctx, verifyTimeout)
	defer cancel()
	cr, err := c.Credit(cctx)
	switch {
	case errors.Is(err, client.ErrNoCreditEndpoint):
		return nil
	case err != nil:
		return &creditReport{Error: cleanError(err)}
	}
	r := &creditReport{}
	if cr.HasParts {
		r.Parts = &cr.Parts
	}
	if cr.HasRial {
		r.Rial = &cr.Rial
	}
	return r
}

// text reads like "1,234 SMS parts · 5,000,000 rial".
func (r *creditReport) text() string {
	if r.Error != "" {
		return "✗ " + r.Error
	}
	var out []string
	if r.Parts != nil {
		out = append(out, model.Thousands(*r.Parts)+" SMS parts")
	}
	if r.Rial != nil {
		out = append(out, model.Thousands(*r.Rial)+" rial")
	}
	return strings.Join(out, " · ")
}

// rateReport is the request budget in `smsdesk status`.
type rateReport struct {
	Limit     int    `json:"limit"`         // requests per window
	WindowSec int    `json:"window_s"`      // the window, in seconds
	PerMinute int    `json:"per_minute"`    // the same as a rate per minute
	Source    string `json:"source"`        // "service" (announced or learned) or "profile"
	WindowSrc string `json:"window_source"` // "service" or "documented" (a minute)
	Remaining int    `json:"remaining"`     // requests that may start now; -1: unknown
}

func newRateReport(rs client.RateStatus) *rateReport {
	if rs.Limit <= 0 {
		return nil
	}
	r := &rateReport{Limit: rs.Limit, WindowSec: int(rs.Window / time.Second), PerMinute: rs.PerMinute(),
		Source: "profile", WindowSrc: "documented", Remaining: rs.Remaining}
	if rs.Learned {
		r.Source = "service"
	}
	if rs.WindowLearned {
		r.WindowSrc = "service"
	}
	return r
}

// text says the budget for people: "20 per 2 s, as the service announced (19 left now)".
func (r *rateReport) text() string {
	rs := client.RateStatus{Limit: r.Limit, Window: time.Duration(r.WindowSec) * time.Second}
	var from string
	switch {
	case r.Source != "service" && r.WindowSrc != "service":
		from = "from the profile's rate_per_minute; the service has announced none"
	case r.WindowSrc != "service":
		from = "as the service announced (its window not yet: a minute assumed)"
	default:
		from = "as the service announced"
	}
	left := ""
	if r.Remaining >= 0 {
		left = fmt.Sprintf(" (%d left now)", r.Remaining)
	}
	return rs.Budget() + ", " + from + left
}

func (st statusReport) print(a *command) {
	w := a.env.Stdout
	fmt.Fprintf(w, "Profile:   %s\n", st.Profile)
	printf(w, "Service:   %s\n", orDash(st.BaseURL))
	if st.KeyError != "" && st.Fingerprint == "" {
		fmt.Fprintf(w, "Key:       none\n           %s\n", st.KeyError) // several lines; env.Stdout cleans them
		return
	}
	fmt.Fprintf(w, "Key:       %s (from %s)\n", st.Fingerprint, st.KeySource)
	switch {
	case st.KeyError != "":
		fmt.Fprintf(w, "Check:     %s\n", st.KeyError)
	case st.Accepted:
		fmt.Fprintf(w, "Check:     ✓ accepted by the service (%d ms)\n", st.CheckMillis)
	default:
		fmt.Fprintf(w, "Check:     ✗ %s (%d ms)\n", st.ServiceError, st.CheckMillis) // several lines; env.Stdout cleans them
	}
	if st.Rate != nil {
		fmt.Fprintf(w, "Rate:      %s\n", st.Rate.text())
	}
	if st.Credit != nil {
		fmt.Fprintf(w, "Credit:    %s\n", st.Credit.text())
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// hostOf returns the host of a base URL for messages.
func hostOf(base string) string {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return base // printed through printf or an error, which clean it
	}
	return u.Host
}
