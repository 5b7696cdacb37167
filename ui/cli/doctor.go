package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/charmbracelet/colorprofile"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
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

func (a *command) doctorCommand() *cobra.Command {
	var asJSON bool
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
		RunE: func(cmd *cobra.Command, args []string) error {
			fs := a.doctor(cmd.Context())
			if asJSON {
				if err := printJSON(a.IO.Out, fs); err != nil {
					return err
				}
			} else {
				for _, f := range fs {
					mark := map[string]string{"ok": "✓", "warn": "!", "fail": "✗"}[f.Status]
					printf(a.IO.Out, "%s %-11s %s\n", mark, f.Check, f.Detail)
					if f.Fix != "" {
						printf(a.IO.Out, "  %-11s → %s\n", "", f.Fix)
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
			case asJSON: // stdout has the checks; stderr the error object
				return withKind(ExitService, "check", fmt.Errorf("%d check(s) failed: %s", len(failed), strings.Join(failed, ", ")))
			}
			return withCode(ExitService, errSilent)
		},
	}
	addJSONFlag(cmd, &asJSON, "print [{check, status, detail, fix}]", doctorFields, "smsdesk doctor --json=check,status")
	return cmd
}

// doctor runs every check; a check that cannot run says why and the rest go on.
func (a *command) doctor(ctx context.Context) []finding {
	var out []finding
	add := func(check, status, detail, fix string) {
		out = append(out, finding{Check: check, Status: status, Detail: detail, Fix: fix})
	}
	paths, err := a.paths()
	if err != nil {
		add("config", "fail", "cannot find smsdesk's directories: "+err.Error(), "set SMSDESK_CONFIG_DIR and SMSDESK_STATE_DIR")
		return out
	}
	cfg, err := config.Load(paths)
	switch {
	case err != nil:
		add("config", "fail", cleanError(err), "fix or move aside "+paths.ConfigFile)
		return out
	case fileExists(paths.ConfigFile):
		add("config", "ok", paths.ConfigFile+" read", "")
	default:
		add("config", "warn", "no config file yet ("+paths.ConfigFile+")", "smsdesk login --profile NAME --base-url URL creates it")
	}
	for _, w := range cfg.Warnings {
		add("config", "warn", w, "")
	}
	out = append(out, a.doctorLedger(ctx, paths)...)

	name, prof, err := cfg.Resolve(a.profileFlag, a.Getenv(config.EnvProfile))
	if err != nil {
		add("profile", "fail", err.Error(), "smsdesk profiles list; smsdesk profiles use NAME")
		return append(out, a.doctorFiles(paths)...)
	}
	if prof == nil {
		prof = &config.Profile{Name: name}
	}
	how := "active"
	switch {
	case a.profileFlag != "":
		how = "from --profile"
	case a.Getenv(config.EnvProfile) != "":
		how = "from SMSDESK_PROFILE"
	case cfg.Active == "":
		how = "the default"
	}
	add("profile", "ok", fmt.Sprintf("%s (%s; %d profile(s) in the file)", name, how, len(cfg.Names())), "")

	secrets := a.secrets(paths)
	if err := secrets.ProbeKeyring(); err != nil {
		why := cleanError(err)
		var ke *config.KeyringError
		if errors.As(err, &ke) && ke.Reason != "" {
			why = ke.Reason
		}
		add("keyring", "warn", "not available: "+why, "export SMSDESK_API_KEY, or `smsdesk login --insecure-storage` (a 0600 file)")
	} else {
		add("keyring", "ok", "the system keyring answers", "")
	}

	baseURL := firstNonEmpty(a.baseURLFlag, a.Getenv("SMSDESK_BASE_URL"), prof.BaseURL)
	if baseURL == "" {
		add("base URL", "fail", "no base URL for profile "+name, "smsdesk login --profile "+name+" --base-url URL")
	} else if u, err := url.Parse(baseURL); err != nil || u.Host == "" {
		add("base URL", "fail", fmt.Sprintf("%q is not a URL", model.RedactURLs(baseURL)), "smsdesk config set base_url https://host/api/v1")
	} else if u.User != nil {
		add("base URL", "fail", model.RedactURLs(baseURL)+" holds a user name or password", "write it without them: the key is given separately (smsdesk config set base_url https://host/api/v1)")
	} else {
		add("base URL", "ok", baseURL, "")
	}
	out = append(out, doctorProxy(a.Getenv)...)

	key, src, kerr := secrets.Get(name)
	var c *client.Client
	// The checks that ask the service share one bound, as status's does:
	// one attempt each, and a service that takes the connection and never
	// answers is said within 3 s all told, not after a wait per check.
	nctx, cancel := a.checkContext(ctx)
	defer cancel()
	switch {
	case kerr != nil:
		add("key", "fail", cleanError(kerr), "smsdesk login --profile "+name)
	case baseURL == "":
	default:
		var err error
		c, err = a.newClient(baseURL, key, prof, client.WithRateStore(config.NewRateState(paths, baseURL, key)))
		if err != nil {
			add("key", "fail", cleanError(err), "check the base URL: plain http only to loopback unless allow_insecure_http")
			break
		}
		_, verr := a.verifyKey(nctx, c, baseURL, key, prof, paths)
		err = a.noAnswer(verr, nctx, ctx, baseURL)
		what := fmt.Sprintf("%s from %s", config.Fingerprint(key), src)
		switch {
		case err == nil:
			add("key", "ok", what+", accepted by the service's API", "")
		case errors.Is(err, client.ErrUnauthorized), errors.Is(err, client.ErrForbidden):
			add("key", "fail", what+": refused: "+cleanError(err), "smsdesk login --profile "+name+" with a key the provider's panel shows")
		case errors.Is(err, client.ErrNotProved) && exitCode(err) == ExitService:
			add("key", "warn", what+": not refused, but not accepted either: "+model.SanitizeLine(err.Error()), hintOr(err, "check the base URL"))
		case errors.Is(err, client.ErrNotAPI), errors.Is(err, client.ErrNotProved):
			add("key", "fail", what+": not checked: "+model.SanitizeLine(err.Error()), hintOr(err, "check the base URL"))
		default:
			add("key", "fail", what+": not checked: "+cleanError(err), "check the base URL and that the service is up (smsdesk status)")
		}
		if w := src.Warning(); w != "" {
			add("key", "warn", w, "")
		}
	}
	if baseURL != "" {
		out = append(out, a.doctorClock(nctx, ctx, baseURL)...)
	}
	out = append(out, a.doctorRules(name, prof, key, kerr == nil)...)
	if c != nil {
		out = append(out, doctorOptOuts(ctx, paths, c.AccountID())...)
	}
	if c != nil {
		if r := newRateReport(c.RateStatus()); r != nil {
			add("rate", "ok", r.text(), "")
		}
	}
	out = append(out, a.doctorTerminal()...)
	return append(out, a.doctorFiles(paths)...)
}

// doctorRules shows the profile's quiet hours and opt-out suffix: a live
// key without quiet hours is worth knowing (operators fine or block a line
// that sends at night).
func (a *command) doctorRules(name string, prof *config.Profile, key string, haveKey bool) []finding {
	var out []finding
	loc, lerr := prof.Location()
	q, qerr := prof.Quiet()
	switch {
	case lerr != nil:
		out = append(out, finding{"quiet hours", "fail", "timezone: " + lerr.Error(), "smsdesk --profile " + name + " config set timezone " + model.DefaultTimezone})
	case qerr != nil:
		out = append(out, finding{"quiet hours", "fail", qerr.Error(), "smsdesk --profile " + name + " config set quiet_hours 22:00-08:00"})
	case q.On:
		now := a.now()
		where := "now outside them; they begin at " + model.ClockText(q.NextStart(now, loc), now, loc)
		if q.Contains(now, loc) {
			where = "now inside them: sending may start at " + model.ClockText(q.AllowedFrom(now, loc), now, loc)
		}
		out = append(out, finding{"quiet hours", "ok", q.Text() + " " + loc.String() + " (" + where + ")", ""})
	case haveKey && config.KeyKind(key) == "live":
		out = append(out, finding{"quiet hours", "warn", "off on a profile with a live key: operators refuse, and fine, advertising sends at night (" + loc.String() + ")",
			"smsdesk --profile " + name + " config set quiet_hours 22:00-08:00"})
	default:
		out = append(out, finding{"quiet hours", "ok", "off (" + loc.String() + ")", ""})
	}
	if prof.OptOutSuffix != "" {
		out = append(out, finding{"suffix", "ok", "every message ends with the line " + prof.OptOutSuffix, ""})
	}
	return out
}

// doctorOptOuts counts the opt-out list (a damaged one stops
// every send: ✗).
func doctorOptOuts(ctx context.Context, paths config.Paths, _ string) []finding {
	n, err := config.CountOptOuts(ctx, paths)
	if err != nil {
		return []finding{{"opt-outs", "fail", cleanError(err), ""}}
	}
	return []finding{{"opt-outs", "ok", fmt.Sprintf("%d number(s) on the opt-out list (smsdesk optout list)", n), ""}}
}

// doctorProxy shows the proxy variables in force, without any password.
func doctorProxy(getenv func(string) string) []finding {
	var set []string
	for _, k := range []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy"} {
		v := getenv(k)
		if v == "" {
			continue
		}
		if u, err := url.Parse(v); err == nil && u.User != nil {
			u.User = url.User("…") // a proxy password never reaches the screen
			v = u.String()
		}
		set = append(set, k+"="+v)
	}
	if len(set) == 0 {
		return []finding{{Check: "proxy", Status: "ok", Detail: "no proxy variables set"}}
	}
	return []finding{{Check: "proxy", Status: "warn", Detail: strings.Join(set, " "),
		Fix: "requests to the service go through this proxy unless NO_PROXY names its host"}}
}

