package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// Defaults applied to a profile's zero values.
const (
	DefaultProfile       = "default"
	DefaultRatePerMinute = 60  // the service's documented budget per key
	DefaultChunkSize     = 100 // items per send-pair request
	MaxChunkSize         = 1000
	maxProfileNameLen    = 64
)

// Profile is one account on one deployment of the service.
type Profile struct {
	Name              string   `toml:"-"`
	BaseURL           string   `toml:"base_url,omitempty"`
	Sender            string   `toml:"sender,omitempty"`  // default sender line
	Senders           []string `toml:"senders,omitempty"` // the account's sender lines
	RatePerMinute     int      `toml:"rate_per_minute,omitzero"`
	ChunkSize         int      `toml:"chunk_size,omitzero"`
	NumberFormat      string   `toml:"number_format,omitempty"` // "local" or "e164"
	AllowInsecureHTTP bool     `toml:"allow_insecure_http,omitempty"`
	// AllowInternational lets sends go to numbers outside Iran; by default a
	// foreign number is a problem of the plan.
	AllowInternational bool `toml:"allow_international,omitempty"`
	// RepeatWindow is how far back a send is compared with this profile's
	// earlier sends for pairs already accepted: a duration such as "24h",
	// "90m" or "7d"; "0" turns the check off; empty means 24h.
	RepeatWindow string `toml:"repeat_window,omitempty"`
	// PriceGSM7 and PriceUCS2 are what one SMS part costs, in rial, by
	// encoding (Latin text is GSM-7, Persian UCS-2); 0 means not set. With
	// both, the confirmation shows the cost.
	PriceGSM7 int64 `toml:"price_gsm7,omitzero"`
	PriceUCS2 int64 `toml:"price_ucs2,omitzero"`
	// RetryFor bounds how long smsdesk keeps trying a service it cannot
	// reach (refused, reset, timed out, 5xx on a read) before it gives up: a
	// duration such as "30s" or "2m"; empty means DefaultRetryFor.
	RetryFor string `toml:"retry_for,omitempty"`
	// Timezone is the IANA zone times are shown in and quiet hours are
	// read in; empty means Asia/Tehran.
	Timezone string `toml:"timezone,omitempty"`
	// QuietHours is the daily window no send may start in, such as
	// "22:00-08:00"; empty or "off" for none.
	QuietHours string `toml:"quiet_hours,omitempty"`
	// OptOutSuffix ends every message as sent, on its own line (لغو۱۱).
	OptOutSuffix string `toml:"optout_suffix,omitempty"`
	// DeliveryPollAfter is how long after its acceptance a message with no
	// final delivery state is first polled for (a runner polls; webhooks
	// come first): a duration such as "10m"; empty means 10m.
	DeliveryPollAfter string `toml:"delivery_poll_after,omitempty"`
	// DeliveryUnknownAfter is how long a message with no final delivery
	// state is waited for before it is no_report: "120h" or "5d"; empty
	// means 120h.
	DeliveryUnknownAfter string `toml:"delivery_unknown_after,omitempty"`
}

// Defaults of the delivery durations.
const (
	DefaultDeliveryPollAfter    = 10 * time.Minute
	DefaultDeliveryUnknownAfter = 120 * time.Hour
)

// PollAfter is the profile's delivery_poll_after (DefaultDeliveryPollAfter
// when unset).
func (p Profile) PollAfter() (time.Duration, error) {
	return ParseDeliveryDuration(p.DeliveryPollAfter, DefaultDeliveryPollAfter)
}

// UnknownAfter is the profile's delivery_unknown_after
// (DefaultDeliveryUnknownAfter when unset).
func (p Profile) UnknownAfter() (time.Duration, error) {
	return ParseDeliveryDuration(p.DeliveryUnknownAfter, DefaultDeliveryUnknownAfter)
}

