package cli

// The settings smsdesk config get, set and unset know: a profile's, and
// the console's [console] table, with how each is shown and read.

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// profileSetting is one setting `smsdesk config set/get` can change, named as
// in the config file. get is the profile's own value ("" when the file does
// not set it); def is what applies then.
type profileSetting struct {
	name string
	help string
	def  string
	get  func(p *config.Profile) string
	set  func(p *config.Profile, v string) error
}

// nonZero shows a number only when it is set (0 is "not set" in the file).
func nonZero[T int | int64](n T) string {
	if n == 0 {
		return ""
	}
	return strconv.FormatInt(int64(n), 10)
}

// onlyTrue shows a flag only when it is on (off is the default).
func onlyTrue(b bool) string {
	if !b {
		return ""
	}
	return "true"
}

var profileSettings = []profileSetting{
	{"base_url", "the service's base URL", "",
		func(p *config.Profile) string { return p.BaseURL },
		func(p *config.Profile, v string) error { p.BaseURL = v; return nil }},
	{"sender", "the default sender line", "",
		func(p *config.Profile) string { return p.Sender },
		func(p *config.Profile, v string) error { p.Sender = v; return nil }},
	{"senders", "the account's sender lines, comma-separated", "",
		func(p *config.Profile) string { return strings.Join(p.Senders, ",") },
		func(p *config.Profile, v string) error { p.Senders = splitList(v); return nil }},
	{"rate_per_minute", "requests per minute to pace to (default 60)", strconv.Itoa(config.DefaultRatePerMinute),
		func(p *config.Profile) string { return nonZero(p.RatePerMinute) },
		func(p *config.Profile, v string) error { return setInt(&p.RatePerMinute, v) }},
	{"chunk_size", "items per send-pair request (default 100)", strconv.Itoa(config.DefaultChunkSize),
		func(p *config.Profile) string { return nonZero(p.ChunkSize) },
		func(p *config.Profile, v string) error { return setInt(&p.ChunkSize, v) }},
	{"number_format", "local (09…) or e164 (+989…)", "local",
		func(p *config.Profile) string { return p.NumberFormat },
		func(p *config.Profile, v string) error { p.NumberFormat = v; return nil }},
	{"allow_insecure_http", "true to allow plain http to hosts other than loopback", "false",
		func(p *config.Profile) string { return onlyTrue(p.AllowInsecureHTTP) },
		func(p *config.Profile, v string) error { return setBool(&p.AllowInsecureHTTP, v) }},
	{"allow_international", "true to send to numbers outside Iran (default: Iranian mobiles only)", "false",
		func(p *config.Profile) string { return onlyTrue(p.AllowInternational) },
		func(p *config.Profile, v string) error { return setBool(&p.AllowInternational, v) }},
	{"retry_for", "how long a service that cannot be reached is tried again before giving up: 30s (default), 2m", config.DefaultRetryFor.String(),
		func(p *config.Profile) string { return p.RetryFor },
		func(p *config.Profile, v string) error {
			old := p.RetryFor
			p.RetryFor = v
			if _, err := p.Retry(); err != nil {
				p.RetryFor = old
				return err
			}
			return nil
		}},
	{"repeat_window", "how far back a send looks for pairs already accepted: 24h (default), 90m, 7d; 0 turns it off", "24h",
		func(p *config.Profile) string { return p.RepeatWindow },
		func(p *config.Profile, v string) error {
			if _, err := config.ParseWindow(v); err != nil {
				return err
			}
			p.RepeatWindow = v
			return nil
		}},
	{"timezone", "the IANA timezone times are shown and quiet hours read in: Asia/Tehran (default), UTC, Europe/Berlin", model.DefaultTimezone,
		func(p *config.Profile) string { return p.Timezone },
		func(p *config.Profile, v string) error {
			if _, err := model.LoadTimezone(v); err != nil {
				return err
			}
			p.Timezone = v
			return nil
		}},
	{"quiet_hours", "the daily window no send may start in, in the profile's timezone: 22:00-08:00 (may wrap past midnight), or off (default)", "off",
		func(p *config.Profile) string { return p.QuietHours },
		func(p *config.Profile, v string) error {
			q, err := model.ParseQuietHours(v)
			if err != nil {
				return err
			}
			p.QuietHours = q.String()
			if !q.On && v == "" {
				p.QuietHours = ""
			}
			return nil
		}},
	{"optout_suffix", "a line ending every message as sent, counted in its parts, such as لغو۱۱ (default: none)", "",
		func(p *config.Profile) string { return p.OptOutSuffix },
		func(p *config.Profile, v string) error {
			switch {
			case v == "":
				// A blank (config set optout_suffix "$SUFFIX" with SUFFIX
				// unset) would drop the line the regulator requires from
				// every message without a word: no suffix is said plainly.
				return errors.New(`blank: the suffix is a line such as لغو۱۱; to send without one, say so: smsdesk config set optout_suffix off (or config unset optout_suffix)`)
			case model.SuffixOff(v): // "off", as quiet_hours takes it: no suffix (not the word off on every message)
				v = ""
			}
			if err := model.CheckSuffix(v); err != nil {
				return err
			}
			p.OptOutSuffix = v
			return nil
		}},
	{"delivery_poll_after", "how long after its acceptance a message with no final delivery state is first polled for by a runner (serve, scheduler): 10m (default), 30m, 1h", config.DefaultDeliveryPollAfter.String(),
		func(p *config.Profile) string { return p.DeliveryPollAfter },
		func(p *config.Profile, v string) error { return setDeliveryDuration(&p.DeliveryPollAfter, v) }},
	{"delivery_unknown_after", "how long a message with no final delivery state is waited for before it is no_report: 120h (default), 5d", config.DefaultDeliveryUnknownAfter.String(),
		func(p *config.Profile) string { return p.DeliveryUnknownAfter },
		func(p *config.Profile, v string) error { return setDeliveryDuration(&p.DeliveryUnknownAfter, v) }},
	{"price_gsm7", "rial per SMS part of Latin (GSM-7) text, for the cost line (0: not set)", "0",
		func(p *config.Profile) string { return nonZero(p.PriceGSM7) },
		func(p *config.Profile, v string) error { return setInt64(&p.PriceGSM7, v) }},
	{"price_ucs2", "rial per SMS part of Persian (UCS-2) text, for the cost line (0: not set)", "0",
		func(p *config.Profile) string { return nonZero(p.PriceUCS2) },
		func(p *config.Profile, v string) error { return setInt64(&p.PriceUCS2, v) }},
}

