package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// statusOptions are what status was asked.
type statusOptions struct {
	f    *Factory
	IO   *IOStreams
	JSON bool
}

func newCmdStatus(f *Factory, runF func(context.Context, *statusOptions) error) *cobra.Command {
	o := &statusOptions{f: f, IO: f.IO}
	if runF == nil {
		runF = statusRun
	}
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
		RunE:    func(cmd *cobra.Command, args []string) error { return runF(cmd.Context(), o) },
	}
	addJSONFlag(cmd, &o.JSON, "print the status as JSON", statusFields, "smsdesk status --json=accepted,service_error   # a health check's two keys")
	return cmd
}

// statusRun shows the profile, the service and the key, asking the
// service once whether it accepts the key.
func statusRun(ctx context.Context, o *statusOptions) error {
	s, err := o.f.local()
	if err != nil {
		return err
	}
	st := statusReport{Profile: s.ProfileName, BaseURL: model.RedactURLs(s.BaseURL)}
	// failure is why the key is not accepted, with the exit code the
	// README's table gives it: 4 for a key missing or refused (as every
	// other command), 2 for a base URL missing or refused here, else 1.
	var failure error
	key, src, kerr := o.f.secrets(s.Paths).Get(s.ProfileName)
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
		failure = o.check(ctx, s, key, &st)
	}
	if o.JSON {
		if err := printJSON(o.IO.Out, st); err != nil {
			return err
		}
	} else {
		st.print(o.IO.Out)
	}
	switch {
	case st.Accepted:
		return nil
	case o.JSON:
		return failure // stdout has the status; stderr the error object
	}
	return &ExitError{Code: exitCode(failure), Kind: errorKind(failure), Err: errSilent} // printed above
}

// check asks the service whether it accepts key (one attempt, bounded:
// status says what it sees now; a dead service is reported within
// checkTimeout, not after retry_for of retries), and reads its credit and
// request budget; it returns why the key is not accepted.
func (o *statusOptions) check(ctx context.Context, s *session, key string, st *statusReport) error {
	c, err := o.f.newClient(s.Paths, s.BaseURL, key, s.Profile)
	if err != nil {
		st.ServiceError = err.Error()
		return usageError("%w", err)
	}
	start := time.Now()
	vctx, cancel := o.f.checkContext(ctx)
	proof, verr := o.f.verifyKey(vctx, c, s.BaseURL, key, s.Profile, s.Paths)
	err = o.f.noAnswer(verr, vctx, ctx, s.BaseURL)
	cancel()
	st.CheckMillis, st.checked = time.Since(start).Milliseconds(), true
	defer func() { st.Rate = newRateReport(c.RateStatus()) }()
	if err != nil {
		st.ServiceError = cleanError(err)
		st.unproved = errors.Is(err, client.ErrNotProved) && exitCode(err) == ExitService
		return err
	}
	st.Accepted = true
	switch {
	case proof.Credit != nil: // the key check read it: not asked twice
		st.Credit = creditReportOf(*proof.Credit)
	case !proof.NoCredit:
		st.Credit = creditReportFrom(ctx, c)
	}
	return nil
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
	Credit   *creditReport `json:"credit"`
	checked  bool          // the service was asked: CheckMillis is a measure
	unproved bool          // the key was not refused, but nothing answered 2xx as the API
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

// creditReportFrom asks the service for the account's credit: nil where the
// service has no such endpoint (404/405: the feature is off without noise).
func creditReportFrom(ctx context.Context, c *client.Client) *creditReport {
	cctx, cancel := context.WithTimeout(ctx, verifyTimeout)
	defer cancel()
	cr, err := app.AccountCredit(cctx, c)
	switch {
	case errors.Is(err, client.ErrNoCreditEndpoint):
		return nil
	case err != nil:
		return &creditReport{Error: cleanError(err)}
	}
	return creditReportOf(cr)
}

// creditReportOf is the credit as status reports it.
func creditReportOf(cr model.Credit) *creditReport {
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
	WindowSrc string `json:"window_source"` // "service", "documented" (the profile's minute) or "assumed" (a second: the limit announced, not its window)
	Remaining int    `json:"remaining"`     // requests that may start now; -1: unknown
}

func newRateReport(rs client.RateStatus) *rateReport {
	if rs.Limit <= 0 {
		return nil
	}
	r := &rateReport{Limit: rs.Limit, WindowSec: int(rs.Window / time.Second), PerMinute: rs.PerMinute(),
		Source: "profile", WindowSrc: "documented", Remaining: rs.Remaining}
	if rs.Learned {
		r.Source, r.WindowSrc = "service", "assumed"
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
		from = "as the service announced (its window not yet: a second assumed until a 429 shows more)"
	default:
		from = "as the service announced"
	}
	left := ""
	if r.Remaining >= 0 {
		left = fmt.Sprintf(" (%d left now)", r.Remaining)
	}
	return rs.Budget() + ", " + from + left
}

func (st statusReport) print(w io.Writer) {
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
	case st.unproved:
		fmt.Fprintf(w, "Check:     ! not refused, but not accepted either: %s (%d ms)\n", st.ServiceError, st.CheckMillis) // several lines; env.Stdout cleans them
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