// doctorClock compares this machine's clock with the Date header of the
// service's answer to a request without the key; check bounds it (what is
// left of the doctor's time for the service), parent is the command's.
func (a *command) doctorClock(check, parent context.Context, baseURL string) []finding {
	req, err := http.NewRequestWithContext(check, http.MethodHead, baseURL, nil)
	if err != nil {
		return nil
	}
	hc := &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	sent := a.now()
	resp, err := hc.Do(req)
	if err != nil {
		if e := a.noAnswer(err, check, parent, baseURL); e != err {
			return []finding{{Check: "clock", Status: "warn", Detail: "not compared: " + cleanError(e)}}
		}
		return []finding{{Check: "clock", Status: "warn", Detail: "not compared: the service did not answer (" + cleanError(err) + ")"}}
	}
	resp.Body.Close()
	got := a.now()
	date, err := http.ParseTime(resp.Header.Get("Date"))
	if err != nil {
		return []finding{{Check: "clock", Status: "warn", Detail: "not compared: the service sent no Date header"}}
	}
	mid := sent.Add(got.Sub(sent) / 2)
	skew := mid.Sub(date)
	text := fmt.Sprintf("this machine's clock is %s from the service's (Date header; to the second)", skew.Abs().Round(time.Second))
	if skew.Abs() > maxClockSkew {
		return []finding{{Check: "clock", Status: "warn", Detail: text,
			Fix: "turn on time sync (timedatectl set-ntp true): send times, repeat windows and Retry-After dates use it"}}
	}
	return []finding{{Check: "clock", Status: "ok", Detail: text}}
}

