package client

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"sync/atomic"
	"syscall"
	"time"
)

// retryPolicy says which failures of a request may be retried.
type retryPolicy int

const (
	// retrySafe: reads and deletes, retried on connection errors, 5xx and 429.
	retrySafe retryPolicy = iota
	// retryUnsent: POSTs, retried only when the request provably did not reach
	// the service (not written, or 429).
	retryUnsent
	// retryNever: optional look-ups (the credit before a send): one attempt;
	// an answer that does not come leaves the figure unknown.
	retryNever
)

// request is one logical call; do may make several attempts of it.
type request struct {
	method  string
	u       *url.URL
	body    []byte // JSON; nil for none
	idemKey string // Idempotency-Key header, same on every attempt
	policy  retryPolicy

	// Set by do.
	maybeApplied bool          // an attempt may have taken effect (written, then failed or 5xx)
	waited       time.Duration // time spent waiting on rate limits
}

// response is an HTTP answer read whole.
type response struct {
	status int
	header http.Header
	body   []byte
	url    *url.URL
}

// errBodyTooLarge is the cause when an answer passes MaxBodyBytes.
var errBodyTooLarge = errors.New("answer too large")

// do sends r, pacing and retrying as r.policy allows under the retry deadline.
// A 2xx answer is returned; anything else becomes an error: an *APIError for an
// HTTP answer or a *transportError, and for POSTs wrapped so that errors.Is tells
// ErrOutcomeUnknown from ErrNotSent.
func (c *Client) do(ctx context.Context, r *request) (*response, error) {
	deadline, rateDeadline := c.deadlines(ctx)
	path := c.shortPath(r.u)
	wctx, cancel := waitContext(ctx)
	defer cancel()
	for n := 1; ; n++ {
		ticket, w, err := c.pace(wctx)
		r.waited += w
		if err != nil {
			return nil, c.finish(r, &transportError{Method: r.method, Path: path,
				Reason: "cancelled while waiting for the rate limit", Err: err})
		}
		if by, ok := ctx.Value(sendByKey{}).(time.Time); ok && !c.now().Before(by) {
			c.pacer.ended(ticket, false, c.now())
			return nil, c.finish(r, &transportError{Method: r.method, Path: path,
				Reason: "not written: its time to go had passed", Err: ErrPastSendBy})
		}
		if err := c.beforeWrite(ctx, r, path); err != nil {
			c.pacer.ended(ticket, false, c.now())
			return nil, err
		}
		t0 := c.now()
		res, terr := c.attempt(ctx, r, path)
		var v verdict
		if terr != nil {
			c.pacer.ended(ticket, terr.Written, c.now())
			v = c.judgeFailure(ctx, r, path, n, t0, terr)
		} else {
			v = c.judgeAnswer(ctx, r, path, n, t0, ticket, res)
		}
		if v.ok != nil {
			return v.ok, nil
		}
		wait, again := c.retryWait(ctx, v, n, deadline, rateDeadline)
		if !again {
			return nil, c.finish(r, v.fail)
		}
		if v.notTaken {
			// Closed before the wait: a process that dies in it leaves
			// nothing of this attempt in flight.
			if err := c.notTaken(ctx, r, path, v.fail); err != nil {
				return nil, err
			}
		}
		if v.is429 {
			continue // pace waits for the hold refused set
		}
		if c.retryNotify != nil {
			c.retryNotify(RetryEvent{Method: r.method, Path: path, Attempt: n, Wait: wait,
				Left: deadline.Sub(c.now()), Reason: failReason(v.fail)})
		}
		if err := c.sleep(wctx, wait); err != nil {
			return nil, c.finish(r, v.fail)
		}
	}
}

// verdict is what one attempt of a request came to: an answer to return
// (ok), or a failure that may be retried after wait.
type verdict struct {
	ok        *response
	fail      error
	retryable bool
	is429     bool
	notTaken  bool // the service certainly did not take it: a 429, or never written
	wait      time.Duration
}

// retryWait says whether a failed attempt (the n-th) goes again, and after
// how long: a 429 within the rate deadline (its wait is the pacer's hold),
// another failure the policy retries within the retry deadline.
func (c *Client) retryWait(ctx context.Context, v verdict, n int, deadline, rateDeadline time.Time) (time.Duration, bool) {
	if !v.retryable || ctx.Err() != nil {
		return 0, false
	}
	wait := v.wait
	if wait <= 0 {
		wait = c.backoff(n)
	}
	if v.is429 {
		deadline = rateDeadline
	}
	return wait, !c.now().Add(wait).After(deadline)
}

