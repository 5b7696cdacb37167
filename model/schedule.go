package model

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// A scheduled send is planned, checked and confirmed now and started later
// by a runner (smsdesk serve, smsdesk scheduler). The five endpoints smsdesk
// speaks have no schedule field, so the time lives in the send's journal.

// MaxScheduleAhead is how far ahead a send may be scheduled: 35 days, as
// Twilio's SendAt allows. A plan checked now says little about credit,
// opt-outs and lines a season later.
const MaxScheduleAhead = 35 * 24 * time.Hour

// ErrAtPast and ErrAtTooFar are why a time may not be a send's (CheckAt);
// errors.Is tells which.
var (
	ErrAtPast   = errors.New("not ahead")
	ErrAtTooFar = errors.New("too far ahead")
)

// ParseAt reads when a scheduled send should start, seen from now in loc
// (the profile's timezone):
//
//	08:00              the next 08:00 in loc: today if still ahead, else tomorrow
//	2026-11-26 08:00   that day and time in loc (a T may stand for the space)
//	2026-11-26T08:00:00+03:30   RFC 3339, with its own offset
//	1405-09-07 08:00   a Jalali (Solar Hijri) date, years 1300–1599 (/ too)
//	+30m  +2h  +1h30m  +90s  +2d   that long from now
//
// Persian and Arabic digits read as ASCII. It says nothing of whether the
// time may be a send's: CheckAt does.
func ParseAt(s string, now time.Time, loc *time.Location) (time.Time, error) {
	t := strings.TrimSpace(strings.Map(func(r rune) rune {
		if d, ok := digitOf(r); ok {
			return rune(d)
		}
		return r
	}, s))
	if rest, ok := strings.CutPrefix(t, "+"); ok {
		d, err := parseAhead(rest)
		if err != nil {
			return time.Time{}, fmt.Errorf("%q: %w", SanitizeLine(s), err)
		}
		return now.Add(d), nil
	}
	if at, err := time.Parse(time.RFC3339, t); err == nil {
		return at, nil
	}
	if at, err := parseJalaliAt(t, loc); !errors.Is(err, errNotJalali) {
		if err != nil {
			return time.Time{}, fmt.Errorf("%q reads as a Jalali date: %w", SanitizeLine(s), err)
		}
		return at, nil
	}
	for _, layout := range []string{"2006-01-02 15:04", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02T15:04:05"} {
		if at, err := time.ParseInLocation(layout, t, loc); err == nil {
			return at, nil
		}
	}
	if m, err := parseClock(t); err == nil && strings.Contains(t, ":") {
		next := at(now, loc, m, 0)
		if !next.After(now) {
			next = at(now, loc, m, 1) // calendar days: 08:00 tomorrow across a clock change
		}
		return next, nil
	}
	return time.Time{}, fmt.Errorf("%q is not a time: write 08:00 (the next 08:00), 2026-11-26 08:00, an RFC 3339 time, or +30m / +2h from now", SanitizeLine(s))
}

// parseAhead reads the duration after "+": Go's (30m, 2h, 1h30m, 90s) or
// whole days (2d).
func parseAhead(s string) (time.Duration, error) {
	var d time.Duration
	var err error
	if n, ok := strings.CutSuffix(s, "d"); ok {
		var days int
		if days, err = strconv.Atoi(n); err == nil && days > 0 && days <= 36500 { // no overflow
			d = time.Duration(days) * 24 * time.Hour
		}
	} else {
		d, err = time.ParseDuration(s)
	}
	if err != nil || d <= 0 || strings.HasPrefix(s, "-") {
		return 0, errors.New("write a time from now like +30m, +2h, +1h30m or +2d")
	}
	return d, nil
}

// CheckAt says whether at may be a scheduled send's time, seen from now:
// ahead of now (ErrAtPast) and at most MaxScheduleAhead away (ErrAtTooFar).
// Quiet hours are the send rules' to check.
func CheckAt(at, now time.Time, loc *time.Location) error {
	when := at.In(loc).Format("2006-01-02 15:04") + " " + loc.String()
	switch {
	case !at.After(now):
		return fmt.Errorf("%s is %w: it is %s now", when, ErrAtPast, now.In(loc).Format("2006-01-02 15:04"))
	case at.Sub(now) > MaxScheduleAhead:
		return fmt.Errorf("%s is %w: a send may be scheduled at most %d days ahead (until %s)", when, ErrAtTooFar,
			int(MaxScheduleAhead/(24*time.Hour)), now.Add(MaxScheduleAhead).In(loc).Format("2006-01-02 15:04"))
	}
	return nil
}

// AtText is a scheduled time for people, in loc with the zone named:
// "2026-11-26 08:00 Asia/Tehran".
func AtText(at time.Time, loc *time.Location) string {
	return at.In(loc).Format("2006-01-02 15:04") + " " + loc.String()
}

// Countdown is how long until a time, for people: "9h 40m", "2d 3h",
// "12m", "45s" (under a minute), rounded to the minute above that.
func Countdown(d time.Duration) string {
	if s := d.Round(time.Second); s < time.Minute {
		return fmt.Sprintf("%ds", max(0, int(s/time.Second)))
	}
	m := int(d.Round(time.Minute) / time.Minute)
	days, hours, mins := m/(24*60), m/60%24, m%60
	switch {
	case days > 0 && hours > 0:
		return fmt.Sprintf("%dd %dh", days, hours)
	case days > 0:
		return fmt.Sprintf("%dd", days)
	case hours > 0 && mins > 0:
		return fmt.Sprintf("%dh %dm", hours, mins)
	case hours > 0:
		return fmt.Sprintf("%dh", hours)
	}
	return fmt.Sprintf("%dm", mins)
}

// DueText is a scheduled time seen from now: "in 9h 40m", or "due 3m ago"
// once it has passed.
func DueText(at, now time.Time) string {
	if d := at.Sub(now); d > 0 {
		return "in " + Countdown(d)
	}
	return "due " + Countdown(now.Sub(at)) + " ago"
}
