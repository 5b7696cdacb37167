package cli

// doctor's checks of the rules, the proxy, the clock, the terminal and the
// files (doctor.go runs them).

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/charmbracelet/colorprofile"
	"golang.org/x/term"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// doctorRules shows the profile's quiet hours and opt-out suffix: a live
// key without quiet hours is worth knowing (operators fine or block a line
// that sends at night).
func doctorRules(name string, prof *config.Profile, key string, haveKey bool, now time.Time) []finding {
	var out []finding
	loc, lerr := prof.Location()
	q, qerr := prof.Quiet()
	switch {
	case lerr != nil:
		out = append(out, finding{"quiet hours", "fail", "timezone: " + lerr.Error(), "smsdesk --profile " + name + " config set timezone " + model.DefaultTimezone})
	case qerr != nil:
		out = append(out, finding{"quiet hours", "fail", qerr.Error(), "smsdesk --profile " + name + " config set quiet_hours 22:00-08:00"})
	case q.On:
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
func (f *Factory) doctorClock(check, parent context.Context, baseURL string) []finding {
	req, err := http.NewRequestWithContext(check, http.MethodHead, baseURL, nil)
	if err != nil {
		return nil
	}
	hc := &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	sent := f.now()
	resp, err := hc.Do(req)
	if err != nil {
		if e := f.noAnswer(err, check, parent, baseURL); e != err {
			return []finding{{Check: "clock", Status: "warn", Detail: "not compared: " + cleanError(e)}}
		}
		return []finding{{Check: "clock", Status: "warn", Detail: "not compared: the service did not answer (" + cleanError(err) + ")"}}
	}
	_ = resp.Body.Close() // only its Date header was read
	got := f.now()
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

// doctorTerminal describes the terminal the console would draw on: stdout
// (out), and the environment (getenv).
func doctorTerminal(out io.Writer, getenv func(string) string) finding {
	termName := getenv("TERM")
	var parts []string
	if f, ok := out.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if w, h, err := term.GetSize(int(f.Fd())); err == nil {
			parts = append(parts, fmt.Sprintf("%d×%d", w, h))
			if w < 80 || h < 23 {
				return finding{Check: "terminal", Status: "warn", Detail: fmt.Sprintf("%d×%d, TERM=%s", w, h, termName),
					Fix: "the console needs at least 80×23"}
			}
		}
	} else {
		parts = append(parts, "stdout is not a terminal")
	}
	parts = append(parts, "TERM="+termName)
	colours := map[colorprofile.Profile]string{colorprofile.TrueColor: "true colour", colorprofile.ANSI256: "256 colours",
		colorprofile.ANSI: "16 colours", colorprofile.ASCII: "no colours", colorprofile.NoTTY: "no colours"}
	prof := colorprofile.Env(environOf(getenv, "TERM", "COLORTERM", "CLICOLOR", "CLICOLOR_FORCE"))
	if getenv("NO_COLOR") != "" {
		parts = append(parts, "NO_COLOR set")
	} else {
		parts = append(parts, colours[prof])
	}
	if termName == "dumb" || termName == "" {
		return finding{Check: "terminal", Status: "warn", Detail: strings.Join(parts, ", "),
			Fix: "the console needs a full terminal; the command line works anywhere"}
	}
	return finding{Check: "terminal", Status: "ok", Detail: strings.Join(parts, ", ")}
}

// doctorFiles checks that secrets and state are private: files 0600,
// directories 0700, as smsdesk creates them.
func doctorFiles(paths config.Paths) []finding {
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
