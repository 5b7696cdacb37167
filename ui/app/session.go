package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// Profile is the active profile with its settings read: what every face
// plans, checks and sends with.
type Profile struct {
	Name          string
	BaseURL       string
	Sender        string   // default sender line
	Senders       []string // the account's sender lines
	RatePerMinute int
	ChunkSize     int
	NumberFormat  model.NumberFormat
	// KeyKind is "live" or "test" (from the key's prefix), "" when unknown.
	KeyKind string
	// Prices per SMS part by encoding, for the cost of a plan.
	Prices model.Prices
	// RepeatWindow is how far back a send is compared with this profile's
	// earlier sends; 0 turns the check off.
	RepeatWindow time.Duration
	// RetryFor bounds how long a chunk certainly not taken is tried again.
	RetryFor time.Duration
	// AllowInternational lets sends go to numbers outside Iran.
	AllowInternational bool
	// Location is the profile's timezone: times for people are shown in it
	// and quiet hours read in it (Asia/Tehran when unset).
	Location *time.Location
	// Quiet is the daily window no send may start in (off when unset).
	Quiet model.QuietHours
	// Suffix ends every message as sent, on its own line ("" for none).
	Suffix string
	// PollAfter is when a message with no final delivery state is first
	// polled for, after its acceptance (delivery_poll_after); UnknownAfter
	// when it is given up as no_report (delivery_unknown_after).
	PollAfter, UnknownAfter time.Duration
	// Invalid is a setting that does not read (repeat_window, retry_for,
	// number_format): every send refuses with it, on every face. The
	// fields above then hold the setting's default.
	Invalid error
}

// ResolveProfile reads a profile's settings for a session. keyKind is
// config.KeyKind of the key in use ("" offline).
func ResolveProfile(name, baseURL string, prof *config.Profile, keyKind string) Profile {
	if prof == nil {
		prof = &config.Profile{Name: name}
	}
	p := prof.WithDefaults()
	out := Profile{
		Name: name, BaseURL: baseURL, Sender: p.Sender, Senders: p.Senders,
		RatePerMinute: p.RatePerMinute, ChunkSize: p.ChunkSize, KeyKind: keyKind,
		Prices: model.Prices{GSM7: p.PriceGSM7, UCS2: p.PriceUCS2}, AllowInternational: p.AllowInternational,
	}
	var err error
	out.Suffix = p.OptOutSuffix
	if out.Location, err = p.Location(); err != nil {
		out.Location, _ = model.LoadTimezone("")
		out.Invalid = fmt.Errorf("profile %s: timezone: %w", name, err)
	}
	if out.Quiet, err = p.Quiet(); err != nil {
		out.Quiet, out.Invalid = model.QuietHours{On: true, Start: 0, End: 24*60 - 1}, fmt.Errorf("profile %s: quiet_hours: %w", name, err)
	}
	if out.NumberFormat, err = p.Format(); err != nil {
		out.Invalid = fmt.Errorf("profile %s: number_format: %w", name, err)
	}
	if out.RetryFor, err = p.Retry(); err != nil {
		out.RetryFor, out.Invalid = config.DefaultRetryFor, fmt.Errorf("profile %s: retry_for: %w", name, err)
	}
	if out.PollAfter, err = p.PollAfter(); err != nil {
		out.PollAfter, out.Invalid = config.DefaultDeliveryPollAfter, fmt.Errorf("profile %s: delivery_poll_after: %w", name, err)
	}
	if out.UnknownAfter, err = p.UnknownAfter(); err != nil {
		out.UnknownAfter, out.Invalid = config.DefaultDeliveryUnknownAfter, fmt.Errorf("profile %s: delivery_unknown_after: %w", name, err)
	}
	if out.RepeatWindow, err = p.Window(); err != nil {
		out.RepeatWindow, out.Invalid = config.DefaultRepeatWindow, fmt.Errorf("profile %s: repeat_window: %w", name, err)
	}
	return out
}

