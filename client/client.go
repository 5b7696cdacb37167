// Package client is the typed HTTP client for the SMS service's API.
//
// One Client talks to one deployment with one API key. It accepts the base URL in
// any form operators paste, paces itself to the request budget, retries only what
// is safe to retry, and survives the many response shapes deployments use. The key
// never appears in errors, logs or the Client's printed form.
package client

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// Version is the client's version, sent in the default User-Agent
// ("smsdesk/<Version>"). Builds that know a release number pass their own agent
// with WithUserAgent.
const Version = "dev"

// Defaults used by New when no option says otherwise.
const (
	DefaultTimeout       = 30 * time.Second // per request attempt
	DefaultRatePerMinute = 60               // the service's documented budget
	DefaultRetryDeadline = 2 * time.Minute  // total time budget for retries of one call
	DefaultPageCap       = 10000            // pages ListContacts follows at most
	MaxBodyBytes         = 16 << 20         // largest response body read (16 MiB)
)

// Client talks to one deployment of the service with one API key. It is safe
// for concurrent use. Create it with New.
type Client struct {
	base          *url.URL // normalised, ends in "/"
	key           string
	hc            *http.Client
	timeout       time.Duration
	userAgent     string
	logger        *slog.Logger
	allowInsecure bool
	retryDeadline time.Duration
	pageCap       int
	maxBody       int64
	perMinute     int
	rateStore     RateStore
	retryNotify   func(RetryEvent)
	rateWaitFor   time.Duration
	pacer         *pacer
	// noPerPage: the service refused the per_page parameter once; lists
	// page as it likes from then on.
	noPerPage *atomic.Bool

	// Injected in tests so that nothing waits real seconds.
	now     func() time.Time
	sleep   func(ctx context.Context, d time.Duration) error
	backoff func(retry int) time.Duration
}

// Option configures a Client.
type Option func(*Client)

// WithTimeout sets how long one request attempt may take (default 30 s).
// A value ≤ 0 keeps the default.
func WithTimeout(d time.Duration) Option {
	return func(c *Client) {
		if d > 0 {
			c.timeout = d
		}
	}
}

// WithUserAgent sets the User-Agent header (default "smsdesk/" + Version).
func WithUserAgent(ua string) Option {
	return func(c *Client) {
		if ua != "" {
			c.userAgent = ua
		}
	}
}

// WithRatePerMinute sets the budget the client paces itself to until the
// service announces its own (default 60 a minute, all of which may go at once).
// A value ≤ 0 paces nothing until the service says otherwise.
func WithRatePerMinute(n int) Option {
	return func(c *Client) { c.perMinute = n }
}

// WithRateStore makes the client keep its request budget in s, shared with
// every other client using the same store (in this process or another), so
// that together they stay within the key's limit.
func WithRateStore(s RateStore) Option {
	return func(c *Client) { c.rateStore = s }
}

// WithClock makes the client read the time from now and wait with sleep (which
// must return early with ctx's error when ctx is done). Tests pass a fake clock
// so that rate windows and Retry-After cost no real time; nil keeps the real one.
func WithClock(now func() time.Time, sleep func(ctx context.Context, d time.Duration) error) Option {
	return func(c *Client) {
		if now != nil {
			c.now = now
		}
		if sleep != nil {
			c.sleep = sleep
		}
	}
}

// WithLogger sets a logger for debug records of each request: method, path,
// status, duration and attempt. The key and bodies are never logged; errors
// carry at most a short sanitised snippet.
func WithLogger(l *slog.Logger) Option {
	return func(c *Client) {
		if l != nil {
			c.logger = l
		}
	}
}

// WithAllowInsecureHTTP allows a plain-http base URL to a host that is not
// loopback (the profile setting allow_insecure_http). The key then travels
// unencrypted.
func WithAllowInsecureHTTP(allow bool) Option {
	return func(c *Client) { c.allowInsecure = allow }
}

// WithRetryDeadline sets the total time one call may spend retrying, waits
// included (default 2 min). A value ≤ 0 turns retries off.
func WithRetryDeadline(d time.Duration) Option {
	return func(c *Client) { c.retryDeadline = d }
}

// RetryEvent says a request failed without an answer the client can use
// (connection refused or reset, no answer in time, 5xx on a read) and will be
// made again after Wait: the first one comes at once, so that a service that
// is down is named in a second, not after minutes of silent retries.
type RetryEvent struct {
	Method, Path string
	Attempt      int           // the attempt that failed (1-based)
	Wait         time.Duration // before the next attempt
	Left         time.Duration // of the retry budget (WithRetryDeadline) from now
	Reason       string        // why it failed, for people (sanitised)
}

// String reads like "service unreachable (cannot connect …) — retry 2 in 4 s; gives up in 26 s".
func (e RetryEvent) String() string {
	return fmt.Sprintf("service unreachable (%s) — retry %d in %s; gives up in %s",
		e.Reason, e.Attempt+1, roundUp(e.Wait), roundUp(e.Left))
}

type retryUntilKey struct{}

type stopKey struct{}

// StopBeforeSend lets stop end a call while it has not written its request
// yet: waiting for the rate budget or to retry a request that provably did
// not reach the service. The request itself, once written, runs on ctx
// alone. The send engine passes its run's context, so that a stop (ctrl+c,
// quit, SIGTERM) does not let a chunk still waiting on the rate limiter go.
func StopBeforeSend(ctx, stop context.Context) context.Context {
	return context.WithValue(ctx, stopKey{}, stop)
}

