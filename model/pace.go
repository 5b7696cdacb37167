package model

import (
	"fmt"
	"strconv"
	"time"
)

// PaceFrom says who set a send's pace, and so how sure its estimate is.
type PaceFrom int

// Who set the pace.
const (
	// PaceProfile: the service has said nothing; smsdesk keeps to the
	// profile's rate_per_minute (all of a minute's budget at once, then
	// evenly) until it does. A 429 can only slow it: the estimate is a
	// lower bound.
	PaceProfile PaceFrom = iota
	// PaceLimit: the service said its limit (X-RateLimit-Limit) but not its
	// window yet: the window is taken as one second, the shortest a service
	// counts, and the estimate is a lower bound.
	PaceLimit
	// PaceService: the service said its limit and its window (it keeps
	// fixed windows: a window's budget at its start): the estimate is about
	// right.
	PaceService
)

// Pace is the request budget a send's duration is estimated with: Limit
// requests per Window, and who said so.
type Pace struct {
	Limit  int
	Window time.Duration
	From   PaceFrom
}

// ProfilePace is the pace of a profile's rate_per_minute (default 60).
func ProfilePace(ratePerMinute int) Pace {
	if ratePerMinute <= 0 {
		ratePerMinute = 60
	}
	return Pace{Limit: ratePerMinute, Window: time.Minute, From: PaceProfile}
}

// AtLeast reports whether an estimate at this pace is a lower bound.
func (p Pace) AtLeast() bool { return p.From != PaceService }

// Estimate is how many requests n items take in chunks of chunkSize
// (default 100) and how long they take at this pace: a service's fixed
// windows let Limit go at each window's start, so the last request starts
// (requests-1)/Limit whole windows after the first; the profile's budget
// lets Limit go at once and one every Window/Limit after.
func (p Pace) Estimate(n, chunkSize int) (int, time.Duration) {
	if chunkSize <= 0 {
		chunkSize = 100
	}
	if p.Limit <= 0 || p.Window <= 0 {
		p = ProfilePace(0)
	}
	req := (n + chunkSize - 1) / chunkSize
	if req <= 1 {
		return req, 0
	}
	if p.From == PaceProfile {
		return req, time.Duration(max(req-p.Limit, 0)) * p.Window / time.Duration(p.Limit)
	}
	return req, time.Duration((req-1)/p.Limit) * p.Window
}

// String reads like "100 per 10 s" or "60 per minute".
func (p Pace) String() string {
	switch {
	case p.Window == time.Minute:
		return strconv.Itoa(p.Limit) + " per minute"
	case p.Window%time.Second == 0:
		return fmt.Sprintf("%d per %d s", p.Limit, p.Window/time.Second)
	}
	return fmt.Sprintf("%d per %v", p.Limit, p.Window)
}
