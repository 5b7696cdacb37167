package client

import (
	"context"
	"fmt"
)

// Attempts is told of each attempt a call makes of its request (see
// TrackAttempts). Both are called on the goroutine that made the call.
type Attempts struct {
	// Before is called once an attempt has been granted by the rate
	// budget and just before its request is written: every wait is over
	// and nothing of it has left yet. An error keeps it from being
	// written: the call fails with ErrNotSent, wrapping the error.
	Before func() error
	// NotTaken is called after an attempt the service certainly did not
	// take (a 429, a request never written) that the call makes again
	// after a wait (Retry-After, a backoff, the rate budget): the attempt
	// Before began is over, not taken, with err (matching ErrNotSent) as
	// the cause. An error ends the call there with ErrNotSent. Nil: not
	// told.
	NotTaken func(err error) error
}

type attemptsKey struct{}

// TrackAttempts makes the calls made with the returned context tell a of
// each attempt of their request. The send engine passes its journal's
// records: a chunk's intent is written, and synced, after the wait for
// the rate budget and before its request can leave, so that a process
// that dies while waiting leaves the chunk certainly not sent, not
// unknown; and an attempt not taken is closed before the wait to make it
// again, for the same reason.
func TrackAttempts(ctx context.Context, a Attempts) context.Context {
	return context.WithValue(ctx, attemptsKey{}, a)
}

// AttemptsOf returns the Attempts ctx carries (TrackAttempts), for another
// implementation of a call that must tell of its attempts.
func AttemptsOf(ctx context.Context) (Attempts, bool) {
	a, ok := ctx.Value(attemptsKey{}).(Attempts)
	return a, ok
}

// beforeWrite tells the caller's Attempts.Before that r's attempt is about
// to be written; its error keeps the attempt from going.
func (c *Client) beforeWrite(ctx context.Context, r *request, path string) error {
	a, ok := AttemptsOf(ctx)
	if !ok || a.Before == nil {
		return nil
	}
	if err := a.Before(); err != nil {
		return c.finish(r, &transportError{Method: r.method, Path: path, final: true, Err: err,
			Reason: fmt.Sprintf("not written: %v", err)})
	}
	return nil
}

// notTaken tells the caller's Attempts.NotTaken that r's attempt, which
// failed with fail, was certainly not taken and goes again after a wait;
// its error ends the call.
func (c *Client) notTaken(ctx context.Context, r *request, path string, fail error) error {
	a, ok := AttemptsOf(ctx)
	if !ok || a.NotTaken == nil {
		return nil
	}
	if err := a.NotTaken(c.finish(r, fail)); err != nil {
		return c.finish(r, &transportError{Method: r.method, Path: path, final: true, Err: err,
			Reason: fmt.Sprintf("not made again: %v", err)})
	}
	return nil
}
