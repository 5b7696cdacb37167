package cli

import (
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
	"github.com/smsdesk/smsdesk/ui/app"
)

// `smsdesk doctor` checks this machine's setup for the profile in use and
// explains each finding with its fix: one line each, ✓ fine, ! worth knowing,
// ✗ broken (exit 1).

// finding is one line of the doctor's report.
type finding struct {
	Check  string `json:"check"`
	Status string `json:"status"` // ok, warn, fail
	Detail string `json:"detail"`
	Fix    string `json:"fix"` // "" (null under --json) when there is nothing to do
}

// MarshalJSON writes no fix as null, as absent values are under --json.
func (f finding) MarshalJSON() ([]byte, error) {
	return marshalJSON(struct {
		Check  string  `json:"check"`
		Status string  `json:"status"`
		Detail string  `json:"detail"`
		Fix    *string `json:"fix"`
	}{f.Check, f.Status, f.Detail, nullable(f.Fix)})
}

// maxClockSkew is how far this machine's clock may be from the service's
// before doctor warns (journals, repeat windows and Retry-After dates use it).
const maxClockSkew = time.Minute

// doctorOptions are what doctor was asked.
type doctorOptions struct {
	f    *Factory
	IO   *IOStreams
	JSON bool
}

func newCmdDoctor(f *Factory, runF func(context.Context, *doctorOptions) error) *cobra.Command {
	o := &doctorOptions{f: f, IO: f.IO}
	if runF == nil {
		runF = doctorRun
	}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the config, ledger, profile, key, service, clock, rate budget, terminal and file permissions",
		Long: `Checks, for the profile in use: the config file and its profiles, the
ledger (where it is, its schema and integrity; gone or damaged is ✗), the
system keyring, the stored key (accepted by the service's API, as login checks
it), the base URL, proxy variables, this machine's clock against the service's,
the rate budget, the terminal, and the permissions of smsdesk's files. Each line
is ✓, ! (worth knowing) or ✗ with the fix. Exit 1 when anything is ✗.`,
		Example: "  smsdesk doctor\n  smsdesk --profile test doctor --json",
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, args []string) error { return runF(cmd.Context(), o) },
	}
	addJSONFlag(cmd, &o.JSON, "print [{check, status, detail, fix}]", doctorFields, "smsdesk doctor --json=check,status")
	return cmd
}

// doctorRun runs every check and prints each finding: exit 1 when any
// failed.
func doctorRun(ctx context.Context, o *doctorOptions) error {
	fs := o.checks(ctx)
	if o.JSON {
		if err := printJSON(o.IO.Out, fs); err != nil {
			return err
		}
	} else {
		for _, f := range fs {
			mark := map[string]string{"ok": "✓", "warn": "!", "fail": "✗"}[f.Status]
			printf(o.IO.Out, "%s %-11s %s\n", mark, f.Check, f.Detail)
			if f.Fix != "" {
				printf(o.IO.Out, "  %-11s → %s\n", "", f.Fix)
			}
		}
	}
	var failed []string
	for _, f := range fs {
		if f.Status == "fail" {
			failed = append(failed, f.Check)
		}
	}
	switch {
	case len(failed) == 0:
		return nil
	case o.JSON: // stdout has the checks; stderr the error object
		return withKind(ExitService, "check", fmt.Errorf("%d check(s) failed: %s", len(failed), strings.Join(failed, ", ")))
	}
	return withCode(ExitService, errSilent)
}

// findings are a doctor's report as it is written.
type findings []finding

func (fs *findings) add(check, status, detail, fix string) {
	*fs = append(*fs, finding{Check: check, Status: status, Detail: detail, Fix: fix})
}