// consoleSetting is one of the console's display settings, the config
// file's [console] table: shared by every profile on this machine.
type consoleSetting struct {
	name, help, def string
	get             func(c *config.ConsoleSettings) string
	set             func(c *config.ConsoleSettings, v string) error
}

func optionalBool(b *bool) string {
	if b == nil {
		return ""
	}
	return strconv.FormatBool(*b)
}

func setOptionalBool(dst **bool, v string) error {
	var b bool
	if err := setBool(&b, v); err != nil {
		return err
	}
	*dst = &b
	return nil
}

var consoleSettings = []consoleSetting{
	{"bidi", "right-to-left text in the console: off (the terminal reorders it), visual (smsdesk does), auto (from the terminal's name)", config.BidiOff,
		func(c *config.ConsoleSettings) string { return c.Bidi },
		func(c *config.ConsoleSettings, v string) error { c.Bidi = strings.ToLower(v); return c.Validate() }},
	{"mouse", "false to leave the mouse to the terminal (select and copy text)", "true",
		func(c *config.ConsoleSettings) string { return optionalBool(c.Mouse) },
		func(c *config.ConsoleSettings, v string) error { return setOptionalBool(&c.Mouse, v) }},
	{"alt_screen", "false to draw in the normal screen (the console stays in the scrollback after quitting)", "true",
		func(c *config.ConsoleSettings) string { return optionalBool(c.AltScreen) },
		func(c *config.ConsoleSettings, v string) error { return setOptionalBool(&c.AltScreen, v) }},
	{"theme", "console colours: auto (from the terminal's background), dark, light", "auto",
		func(c *config.ConsoleSettings) string { return c.Theme },
		func(c *config.ConsoleSettings, v string) error { c.Theme = strings.ToLower(v); return c.Validate() }},
}

func findConsoleSetting(name string) (consoleSetting, bool) {
	i := slices.IndexFunc(consoleSettings, func(s consoleSetting) bool { return s.name == name })
	if i < 0 {
		return consoleSetting{}, false
	}
	return consoleSettings[i], true
}

// effective is a setting's value in force and where it comes from: the
// --base-url flag or $SMSDESK_BASE_URL for base_url, else the profile's file,
// else the default.
func (f *Factory) effective(st profileSetting, s *session) (value, source string) {
	value, source = f.effectiveRaw(st, s)
	if st.name == "base_url" {
		value = model.RedactURLs(value) // a user name or password in it is never shown
	}
	return value, source
}

// effectiveRaw is effective, as written.
func (f *Factory) effectiveRaw(st profileSetting, s *session) (value, source string) {
	if st.name == "base_url" {
		if f.baseURLFlag != "" {
			return f.baseURLFlag, "flag --base-url"
		}
		if v := f.Getenv("SMSDESK_BASE_URL"); v != "" {
			return v, "environment (SMSDESK_BASE_URL)"
		}
	}
	if v := st.get(s.Profile); v != "" {
		return v, "profile " + s.ProfileName + " (" + s.Paths.ConfigFile + ")"
	}
	if st.def == "" {
		return "", "not set"
	}
	return st.def, "default"
}

func findSetting(name string) (profileSetting, error) {
	i := slices.IndexFunc(profileSettings, func(s profileSetting) bool { return s.name == name })
	if i < 0 {
		names := make([]string, 0, len(profileSettings)+len(consoleSettings)+1)
		for _, s := range profileSettings {
			names = append(names, s.name)
		}
		for _, s := range consoleSettings {
			names = append(names, s.name)
		}
		names = append(names, "ledger")
		return profileSetting{}, usageError("no setting %q; settings: %s", name, strings.Join(names, ", "))
	}
	return profileSettings[i], nil
}

func splitList(v string) []string {
	var out []string
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func setInt(dst *int, v string) error {
	n, err := strconv.Atoi(v)
	if err != nil {
		return fmt.Errorf("want a whole number, got %q", v)
	}
	*dst = n
	return nil
}

func setInt64(dst *int64, v string) error {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return fmt.Errorf("want a whole number, got %q", v)
	}
	*dst = n
	return nil
}

func setBool(dst *bool, v string) error {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return fmt.Errorf("want true or false, got %q", v)
	}
	*dst = b
	return nil
}

// setDeliveryDuration sets a delivery duration once it reads ("": the
// default).
func setDeliveryDuration(dst *string, v string) error {
	if _, err := config.ParseDeliveryDuration(v, 0); err != nil {
		return fmt.Errorf("%q is not a duration; write it like 10m, 120h or 5d", model.SanitizeLine(v))
	}
	*dst = v
	return nil
}
