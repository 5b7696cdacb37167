package serve

import (
	"context"
	"log/slog"
	"time"

	tea "charm.land/bubbletea/v2"
	gossh "golang.org/x/crypto/ssh"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// Defaults of smsdesk serve's flags.
const (
	DefaultAddr        = "127.0.0.1:2222"
	DefaultIdle        = 30 * time.Minute
	DefaultMaxSessions = 16
	DefaultRecheck     = time.Second
)

// Options configure a server. Operators, NewSession, Console and Stop are
// required.
type Options struct {
	// Addr is where to listen (host:port); DefaultAddr when empty.
	Addr string
	// HostKey is the server's key (LoadHostKey).
	HostKey gossh.Signer
	// Operators lists who may sign in; read at each attempt.
	Operators func() ([]config.OperatorEntry, error)
	// NewSession opens an operator's session of the application layer on
	// the server's one engine (its client, paths, profile and SendTracker).
	NewSession func(op model.Operator) *app.Session
	// Console builds a console per terminal; Stop is the message that tells
	// a running one to stop its sends after their chunk and quit
	// (console.Stop).
	Console ConsoleFactory
	Stop    func() tea.Msg
	// Idle ends a session with no keystroke for this long while none of
	// its sends runs; 0 never.
	Idle time.Duration
	// MaxSessions refuses sessions past this many at once (0: DefaultMaxSessions).
	MaxSessions int
	// LoginGrace closes a connection that has not signed in within it (0:
	// DefaultLoginGrace). It is the real clock's (x/crypto's deadline).
	LoginGrace time.Duration
	// VersionGrace closes a connection that has not sent its SSH version
	// line within it (0: DefaultVersionGrace; the real clock's).
	VersionGrace time.Duration
	// MaxStartups is OpenSSH's start:rate:full over the connections not
	// yet signed in, MaxStartupsPerSource how many one address may hold:
	// past them a new connection sheds a stalled one (startups.go). Zero
	// values: the defaults.
	MaxStartups          Startups
	MaxStartupsPerSource int
	// Rand draws the chances of MaxStartups, in [0,1) (nil: math/rand).
	Rand func() float64
	// AuthFailures refused keys from one address within AuthWindow make
	// its further refused keys wait FailureDelay (0: the defaults). An
	// operator's key is never slowed.
	AuthFailures int
	AuthWindow   time.Duration
	FailureDelay time.Duration
	// Recheck is how often the operators file is read again for the open
	// sessions: an operator removed (or a file that can no longer be
	// trusted) closes theirs (0: DefaultRecheck; the real clock's).
	Recheck time.Duration
	// Log is the server's log: logins, refusals, sessions' ends. Never the
	// API key (nothing here knows it). Nil discards.
	Log *slog.Logger
	// Now and Sleep are the clock (nil: real time); tests pass one they control.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	// Runner starts the served profile's due sends (scheduled, or held at
	// quiet hours) while the server serves; its session is taken from the
	// sessions' engine, so that Shutdown waits for its send too. Nil: none.
	// RunnerPoll is how often it looks besides at each send's time (0:
	// DefaultRunnerPoll).
	Runner     *app.Runner
	RunnerPoll time.Duration
}

// withDefaults returns o with each limit and hook it leaves unset filled in.
func (o Options) withDefaults() Options {
	o = o.withDefaultLimits()
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Rand == nil {
		o.Rand = randFloat
	}
	if o.Sleep == nil {
		o.Sleep = client.SleepContext
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return o
}

// withDefaultLimits returns o with the address and each limit it leaves
// unset (zero, or not above zero) at its default.
func (o Options) withDefaultLimits() Options {
	if o.Addr == "" {
		o.Addr = DefaultAddr
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.AuthFailures <= 0 {
		o.AuthFailures = DefaultAuthFailures
	}
	if o.AuthWindow <= 0 {
		o.AuthWindow = DefaultAuthWindow
	}
	if o.FailureDelay <= 0 {
		o.FailureDelay = DefaultFailureDelay
	}
	if o.LoginGrace <= 0 {
		o.LoginGrace = DefaultLoginGrace
	}
	if o.VersionGrace <= 0 {
		o.VersionGrace = DefaultVersionGrace
	}
	if o.MaxStartups == (Startups{}) {
		o.MaxStartups = DefaultMaxStartups
	}
	if o.MaxStartupsPerSource <= 0 {
		o.MaxStartupsPerSource = DefaultMaxStartupsPerSource
	}
	if o.Recheck <= 0 {
		o.Recheck = DefaultRecheck
	}
	return o
}