// ParseDeliveryDuration reads a delivery duration: a Go duration ("10m",
// "120h") or a number of days ("5d"), more than zero; "" is def.
func ParseDeliveryDuration(s string, def time.Duration) (time.Duration, error) {
	if strings.TrimSpace(s) == "" {
		return def, nil
	}
	d, err := ParseWindow(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not a duration; write it like 10m, 120h or 5d", model.SanitizeLine(s))
	}
	return d, nil
}

// Location is the profile's timezone (Asia/Tehran when unset).
func (p Profile) Location() (*time.Location, error) { return model.LoadTimezone(p.Timezone) }

// Quiet is the profile's quiet hours (off when unset).
func (p Profile) Quiet() (model.QuietHours, error) { return model.ParseQuietHours(p.QuietHours) }

// DefaultRetryFor is how long a service that cannot be reached is tried again
// when the profile does not say.
const DefaultRetryFor = 30 * time.Second

// Retry returns the profile's retry_for: DefaultRetryFor when unset.
func (p Profile) Retry() (time.Duration, error) {
	s := strings.TrimSpace(p.RetryFor)
	if s == "" {
		return DefaultRetryFor, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("retry_for %q is not a duration; write it like 30s or 2m", s)
	}
	return d, nil
}

// DefaultRepeatWindow is how far back a send looks for repeats when the
// profile does not say.
const DefaultRepeatWindow = 24 * time.Hour

// Window returns the profile's repeat window: DefaultRepeatWindow when unset,
// 0 when the check is off.
func (p Profile) Window() (time.Duration, error) {
	return ParseWindow(p.RepeatWindow)
}

// ParseWindow reads a repeat window: a Go duration ("24h", "90m"), a number
// of days ("7d"), or "0"/"off" for no check; "" is DefaultRepeatWindow.
func ParseWindow(s string) (time.Duration, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	switch s {
	case "":
		return DefaultRepeatWindow, nil
	case "0", "off", "none":
		return 0, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%q is not a number of days; write it like 7d", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not a duration; write it like 24h, 90m or 7d, or 0 to turn the check off", s)
	}
	return d, nil
}

// WithDefaults returns a copy with zero values replaced by the defaults: 60
// requests per minute, chunks of 100, local number format.
func (p Profile) WithDefaults() Profile {
	if p.RatePerMinute == 0 {
		p.RatePerMinute = DefaultRatePerMinute
	}
	if p.ChunkSize == 0 {
		p.ChunkSize = DefaultChunkSize
	}
	if p.NumberFormat == "" {
		p.NumberFormat = "local"
	}
	return p
}

// Format returns the profile's number format (local when unset).
func (p Profile) Format() (model.NumberFormat, error) {
	return model.ParseNumberFormat(p.NumberFormat)
}

// FieldError names the profile field that is wrong and what is expected.
type FieldError struct {
	Profile string
	Field   string // the TOML key, e.g. "chunk_size"
	Problem string
}

// Error says what is wrong and what to do next.
func (e *FieldError) Error() string {
	return fmt.Sprintf("profile %q: %s: %s", e.Profile, e.Field, e.Problem)
}

// Validate checks the profile's name and fields; the error is a *FieldError (or
// several joined) naming the field.
func (p *Profile) Validate() error {
	if err := ValidateProfileName(p.Name); err != nil {
		return err
	}
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, &FieldError{Profile: p.Name, Field: field, Problem: fmt.Sprintf(format, args...)})
	}
	if p.BaseURL != "" {
		if problem := checkBaseURL(p.BaseURL, p.AllowInsecureHTTP); problem != "" {
			bad("base_url", "%s", problem)
		}
	}
	if p.RatePerMinute < 0 {
		bad("rate_per_minute", "%d is negative; use a positive number of requests per minute, or 0 for the default %d", p.RatePerMinute, DefaultRatePerMinute)
	}
	if p.ChunkSize < 0 || p.ChunkSize > MaxChunkSize {
		bad("chunk_size", "%d is out of range; use 1 to %d items per request, or 0 for the default %d", p.ChunkSize, MaxChunkSize, DefaultChunkSize)
	}
	for _, c := range p.settingChecks() {
		if err := c.check(); err != nil {
			bad(c.field, "%s", err)
		}
	}
	p.checkSenders(bad)
	return errors.Join(errs...)
}