// Session is one operator's standing with the service: the profile, its
// client (nil until signed in, or offline) and where state lives. Every
// flow hangs off it.
type Session struct {
	Profile Profile
	Client  *client.Client
	Paths   config.Paths
	// Now is the clock (nil: time.Now); Sleep is how sends wait (nil: real
	// waiting). Tests pass clocks they control.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	// Operator is who is signed in on a served console (smsdesk serve): what
	// they may do, and whose name their journals and records carry. Nil at
	// this machine's own terminal: everything is allowed.
	Operator *model.Operator
	// Operators is the operators file as it is now (smsdesk serve's, read
	// with its checks): every action of Operator is decided by it (Allow),
	// not by the role at sign-in. Nil: Operator's role holds.
	Operators func() ([]config.OperatorEntry, error)
	// Tracker is shared by every session of one server: see SendTracker. Nil
	// outside a server.
	Tracker *SendTracker
	// Account names the service account (model.AccountID) when the face
	// knows the key but has no client (a dry run offline): the opt-out list
	// is still the account's. With a client, the client's account counts.
	Account string
	// Settings reads the profile's settings as they are now (the config
	// file: ProfileSettings): every plan and every start is decided by
	// them, not by Profile as it was read when the session opened. Nil:
	// Profile's settings hold.
	Settings func() (*config.Profile, error)
	// Warn is told what could not be recorded besides a flow's own outcome
	// (an audit record the ledger did not take: the contact was added, the
	// send went), for the face to say it: the CLI on stderr, the console
	// in its log. Nil: a server's Tracker logs it.
	Warn func(error)

	base     *Session         // the session this one was derived from for one send's rules (rulesNow)
	line     *model.LineRules // the one send's line's rules, on a session derived for it (forLine)
	running  SendTracker      // sends started here that have not ended (no Log)
	standing standing         // Operator as last read from Operators
}

func (s *Session) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// ClientOptions are what a face adds to every client it builds: who is
// asking (user agent), where debug logs go, the clock, and how retries are
// told.
type ClientOptions struct {
	UserAgent   string
	Logger      *slog.Logger
	Now         func() time.Time
	Sleep       func(ctx context.Context, d time.Duration) error
	RetryNotify func(client.RetryEvent)
}

// rateWaitFor is how long one request waits out the service's 429s: a
// window's minute must not use up a 30 s retry_for (an import's 61st request
// failed that way).
const rateWaitFor = 3 * time.Minute

// NewClient builds a client for baseURL and key with the profile's pacing and
// safety settings (prof may be nil: defaults) and the request budget shared
// through the state directory with every other smsdesk on this key.
func NewClient(paths config.Paths, baseURL, key string, prof *config.Profile, o ClientOptions, extra ...client.Option) (*client.Client, error) {
	opts := []client.Option{client.WithRetryDeadline(config.DefaultRetryFor)}
	if o.UserAgent != "" {
		opts = append(opts, client.WithUserAgent(o.UserAgent))
	}
	if o.Logger != nil {
		opts = append(opts, client.WithLogger(o.Logger))
	}
	if o.Now != nil || o.Sleep != nil {
		opts = append(opts, client.WithClock(o.Now, o.Sleep))
	}
	if prof != nil {
		if prof.RatePerMinute > 0 {
			opts = append(opts, client.WithRatePerMinute(prof.RatePerMinute))
		}
		if prof.AllowInsecureHTTP {
			opts = append(opts, client.WithAllowInsecureHTTP(true))
		}
		if d, err := prof.Retry(); err == nil {
			opts = append(opts, client.WithRetryDeadline(d))
		}
		opts = append(opts, client.WithRateWaitFor(rateWaitFor))
	}
	if o.RetryNotify != nil {
		opts = append(opts, client.WithRetryNotify(o.RetryNotify))
	}
	if key != "" && baseURL != "" && paths.StateDir != "" {
		opts = append(opts, client.WithRateStore(config.NewRateState(paths, baseURL, key)))
	}
	opts = append(opts, extra...)
	return client.New(baseURL, key, opts...)
}

// Zone is the profile's timezone; Asia/Tehran for a profile built without
// ResolveProfile.
func (p Profile) Zone() *time.Location {
	if p.Location != nil {
		return p.Location
	}
	loc, _ := model.LoadTimezone("")
	return loc
}

// closeRead closes what was only read: its close loses nothing.
func closeRead(c io.Closer) { _ = c.Close() }

// closeWritten closes what was written (a journal, whose lease it
// releases; a ledger), its error returned in *err unless another error is
// there first.
func closeWritten(c io.Closer, err *error) {
	if cerr := c.Close(); cerr != nil && *err == nil {
		*err = cerr
	}
}