// checks runs every check; a check that cannot run says why and the rest
// go on.
func (o *doctorOptions) checks(ctx context.Context) []finding {
	var out findings
	paths, cfg, ok := o.configChecks(&out)
	if !ok {
		return out
	}
	ledgerFound := o.f.doctorLedger(ctx, paths)
	out = append(out, ledgerFound...)
	// A ledger that does not open is said once: the opt-out count does not
	// open it again (a PostgreSQL that never answers cost a second bound).
	ledgerOpens := len(ledgerFound) == 0 || ledgerFound[0].Status != "fail"
	name, prof, ok := o.profileCheck(&out, cfg)
	if !ok {
		return append(out, doctorFiles(paths)...)
	}
	secrets := o.f.secrets(paths)
	out = append(out, doctorKeyring(secrets))
	baseURL := firstNonEmpty(o.f.baseURLFlag, o.f.Getenv("SMSDESK_BASE_URL"), prof.BaseURL)
	out = append(out, doctorBaseURL(baseURL, name))
	out = append(out, doctorProxy(o.f.Getenv)...)
	// The checks that ask the service share one bound, as status's does:
	// one attempt each, and a service that takes the connection and never
	// answers is said within 3 s all told, not after a wait per check.
	nctx, cancel := o.f.checkContext(ctx)
	defer cancel()
	key, src, kerr := secrets.Get(name)
	var c *client.Client
	switch {
	case kerr != nil:
		out.add("key", "fail", cleanError(kerr), "smsdesk login --profile "+name)
	case baseURL != "":
		c = o.keyCheck(&out, nctx, ctx, keyToCheck{paths: paths, name: name, prof: prof, baseURL: baseURL, key: key, src: src})
	}
	if baseURL != "" {
		out = append(out, o.f.doctorClock(nctx, ctx, baseURL)...)
	}
	out = append(out, doctorRules(name, prof, key, kerr == nil, o.f.now())...)
	switch {
	case c != nil && !ledgerOpens:
		out.add("opt-outs", "fail", "not counted: the ledger does not open (above)", "")
	case c != nil:
		out = append(out, doctorOptOuts(ctx, paths))
	}
	if c != nil {
		if r := newRateReport(c.RateStatus()); r != nil {
			out.add("rate", "ok", r.text(), "")
		}
	}
	out = append(out, doctorTerminal(o.IO.Out, o.f.Getenv))
	return append(out, doctorFiles(paths)...)
}

// configChecks finds smsdesk's directories and reads the config file;
// ok false when nothing more can be checked.
func (o *doctorOptions) configChecks(out *findings) (paths config.Paths, cfg *config.Config, ok bool) {
	paths, err := o.f.paths()
	if err != nil {
		out.add("config", "fail", "cannot find smsdesk's directories: "+err.Error(), "set SMSDESK_CONFIG_DIR and SMSDESK_STATE_DIR")
		return paths, nil, false
	}
	cfg, err = config.Load(paths)
	switch {
	case err != nil:
		out.add("config", "fail", cleanError(err), "fix or move aside "+paths.ConfigFile)
		return paths, nil, false
	case fileExists(paths.ConfigFile):
		out.add("config", "ok", paths.ConfigFile+" read", "")
	default:
		out.add("config", "warn", "no config file yet ("+paths.ConfigFile+")", "smsdesk login --profile NAME --base-url URL creates it")
	}
	for _, w := range cfg.Warnings {
		out.add("config", "warn", w, "")
	}
	return paths, cfg, true
}

// profileCheck names the profile in use and how it was chosen; ok false
// when none resolves.
func (o *doctorOptions) profileCheck(out *findings, cfg *config.Config) (name string, prof *config.Profile, ok bool) {
	envProfile := o.f.Getenv(config.EnvProfile)
	name, prof, err := cfg.Resolve(o.f.profileFlag, envProfile)
	if err != nil {
		out.add("profile", "fail", err.Error(), "smsdesk profiles list; smsdesk profiles use NAME")
		return name, nil, false
	}
	if prof == nil {
		prof = &config.Profile{Name: name}
	}
	how := "active"
	switch {
	case o.f.profileFlag != "":
		how = "from --profile"
	case envProfile != "":
		how = "from SMSDESK_PROFILE"
	case cfg.Active == "":
		how = "the default"
	}
	out.add("profile", "ok", fmt.Sprintf("%s (%s; %d profile(s) in the file)", name, how, len(cfg.Names())), "")
	return name, prof, true
}