// checkSenders tells bad what is wrong with the sender lines.
func (p *Profile) checkSenders(bad func(field, format string, args ...any)) {
	for i, s := range p.Senders {
		if strings.TrimSpace(s) == "" || s != model.SanitizeLine(s) {
			bad("senders", "entry %d is empty or holds control characters", i+1)
		}
	}
	if p.Sender != "" {
		if p.Sender != model.SanitizeLine(p.Sender) || strings.TrimSpace(p.Sender) == "" {
			bad("sender", "holds control characters")
		} else if len(p.Senders) > 0 && !slices.Contains(p.Senders, p.Sender) {
			bad("sender", "%q is not among senders %q; add it to senders or choose one of them", p.Sender, p.Senders)
		}
	}
}

// settingCheck is a setting that reads or says why not.
type settingCheck struct {
	field string
	check func() error
}

// settingChecks are the profile's settings that must read: durations,
// prices, the number format, the timezone, quiet hours, the suffix.
func (p *Profile) settingChecks() []settingCheck {
	errOf := func(_ any, err error) error { return err }
	return []settingCheck{
		{"repeat_window", func() error { return errOf(p.Window()) }},
		{"price_gsm7/price_ucs2", func() error {
			if p.PriceGSM7 < 0 || p.PriceUCS2 < 0 {
				return errors.New("prices are rial per SMS part: 0 (not set) or more")
			}
			return nil
		}},
		{"number_format", func() error {
			if _, err := p.Format(); err != nil {
				return fmt.Errorf("%q is not a number format; use \"local\" (09…) or \"e164\" (+989…)", model.SanitizeLine(p.NumberFormat))
			}
			return nil
		}},
		{"timezone", func() error { return errOf(p.Location()) }},
		{"quiet_hours", func() error { return errOf(p.Quiet()) }},
		{"optout_suffix", func() error { return model.CheckSuffix(p.OptOutSuffix) }},
		{"delivery_poll_after", func() error { return errOf(p.PollAfter()) }},
		{"delivery_unknown_after", func() error { return errOf(p.UnknownAfter()) }},
	}
}

// checkBaseURL returns what is wrong with u, or "".
func checkBaseURL(u string, allowHTTP bool) string {
	parsed, err := url.Parse(u)
	if err != nil {
		return fmt.Sprintf("%q does not parse as a URL; write it as https://host/v1", model.SanitizeLine(u))
	}
	if parsed.Host == "" || (parsed.Scheme != "https" && parsed.Scheme != "http") {
		return fmt.Sprintf("%q is not an http(s) URL with a host; write it as https://host/v1", model.SanitizeLine(u))
	}
	if parsed.User != nil {
		return "holds credentials (user:password@); remove them, the API key is stored separately"
	}
	if parsed.Scheme == "http" && !allowHTTP && !isLoopback(parsed.Hostname()) {
		return fmt.Sprintf("%q is plain http to a host other than loopback; use https, or set allow_insecure_http = true if you accept that the API key travels unencrypted", model.SanitizeLine(u))
	}
	return ""
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ValidateProfileName accepts names usable both in the config file and as a
// file name: 1 to 64 letters, digits, '.', '_' or '-', not starting with '.'.
// It rejects path separators and ".." rather than rewriting them, so two
// profiles can never share a state file.
func ValidateProfileName(name string) error {
	switch {
	case name == "":
		return errors.New("profile name is empty")
	case len(name) > maxProfileNameLen:
		return fmt.Errorf("profile name is longer than %d characters", maxProfileNameLen)
	case name[0] == '.':
		return fmt.Errorf("profile name %q starts with '.'; use letters, digits, '.', '_' or '-'", model.SanitizeLine(name))
	}
	for _, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-'
		if !ok {
			return fmt.Errorf("profile name %q holds %q; use letters, digits, '.', '_' or '-'", model.SanitizeLine(name), r)
		}
	}
	return nil
}