// doctorTerminal describes the terminal the console would draw on.
func (a *command) doctorTerminal() []finding {
	termName := a.Getenv("TERM")
	var parts []string
	if f, ok := a.IO.Out.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if w, h, err := term.GetSize(int(f.Fd())); err == nil {
			parts = append(parts, fmt.Sprintf("%d×%d", w, h))
			if w < 80 || h < 23 {
				return []finding{{Check: "terminal", Status: "warn", Detail: fmt.Sprintf("%d×%d, TERM=%s", w, h, termName),
					Fix: "the console needs at least 80×23"}}
			}
		}
	} else {
		parts = append(parts, "stdout is not a terminal")
	}
	parts = append(parts, "TERM="+termName)
	colours := map[colorprofile.Profile]string{colorprofile.TrueColor: "true colour", colorprofile.ANSI256: "256 colours",
		colorprofile.ANSI: "16 colours", colorprofile.ASCII: "no colours", colorprofile.NoTTY: "no colours"}
	prof := colorprofile.Env(environOf(a.Getenv, "TERM", "COLORTERM", "CLICOLOR", "CLICOLOR_FORCE"))
	if a.Getenv("NO_COLOR") != "" {
		parts = append(parts, "NO_COLOR set")
	} else {
		parts = append(parts, colours[prof])
	}
	if termName == "dumb" || termName == "" {
		return []finding{{Check: "terminal", Status: "warn", Detail: strings.Join(parts, ", "),
			Fix: "the console needs a full terminal; the command line works anywhere"}}
	}
	return []finding{{Check: "terminal", Status: "ok", Detail: strings.Join(parts, ", ")}}
}

// doctorFiles checks that secrets and state are private: files 0600,
// directories 0700, as smsdesk creates them.
func (a *command) doctorFiles(paths config.Paths) []finding {
	var bad []string
	var fixes []string
	check := func(root string) {
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return nil
			}
			perm := info.Mode().Perm()
			switch {
			case d.IsDir() && perm&0o077 != 0:
				bad = append(bad, fmt.Sprintf("%s is %04o", path, perm))
				fixes = append(fixes, "chmod 700 "+shellQuote(path))
			case info.Mode().IsRegular() && perm&0o077 != 0:
				bad = append(bad, fmt.Sprintf("%s is %04o", path, perm))
				fixes = append(fixes, "chmod 600 "+shellQuote(path))
			}
			return nil
		})
	}
	for _, dir := range []string{paths.ConfigDir, paths.StateDir} {
		if fileExists(dir) {
			check(dir)
		}
	}
	if len(bad) == 0 {
		return []finding{{Check: "files", Status: "ok", Detail: "config and state are private (files 0600, directories 0700)"}}
	}
	detail := strings.Join(bad[:min(3, len(bad))], "; ")
	if len(bad) > 3 {
		detail += fmt.Sprintf("; and %d more", len(bad)-3)
	}
	fix := fixes[0]
	if len(fixes) > 1 {
		fix = "chmod -R go-rwx " + shellQuote(paths.ConfigDir) + " " + shellQuote(paths.StateDir)
	}
	return []finding{{Check: "files", Status: "fail", Detail: "readable by others: " + detail, Fix: fix}}
}

// environOf is the named variables of an environment read through Getenv
// (tests give their own), as "NAME=value" lines; unset ones are left out.
func environOf(getenv func(string) string, names ...string) []string {
	var env []string
	for _, n := range names {
		if v := getenv(n); v != "" {
			env = append(env, n+"="+v)
		}
	}
	return env
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// shellQuote quotes a path for a fix the operator may paste.
func shellQuote(s string) string {
	if !strings.ContainsAny(s, " '\"$`\\!*?;&|<>()[]{}#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// hintOr is err's hint (what to do next), else def.
func hintOr(err error, def string) string {
	if h := errorHint(err); h != "" {
		return model.SanitizeLine(h)
	}
	return def
}