// doctorKeyring says whether the system keyring answers.
func doctorKeyring(secrets *config.Secrets) finding {
	err := secrets.ProbeKeyring()
	if err == nil {
		return finding{"keyring", "ok", "the system keyring answers", ""}
	}
	why := cleanError(err)
	var ke *config.KeyringError
	if errors.As(err, &ke) && ke.Reason != "" {
		why = ke.Reason
	}
	return finding{"keyring", "warn", "not available: " + why, "export SMSDESK_API_KEY, or `smsdesk login --insecure-storage` (a 0600 file)"}
}

// doctorBaseURL checks the base URL in force.
func doctorBaseURL(baseURL, name string) finding {
	if baseURL == "" {
		return finding{"base URL", "fail", "no base URL for profile " + name, "smsdesk login --profile " + name + " --base-url URL"}
	}
	u, err := url.Parse(baseURL)
	switch {
	case err != nil || u.Host == "":
		return finding{"base URL", "fail", fmt.Sprintf("%q is not a URL", model.RedactURLs(baseURL)), "smsdesk config set base_url https://host/api/v1"}
	case u.User != nil:
		return finding{"base URL", "fail", model.RedactURLs(baseURL) + " holds a user name or password", "write it without them: the key is given separately (smsdesk config set base_url https://host/api/v1)"}
	}
	return finding{"base URL", "ok", baseURL, ""}
}

// keyToCheck is the key in force and where it is to be checked.
type keyToCheck struct {
	paths         config.Paths
	name, baseURL string
	prof          *config.Profile
	key           string
	src           config.Source
}

// keyCheck asks the service's API whether it accepts the key, as login
// does (check bounds it, parent is the command's); the client it built,
// nil when none could be.
func (o *doctorOptions) keyCheck(out *findings, check, parent context.Context, k keyToCheck) *client.Client {
	c, err := o.f.newClient(k.paths, k.baseURL, k.key, k.prof)
	if err != nil {
		out.add("key", "fail", cleanError(err), "check the base URL: plain http only to loopback unless allow_insecure_http")
		return nil
	}
	_, verr := o.f.verifyKey(check, c, k.baseURL, k.key, k.prof, k.paths)
	err = o.f.noAnswer(verr, check, parent, k.baseURL)
	what := fmt.Sprintf("%s from %s", config.Fingerprint(k.key), k.src)
	switch {
	case err == nil:
		out.add("key", "ok", what+", accepted by the service's API", "")
	case errors.Is(err, client.ErrUnauthorized), errors.Is(err, client.ErrForbidden):
		out.add("key", "fail", what+": refused: "+cleanError(err), "smsdesk login --profile "+k.name+" with a key the provider's panel shows")
	case errors.Is(err, client.ErrNotProved) && exitCode(err) == ExitService:
		out.add("key", "warn", what+": not refused, but not accepted either: "+model.SanitizeLine(err.Error()), hintOr(err, "check the base URL"))
	case errors.Is(err, client.ErrNotAPI), errors.Is(err, client.ErrNotProved):
		out.add("key", "fail", what+": not checked: "+model.SanitizeLine(err.Error()), hintOr(err, "check the base URL"))
	default:
		out.add("key", "fail", what+": not checked: "+cleanError(err), "check the base URL and that the service is up (smsdesk status)")
	}
	if w := k.src.Warning(); w != "" {
		out.add("key", "warn", w, "")
	}
	return c
}

// doctorOptOuts counts the opt-out list through ui/app (a damaged one
// stops every send: ✗).
func doctorOptOuts(ctx context.Context, paths config.Paths) finding {
	n, err := app.CountOptOuts(ctx, paths)
	if err != nil {
		return finding{"opt-outs", "fail", cleanError(err), ""}
	}
	return finding{"opt-outs", "ok", fmt.Sprintf("%d number(s) on the opt-out list (smsdesk optout list)", n), ""}
}
