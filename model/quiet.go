package model

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // a machine without zoneinfo (a container, Windows) still knows Asia/Tehran
)

// Quiet hours are the daily window in which a send may not start: Iranian
// operators refuse advertising sends outside about 08:00–22:00 Tehran time
// (Hamrah-e Aval from 22:00 to 07:00, Melipayamak from 22:00 to 08:00), and
// an operator's line is fined or blocked for breaking it. A window is local
// time in a timezone, and may wrap past midnight (22:00-08:00).

// DefaultTimezone is the timezone of a profile that does not set one.
const DefaultTimezone = "Asia/Tehran"

// QuietHours is a daily window of local wall-clock time; the zero value is
// off (no window).
type QuietHours struct {
	On         bool
	Start, End int // minutes after midnight, 0–1439; Start ≠ End
}

// ParseQuietHours reads a window as written in the config file:
// "22:00-08:00" (which wraps past midnight), "off" (or "") for none. An en
// dash, a dash with spaces and Persian digits are read too.
func ParseQuietHours(s string) (QuietHours, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	switch t {
	case "", "off", "none", "0":
		return QuietHours{}, nil
	}
	t = strings.Map(func(r rune) rune {
		if d, ok := digitOf(r); ok {
			return rune(d)
		}
		switch r {
		case '–', '—', '−':
			return '-'
		case ' ':
			return -1
		}
		return r
	}, t)
	from, to, ok := strings.Cut(t, "-")
	if !ok {
		return QuietHours{}, fmt.Errorf("%q is not a window: write it like 22:00-08:00, or off", SanitizeLine(s))
	}
	start, err := parseClock(from)
	if err != nil {
		return QuietHours{}, err
	}
	end, err := parseClock(to)
	if err != nil {
		return QuietHours{}, err
	}
	if start == end {
		return QuietHours{}, fmt.Errorf("%q starts and ends at the same time: write a window like 22:00-08:00, or off", SanitizeLine(s))
	}
	return QuietHours{On: true, Start: start, End: end}, nil
}

// parseClock reads HH:MM (or H:MM, or HH) as minutes after midnight.
func parseClock(s string) (int, error) {
	hs, ms, hasMin := strings.Cut(s, ":")
	h, err := strconv.Atoi(hs)
	m := 0
	if err == nil && hasMin {
		if len(ms) != 2 {
			err = fmt.Errorf("minutes in two digits")
		} else {
			m, err = strconv.Atoi(ms)
		}
	}
	if err != nil || len(hs) == 0 || len(hs) > 2 || h < 0 || h > 23 || m < 0 || m > 59 {
		return 0, fmt.Errorf("%q is not a time of day: write it like 22:00 (00:00 to 23:59)", SanitizeLine(s))
	}
	return h*60 + m, nil
}

// String is the window as the config file holds it: "22:00-08:00", or "off".
func (q QuietHours) String() string {
	if !q.On {
		return "off"
	}
	return clock(q.Start) + "-" + clock(q.End)
}

// Text is the window for people: "22:00–08:00".
func (q QuietHours) Text() string {
	if !q.On {
		return "off"
	}
	return clock(q.Start) + "–" + clock(q.End)
}

func clock(m int) string { return fmt.Sprintf("%02d:%02d", m/60, m%60) }

// minuteOf is t's minute of the day in loc.
func minuteOf(t time.Time, loc *time.Location) int {
	l := t.In(loc)
	return l.Hour()*60 + l.Minute()
}

// at is the instant of minute m on the day of t (in loc), plus days.
func at(t time.Time, loc *time.Location, m, days int) time.Time {
	l := t.In(loc)
	return time.Date(l.Year(), l.Month(), l.Day()+days, m/60, m%60, 0, 0, loc)
}

// Contains reports whether t falls inside the window (its start included,
// its end not), in loc.
func (q QuietHours) Contains(t time.Time, loc *time.Location) bool {
	if !q.On {
		return false
	}
	m := minuteOf(t, loc)
	if q.Start < q.End {
		return m >= q.Start && m < q.End
	}
	return m >= q.Start || m < q.End // wraps past midnight
}