// deadlines are when a call stops retrying: the retry deadline (or the
// caller's RetryUntil, if sooner), and for 429s their own bound. A 429 is the
// service up and saying when: its wait is not trouble, and a minute's
// Retry-After must not exhaust a 30 s retry_for meant for a service that does
// not answer (WithRateWaitFor).
func (c *Client) deadlines(ctx context.Context) (deadline, rateDeadline time.Time) {
	deadline = c.now().Add(c.retryDeadline)
	if t, ok := ctx.Value(retryUntilKey{}).(time.Time); ok && t.Before(deadline) {
		deadline = t
	}
	rateDeadline = deadline
	if c.rateWaitFor > 0 {
		rateDeadline = c.now().Add(c.rateWaitFor)
	}
	return deadline, rateDeadline
}

// waitContext is the context the waits before a request is written end with:
// ctx, or a stop the caller gave (StopBeforeSend).
func waitContext(ctx context.Context) (context.Context, func()) {
	stop, ok := ctx.Value(stopKey{}).(context.Context)
	if !ok {
		return ctx, func() {}
	}
	wctx, cancel := context.WithCancel(ctx)
	unregister := context.AfterFunc(stop, cancel)
	return wctx, func() { unregister(); cancel() }
}

// judgeFailure decides about an attempt that got no (whole) answer: retried
// when the policy allows, and for a POST only when it was never written.
func (c *Client) judgeFailure(ctx context.Context, r *request, path string, n int, t0 time.Time, terr *transportError) verdict {
	c.logger.LogAttrs(ctx, slog.LevelDebug, "request failed", slog.String("method", r.method),
		slog.String("path", path), slog.Int("attempt", n), slog.Duration("duration", c.now().Sub(t0)),
		slog.Bool("written", terr.Written), slog.String("error", terr.Reason))
	if terr.Written {
		r.maybeApplied = true
	}
	retry := ctx.Err() == nil && !terr.final && r.policy != retryNever && (r.policy == retrySafe || !terr.Written)
	return verdict{fail: terr, retryable: retry, notTaken: !terr.Written}
}

// judgeAnswer decides about an HTTP answer: a 2xx is the result; a 429 waits
// (for every request on the key) and goes again; a 5xx goes again for safe
// requests; anything else is final.
func (c *Client) judgeAnswer(ctx context.Context, r *request, path string, n int, t0 time.Time, ticket int64, res *response) verdict {
	ans := readAnswer(res.header, res.status, t0, c.now(), ticket)
	if res.status != http.StatusTooManyRequests {
		c.pacer.observe(ans)
	}
	c.logger.LogAttrs(ctx, slog.LevelDebug, "request", slog.String("method", r.method),
		slog.String("path", path), slog.Int("attempt", n), slog.Int("status", res.status),
		slog.Duration("duration", c.now().Sub(t0)))
	if res.status >= 200 && res.status <= 299 {
		return verdict{ok: res}
	}
	ae := c.apiError(r.method, path, res.status, res.header, res.body, c.now())
	if loc := res.header.Get("Location"); loc != "" && res.status >= 300 && res.status <= 399 {
		ae.Message = "redirects to " + c.clean(loc, 150)
	}
	c.logger.LogAttrs(ctx, slog.LevelDebug, "error answer", slog.String("method", r.method),
		slog.String("path", path), slog.Int("status", res.status), slog.String("code", ae.Code),
		slog.String("snippet", truncate(ae.Snippet, 80)))
	switch {
	case res.status == http.StatusTooManyRequests:
		wait := c.wait429(ans, ae, n)
		c.pacer.refused(ans, ae.RetryAfter, ans.now.Add(wait)) // every request on this key waits, not only this one
		return verdict{fail: ae, retryable: true, is429: true, notTaken: true, wait: wait}
	case res.status >= 500:
		r.maybeApplied = true
		return verdict{fail: ae, retryable: r.policy == retrySafe, wait: ae.RetryAfter}
	}
	return verdict{fail: ae}
}

// wait429 is how long a 429 (the n-th attempt) holds every request on the
// key: until the Reset when that is sooner than the Retry-After (rounded up
// to whole seconds), else the Retry-After; with neither, the backoff.
func (c *Client) wait429(ans answer, ae *APIError, n int) time.Duration {
	wait := ae.RetryAfter
	if d := ans.reset.Sub(ans.now); d > 0 && (wait <= 0 || d < wait) {
		wait = d
	}
	if wait <= 0 {
		wait = c.backoff(n)
	}
	return wait
}

// failReason is a failure in a few words for a retry notice.
func failReason(err error) string {
	var te *transportError
	if errors.As(err, &te) {
		return te.Reason
	}
	var ae *APIError
	if errors.As(err, &ae) {
		return fmt.Sprintf("%d %s", ae.Status, http.StatusText(ae.Status))
	}
	return err.Error()
}