// SendBy bounds when a request made with the returned context may be
// written: one that would go at or after t (its wait for the rate budget, a
// 429 or a retry having run past it) is not written, and fails with
// ErrNotSent and ErrPastSendBy. The send engine passes the start of quiet
// hours, so that a chunk waiting at 21:59 does not go at 22:00.
func SendBy(ctx context.Context, t time.Time) context.Context {
	return context.WithValue(ctx, sendByKey{}, t)
}

type sendByKey struct{}

// ErrPastSendBy is matched by errors.Is for a request SendBy kept from
// being written: certainly not sent.
var ErrPastSendBy = errors.New("not written: its time to go (SendBy) had passed")

// RetryUntil bounds the retries of requests made with the returned context:
// none starts after t (the client's own retry deadline still applies). The
// send engine uses it so that a chunk tried again during an outage does not
// open a second full retry budget inside the first.
func RetryUntil(ctx context.Context, t time.Time) context.Context {
	return context.WithValue(ctx, retryUntilKey{}, t)
}

func roundUp(d time.Duration) string {
	if d < time.Second {
		return "under 1 s"
	}
	return fmt.Sprintf("%d s", int((d+time.Second-1)/time.Second))
}

// WithRateWaitFor bounds how long one call waits out 429s (Retry-After, a
// fixed window's end) apart from WithRetryDeadline, which then bounds only
// failures without a usable answer. Zero: the retry deadline bounds both.
func WithRateWaitFor(d time.Duration) Option {
	return func(c *Client) { c.rateWaitFor = d }
}

// WithRetryNotify sets a function called each time a request is to be made
// again after a failure without a usable answer (not a 429: RateStatus
// reports those waits). It is called from the goroutine making the request and must
// not block.
func WithRetryNotify(f func(RetryEvent)) Option {
	return func(c *Client) { c.retryNotify = f }
}

// WithPageCap sets how many pages ListContacts follows before it gives up with
// an error (default 10,000). A value ≤ 0 keeps the default.
func WithPageCap(n int) Option {
	return func(c *Client) {
		if n > 0 {
			c.pageCap = n
		}
	}
}

// New returns a client for baseURL (https://host, https://host/api,
// https://host/api/v1 or https://host/v1, with or without a trailing slash) and
// apiKey. It refuses plain http to a host that is not loopback unless
// WithAllowInsecureHTTP(true) is given, and URLs with a user name, query or
// fragment.
func New(baseURL, apiKey string, opts ...Option) (*Client, error) {
	c := &Client{
		key:           apiKey,
		noPerPage:     new(atomic.Bool),
		timeout:       DefaultTimeout,
		userAgent:     "smsdesk/" + Version,
		logger:        slog.New(slog.DiscardHandler),
		retryDeadline: DefaultRetryDeadline,
		pageCap:       DefaultPageCap,
		maxBody:       MaxBodyBytes,
		perMinute:     DefaultRatePerMinute,
		now:           time.Now,
		sleep:         SleepContext,
		backoff:       jitteredBackoff,
	}
	for _, o := range opts {
		o(c)
	}
	if apiKey == "" {
		return nil, fmt.Errorf("client: the API key is empty; run smsdesk login or set SMSDESK_API_KEY")
	}
	base, err := normalizeBaseURL(baseURL, c.allowInsecure)
	if err != nil {
		return nil, err
	}
	c.base = base
	c.hc = safeHTTPClient(base)
	c.pacer = newPacer(c.perMinute, c.rateStore, c.logger, c.now())
	return c, nil
}

// BaseURL returns the normalised base URL the client sends requests under
// (ending in "/").
func (c *Client) BaseURL() string { return c.base.String() }

// String describes the client by its base URL only; the key is never printed.
func (c Client) String() string {
	if c.base == nil {
		return "client.Client{}"
	}
	return "client.Client{" + c.base.String() + "}"
}

// GoString is String, so that %#v cannot print the key either.
func (c Client) GoString() string { return c.String() }

// Format prints String for every verb (%v, %+v, %#v, %s, %q…), so that no
// formatting of a Client, or a struct holding one by value, shows the key.
func (c Client) Format(f fmt.State, verb rune) { fmt.Fprint(f, c.String()) }

// SleepContext waits d or until ctx is done: the one such wait, shared by
// the client and the send engine.
func SleepContext(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// safeHTTPClient makes the client's HTTP client with a redirect policy that
// never follows a redirect for a request with a body, to another host, or
// from https to http. The per-attempt context carries the timeout; a
// client-wide timeout on top would only hide which one fired.
func safeHTTPClient(base *url.URL) *http.Client {
	return &http.Client{
		Transport: http.DefaultTransport.(*http.Transport).Clone(),
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			switch {
			case via[0].Method != http.MethodGet:
				return http.ErrUseLastResponse
			case len(via) >= 5:
				return fmt.Errorf("stopped after %d redirects", len(via))
			case !sameOrigin(req.URL, base):
				return fmt.Errorf("refusing to follow a redirect to %s: it is not the service's host %s, so the key must not go there", req.URL.Host, base.Host)
			}
			return nil
		},
	}
}

// AccountID names the account this client speaks for (the service's host
// and the key; see model.AccountID): state shared by every profile and
// operator on one account is keyed by it.
func (c *Client) AccountID() string { return model.AccountID(c.base.String(), c.key) }