// AllowedFrom is when sending may start at or after t: t itself outside
// the window, else the window's end.
func (q QuietHours) AllowedFrom(t time.Time, loc *time.Location) time.Time {
	if !q.Contains(t, loc) {
		return t
	}
	days := 0
	if q.Start > q.End && minuteOf(t, loc) >= q.Start {
		days = 1 // 23:00 in 22:00-08:00 ends tomorrow at 08:00
	}
	return at(t, loc, q.End, days)
}

// NextStart is the next start of the window after t (zero when off): today's
// start if it is still ahead, else tomorrow's.
func (q QuietHours) NextStart(t time.Time, loc *time.Location) time.Time {
	if !q.On {
		return time.Time{}
	}
	s := at(t, loc, q.Start, 0)
	if !s.After(t) {
		s = at(t, loc, q.Start, 1)
	}
	return s
}

// Reaches reports whether a send that starts at t (outside the window) and
// runs for about d reaches the window's start, and when that start is.
func (q QuietHours) Reaches(t time.Time, d time.Duration, loc *time.Location) (time.Time, bool) {
	if !q.On || q.Contains(t, loc) {
		return time.Time{}, false
	}
	s := q.NextStart(t, loc)
	return s, !t.Add(d).Before(s)
}

// HeldAtQuiet estimates how many of n items a send would hold at the
// window's start: the send begins at now with requests requests of
// chunkSize items spread evenly over d (EstimateDuration); those that would
// begin at or after start wait.
func HeldAtQuiet(now, start time.Time, n, chunkSize, requests int, d time.Duration) int {
	if requests <= 0 || n <= 0 || !start.After(now) {
		return max(n, 0)
	}
	if chunkSize <= 0 {
		chunkSize = 100
	}
	before := requests // chunks that begin before start
	if requests > 1 && d > 0 {
		interval := d / time.Duration(requests-1)
		if interval > 0 {
			before = min(requests, int((start.Sub(now)+interval-1)/interval))
		}
	}
	return max(0, n-before*chunkSize)
}

// LoadTimezone reads a profile's timezone: an IANA name such as Asia/Tehran
// or UTC ("" is DefaultTimezone). "Local" is refused: on a server it is the
// server's zone, not the operators'.
func LoadTimezone(name string) (*time.Location, error) {
	n := strings.TrimSpace(name)
	if n == "" {
		n = DefaultTimezone
	}
	if strings.EqualFold(n, "local") {
		return nil, fmt.Errorf("%q is this machine's zone, which a server may not share: name the zone, such as %s", SanitizeLine(name), DefaultTimezone)
	}
	loc, err := time.LoadLocation(n)
	if err != nil {
		return nil, fmt.Errorf("%q is not a timezone: use an IANA name such as %s, Europe/Berlin or UTC", SanitizeLine(name), DefaultTimezone)
	}
	return loc, nil
}

// QuietText is the window with its zone for people: "quiet hours
// 22:00–08:00 Asia/Tehran".
func QuietText(q QuietHours, loc *time.Location) string {
	return "quiet hours " + q.Text() + " " + loc.String()
}

// ClockText is t for people in loc: "08:00" when it is on the day of now,
// "tomorrow 08:00" the day after, else "2026-11-27 08:00".
func ClockText(t, now time.Time, loc *time.Location) string {
	lt, ln := t.In(loc), now.In(loc)
	y1, m1, d1 := lt.Date()
	y2, m2, d2 := ln.Date()
	day := time.Date(y1, m1, d1, 0, 0, 0, 0, time.UTC).Sub(time.Date(y2, m2, d2, 0, 0, 0, 0, time.UTC))
	switch day {
	case 0:
		return lt.Format("15:04")
	case 24 * time.Hour:
		return "tomorrow " + lt.Format("15:04")
	}
	return lt.Format("2006-01-02 15:04")
}
