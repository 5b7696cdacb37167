package model

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseAt(t *testing.T) {
	tehran, _ := LoadTimezone("")
	berlin, _ := LoadTimezone("Europe/Berlin")
	// 2026-11-25 22:20 in Tehran (+03:30).
	now := time.Date(2026, 11, 25, 18, 50, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		loc  *time.Location
		want string // RFC 3339 in UTC
		err  string
	}{
		{"08:00", tehran, "2026-11-26T04:30:00Z", ""},                     // the next 08:00 is tomorrow's
		{"23:15", tehran, "2026-11-25T19:45:00Z", ""},                     // still ahead today
		{"22:20", tehran, "2026-11-26T18:50:00Z", ""},                     // now is not ahead: tomorrow
		{"۰۸:۰۰", tehran, "2026-11-26T04:30:00Z", ""},                     // Persian digits
		{" 8:05 ", tehran, "2026-11-26T04:35:00Z", ""},                    // H:MM
		{"08:00", berlin, "2026-11-26T07:00:00Z", ""},                     // the profile's zone decides
		{"2026-11-26 08:00", tehran, "2026-11-26T04:30:00Z", ""},          // a day and time in the zone
		{"2026-11-26T08:00", tehran, "2026-11-26T04:30:00Z", ""},          // with a T
		{"2026-11-20 08:00", tehran, "2026-11-20T04:30:00Z", ""},          // past: parsed; CheckAt refuses it
		{"2026-11-26T08:00:00+01:00", tehran, "2026-11-26T07:00:00Z", ""}, // RFC 3339 keeps its offset
		{"+30m", tehran, "2026-11-25T19:20:00Z", ""},
		{"+2h", tehran, "2026-11-25T20:50:00Z", ""},
		{"+1h30m", tehran, "2026-11-25T20:20:00Z", ""},
		{"+90s", tehran, "2026-11-25T18:51:30Z", ""},
		{"+2d", tehran, "2026-11-27T18:50:00Z", ""},
		{"+0m", tehran, "", "a time from now"},
		{"+-5m", tehran, "", "a time from now"},
		{"+soon", tehran, "", "a time from now"},
		{"8", tehran, "", "not a time"},
		{"24:00", tehran, "", "not a time"},
		{"tomorrow", tehran, "", "not a time"},
		{"", tehran, "", "not a time"},
		{"2026-13-01 08:00", tehran, "", "not a time"},
	} {
		got, err := ParseAt(tc.in, now, tc.loc)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseAt(%q) = %v, %v; want an error with %q", tc.in, got, err, tc.err)
			}
		case err != nil:
			t.Errorf("ParseAt(%q): %v", tc.in, err)
		case got.UTC().Format(time.RFC3339) != tc.want:
			t.Errorf("ParseAt(%q) = %s, want %s", tc.in, got.UTC().Format(time.RFC3339), tc.want)
		}
	}
}

func TestCheckAt(t *testing.T) {
	tehran, _ := LoadTimezone("")
	now := time.Date(2026, 11, 25, 18, 50, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		at   time.Time
		want error
		text string
	}{
		{"a minute ahead", now.Add(time.Minute), nil, ""},
		{"35 days ahead", now.Add(MaxScheduleAhead), nil, ""},
		{"now", now, ErrAtPast, "2026-11-25 22:20 Asia/Tehran is not ahead: it is 2026-11-25 22:20 now"},
		{"an hour ago", now.Add(-time.Hour), ErrAtPast, "is not ahead"},
		{"35 days and a minute", now.Add(MaxScheduleAhead + time.Minute), ErrAtTooFar, "at most 35 days ahead (until 2026-12-30 22:20)"},
	} {
		err := CheckAt(tc.at, now, tehran)
		if !errors.Is(err, tc.want) || tc.want == nil && err != nil {
			t.Errorf("%s: CheckAt = %v, want %v", tc.name, err, tc.want)
			continue
		}
		if tc.text != "" && !strings.Contains(err.Error(), tc.text) {
			t.Errorf("%s: %q lacks %q", tc.name, err, tc.text)
		}
	}
}

func TestCountdown(t *testing.T) {
	now := time.Date(2026, 11, 25, 18, 50, 0, 0, time.UTC)
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{45 * time.Second, "45s"},
		{59*time.Second + 600*time.Millisecond, "1m"}, // not "60s"
		{0, "0s"},
		{-time.Second, "0s"},
		{12 * time.Minute, "12m"},
		{9*time.Hour + 40*time.Minute, "9h 40m"},
		{9*time.Hour + 39*time.Minute + 40*time.Second, "9h 40m"},
		{2 * time.Hour, "2h"},
		{51 * time.Hour, "2d 3h"},
		{48 * time.Hour, "2d"},
	} {
		if got := Countdown(tc.d); got != tc.want {
			t.Errorf("Countdown(%s) = %q, want %q", tc.d, got, tc.want)
		}
	}
	if got := DueText(now.Add(9*time.Hour+40*time.Minute), now); got != "in 9h 40m" {
		t.Errorf("DueText ahead = %q", got)
	}
	if got := DueText(now.Add(-3*time.Minute), now); got != "due 3m ago" {
		t.Errorf("DueText past = %q", got)
	}
}

// FuzzParseAt: any text either reads as a time or is refused with words;
// it never panics, and a time it reads from "+…" is ahead of now.
func FuzzParseAt(f *testing.F) {
	for _, s := range []string{"08:00", "۲۳:۵۹", "2026-11-26 08:00", "2026-11-26T08:00:00+03:30", "+30m", "+2d", "+-1h",
		"+9999999999d", "25:00", "", "+", "2026-02-30 08:00", "00:00", "+1h30m", "T08:00"} {
		f.Add(s)
	}
	tehran, _ := LoadTimezone("")
	now := time.Date(2026, 11, 25, 18, 50, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		at, err := ParseAt(s, now, tehran)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an error without words")
			}
			return
		}
		if strings.HasPrefix(strings.TrimSpace(s), "+") && !at.After(now) {
			t.Fatalf("ParseAt(%q) = %v: not ahead of now", s, at)
		}
		_ = CheckAt(at, now, tehran)
	})
}
