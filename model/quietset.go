package model

import "time"

// A send may keep more than one quiet window: the profile's quiet_hours
// (in the profile's timezone) and its line's (an advertising line's
// 22:00–07:00 Tehran for MCI numbers, LineRules). Both hold: a send may not
// start inside either, and what waits waits until it is inside neither.

// QuietRule is one quiet window in its zone, with where it comes from.
type QuietRule struct {
	Hours QuietHours
	Zone  *time.Location
	// Why names where the window comes from, for people ("advertising line
	// 3000 to MCI numbers"); "" is the profile's quiet_hours.
	Why string
}

// Text is the window for people: "quiet hours 22:00–08:00 Asia/Tehran",
// after where it comes from when that is not the profile
// ("advertising line 3000 to MCI numbers: quiet hours 22:00–07:00
// Asia/Tehran").
func (r QuietRule) Text() string {
	t := QuietText(r.Hours, r.Zone)
	if r.Why != "" {
		t = r.Why + ": " + t
	}
	return t
}

// Contains reports whether t falls inside the window.
func (r QuietRule) Contains(t time.Time) bool { return r.Hours.Contains(t, r.Zone) }

// StartedAt is when the window t is inside began (t itself at the latest).
func (r QuietRule) StartedAt(t time.Time) time.Time {
	start := r.Hours.NextStart(t.Add(-24*time.Hour), r.Zone)
	if start.After(t) {
		start = t
	}
	return start
}

// QuietSet are the quiet windows a send keeps, the line's first.
type QuietSet []QuietRule

// On reports whether any window is on.
func (qs QuietSet) On() bool {
	for _, r := range qs {
		if r.Hours.On {
			return true
		}
	}
	return false
}

// Inside is the first window t falls inside, and whether there is one.
func (qs QuietSet) Inside(t time.Time) (QuietRule, bool) {
	for _, r := range qs {
		if r.Contains(t) {
			return r, true
		}
	}
	return QuietRule{}, false
}

// AllowedFrom is when sending may start at or after t: t itself outside
// every window, else the first instant inside none (one window's end may
// fall inside another: 21:00–23:00 and 22:00–07:00 end at 07:00).
func (qs QuietSet) AllowedFrom(t time.Time) time.Time {
	for range 2*len(qs) + 1 { // each window can push t on at most twice a day
		moved := false
		for _, r := range qs {
			if u := r.Hours.AllowedFrom(t, r.Zone); u.After(t) {
				t, moved = u, true
			}
		}
		if !moved {
			break
		}
	}
	return t
}

// NextStart is the earliest start of a window after t, with that window;
// false when every window is off.
func (qs QuietSet) NextStart(t time.Time) (time.Time, QuietRule, bool) {
	var first time.Time
	var rule QuietRule
	for _, r := range qs {
		s := r.Hours.NextStart(t, r.Zone)
		if s.IsZero() {
			continue
		}
		if first.IsZero() || s.Before(first) {
			first, rule = s, r
		}
	}
	return first, rule, !first.IsZero()
}

// Reaches reports whether a send that starts at t (outside every window)
// and runs for about d reaches a window's start, which, and when.
func (qs QuietSet) Reaches(t time.Time, d time.Duration) (time.Time, QuietRule, bool) {
	if _, in := qs.Inside(t); in {
		return time.Time{}, QuietRule{}, false
	}
	s, r, ok := qs.NextStart(t)
	if !ok {
		return time.Time{}, QuietRule{}, false
	}
	return s, r, !t.Add(d).Before(s)
}