// finish completes a failed call's error: the wait total for APIErrors and, for
// POSTs, whether the request may have taken effect.
func (c *Client) finish(r *request, err error) error {
	var ae *APIError
	if errors.As(err, &ae) {
		ae.Waited = r.waited
	}
	if r.method != http.MethodPost {
		return err
	}
	var te *transportError
	switch {
	case errors.As(err, &te):
		if te.Written {
			return &outcomeError{kind: ErrOutcomeUnknown, err: err}
		}
		return &outcomeError{kind: ErrNotSent, err: err}
	case ae != nil && ae.Status == http.StatusTooManyRequests:
		return &outcomeError{kind: ErrNotSent, err: err}
	case ae != nil && ae.Status >= 500:
		return &outcomeError{kind: ErrOutcomeUnknown, err: err}
	}
	return err
}

// attempt makes one HTTP exchange and reads the whole answer.
func (c *Client) attempt(ctx context.Context, r *request, path string) (*response, *transportError) {
	actx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var wrote atomic.Bool
	actx = httptrace.WithClientTrace(actx, &httptrace.ClientTrace{
		WroteRequest: func(i httptrace.WroteRequestInfo) {
			if i.Err == nil {
				wrote.Store(true)
			}
		},
	})
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(actx, r.method, r.u.String(), body)
	if err != nil {
		return nil, &transportError{Method: r.method, Path: path, Reason: "cannot build the request", Err: err, final: true}
	}
	// Without GetBody, net/http never replays a written POST on its own (it
	// would for one carrying an Idempotency-Key on a reused connection).
	req.GetBody = nil
	req.Header.Set("Authorization", "Bearer "+c.key)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	if r.body != nil {
		req.Header.Set("Content-Type", "application/json; charset=utf-8")
	}
	if r.idemKey != "" {
		req.Header.Set("Idempotency-Key", r.idemKey)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, c.transportFailure(ctx, actx, r, path, err, wrote.Load())
	}
	defer func() { _ = resp.Body.Close() }() // read to its end: a close error loses nothing
	b, err := io.ReadAll(io.LimitReader(resp.Body, c.maxBody+1))
	if err != nil {
		te := c.transportFailure(ctx, actx, r, path, err, true)
		te.Reason = fmt.Sprintf("the answer (status %d) broke off: %s", resp.StatusCode, te.Reason)
		return nil, te
	}
	if int64(len(b)) > c.maxBody {
		return nil, &transportError{Method: r.method, Path: path, Written: true, final: true, Err: errBodyTooLarge,
			Reason: fmt.Sprintf("the answer (status %d) is larger than %d MiB; refusing to read it", resp.StatusCode, c.maxBody>>20)}
	}
	return &response{status: resp.StatusCode, header: resp.Header, body: b, url: resp.Request.URL}, nil
}

// transportFailure explains a request that got no (whole) answer.
func (c *Client) transportFailure(ctx, actx context.Context, r *request, path string, err error, written bool) *transportError {
	te := &transportError{Method: r.method, Path: path, Written: written, Err: err}
	host := c.base.Host
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var unknownCA x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var recErr tls.RecordHeaderError
	switch {
	case ctx.Err() != nil:
		te.Reason, te.final = "cancelled", true
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			te.Reason = "the caller's time ran out"
		}
	case actx.Err() != nil:
		te.Reason = fmt.Sprintf("no answer within %s", c.timeout)
	case errors.Is(err, syscall.ECONNREFUSED):
		te.Reason = fmt.Sprintf("cannot connect to %s (connection refused): is the service running, and is the base URL right?", host)
	case errors.As(err, &dnsErr):
		te.Reason = fmt.Sprintf("cannot find host %s: check the base URL", host)
		te.final = dnsErr.IsNotFound
	case errors.As(err, &certErr), errors.As(err, &unknownCA), errors.As(err, &hostErr):
		te.Reason = fmt.Sprintf("the TLS certificate of %s is not trusted: check the base URL", host)
		te.final = true
	case errors.As(err, &recErr):
		te.Reason = fmt.Sprintf("TLS handshake with %s failed (is it plain http?): check the base URL's scheme", host)
		te.final = true
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		te.Reason = "the connection was closed before the answer came"
	default:
		te.Reason = "request failed: " + c.clean(unwrapURLError(err).Error(), 200)
	}
	return te
}

// unwrapURLError drops *url.Error's "Post \"https://…\":" prefix.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// jitteredBackoff is the wait before retry n (1-based): exponential from 0.5 s,
// capped at 30 s, with jitter in [d/2, d].
func jitteredBackoff(n int) time.Duration {
	d := 500 * time.Millisecond << min(n-1, 6)
	d = min(d, 30*time.Second)
	return d/2 + time.Duration(mrand.Int64N(int64(d/2)+1))
}

// newIdempotencyKey returns a fresh random Idempotency-Key.
func newIdempotencyKey() string { return "smsdesk-" + rand.Text() }
