package model

import (
	"strings"
	"testing"
	"time"
)

func TestParseQuietHours(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
	}{
		{"22:00-08:00", "22:00-08:00", ""},
		{"off", "off", ""},
		{"", "off", ""},
		{" 22:00 – 08:00 ", "22:00-08:00", ""},
		{"۲۲:۰۰-۰۸:۰۰", "22:00-08:00", ""},
		{"9:30-17:00", "09:30-17:00", ""},
		{"22-8", "22:00-08:00", ""},
		{"22:00", "", "not a window"},
		{"24:00-08:00", "", "not a time of day"},
		{"22:0-08:00", "", "not a time of day"},
		{"22:00-22:00", "", "same time"},
		{"x-y", "", "not a time of day"},
	} {
		q, err := ParseQuietHours(tc.in)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseQuietHours(%q) error %v, want %q", tc.in, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("ParseQuietHours(%q): %v", tc.in, err)
		case tc.err == "" && q.String() != tc.want:
			t.Errorf("ParseQuietHours(%q) = %s, want %s", tc.in, q, tc.want)
		}
	}
}

func TestQuietHoursInTehran(t *testing.T) {
	tehran, err := LoadTimezone("")
	if err != nil {
		t.Fatal(err)
	}
	if tehran.String() != "Asia/Tehran" {
		t.Fatalf("default zone %s", tehran)
	}
	wrap, _ := ParseQuietHours("22:00-08:00")
	day, _ := ParseQuietHours("13:00-14:30")
	local := func(s string) time.Time {
		v, err := time.ParseInLocation("2006-01-02 15:04", s, tehran)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tc := range []struct {
		name    string
		q       QuietHours
		now     string
		inside  bool
		allowed string // when sending may start
		next    string // the next start
	}{
		{"evening before", wrap, "2026-11-25 21:59", false, "2026-11-25 21:59", "2026-11-25 22:00"},
		{"at the start", wrap, "2026-11-25 22:00", true, "2026-11-26 08:00", "2026-11-26 22:00"},
		{"before midnight", wrap, "2026-11-25 23:30", true, "2026-11-26 08:00", "2026-11-26 22:00"},
		{"after midnight", wrap, "2026-11-26 03:00", true, "2026-11-26 08:00", "2026-11-26 22:00"},
		{"at the end", wrap, "2026-11-26 08:00", false, "2026-11-26 08:00", "2026-11-26 22:00"},
		{"midday window inside", day, "2026-11-26 13:10", true, "2026-11-26 14:30", "2026-11-27 13:00"},
		{"midday window after", day, "2026-11-26 15:00", false, "2026-11-26 15:00", "2026-11-27 13:00"},
		{"off", QuietHours{}, "2026-11-26 03:00", false, "2026-11-26 03:00", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := local(tc.now)
			// The same instant seen from UTC: the zone, not the clock's, decides.
			nowUTC := now.UTC()
			if got := tc.q.Contains(nowUTC, tehran); got != tc.inside {
				t.Errorf("Contains = %v, want %v", got, tc.inside)
			}
			if got := tc.q.AllowedFrom(nowUTC, tehran); !got.Equal(local(tc.allowed)) {
				t.Errorf("AllowedFrom = %v, want %s", got.In(tehran), tc.allowed)
			}
			got := tc.q.NextStart(nowUTC, tehran)
			if tc.next == "" {
				if !got.IsZero() {
					t.Errorf("NextStart = %v, want none", got)
				}
			} else if !got.Equal(local(tc.next)) {
				t.Errorf("NextStart = %v, want %s", got.In(tehran), tc.next)
			}
		})
	}
}

func TestQuietHoursReaches(t *testing.T) {
	tehran, _ := LoadTimezone("Asia/Tehran")
	q, _ := ParseQuietHours("22:00-08:00")
	start := time.Date(2026, 11, 25, 21, 30, 0, 0, tehran)
	for _, tc := range []struct {
		d     time.Duration
		reach bool
	}{{10 * time.Minute, false}, {30 * time.Minute, true}, {40 * time.Minute, true}} {
		at, ok := q.Reaches(start, tc.d, tehran)
		if ok != tc.reach || ok && !at.Equal(time.Date(2026, 11, 25, 22, 0, 0, 0, tehran)) {
			t.Errorf("Reaches(21:30, %v) = %v %v, want %v at 22:00", tc.d, at, ok, tc.reach)
		}
	}
	if _, ok := q.Reaches(start.Add(time.Hour), time.Hour, tehran); ok {
		t.Error("a send that starts inside the window 'reaches' it: it is refused before, not held")
	}
}

func TestLoadTimezone(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"", "Asia/Tehran", ""},
		{"UTC", "UTC", ""},
		{"Europe/Berlin", "Europe/Berlin", ""},
		{"Local", "", "this machine's zone"},
		{"Mars/Olympus", "", "not a timezone"},
	} {
		loc, err := LoadTimezone(tc.in)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("LoadTimezone(%q) error %v, want %q", tc.in, err, tc.err)
			}
		case err != nil || loc.String() != tc.want:
			t.Errorf("LoadTimezone(%q) = %v, %v", tc.in, loc, err)
		}
	}
}

func TestClockText(t *testing.T) {
	tehran, _ := LoadTimezone("")
	now := time.Date(2026, 11, 25, 23, 0, 0, 0, tehran)
	for _, tc := range []struct {
		t    time.Time
		want string
	}{
		{time.Date(2026, 11, 25, 23, 30, 0, 0, tehran), "23:30"},
		{time.Date(2026, 11, 26, 8, 0, 0, 0, tehran), "tomorrow 08:00"},
		{time.Date(2026, 11, 28, 8, 0, 0, 0, tehran), "2026-11-28 08:00"},
	} {
		if got := ClockText(tc.t.UTC(), now.UTC(), tehran); got != tc.want {
			t.Errorf("ClockText = %q, want %q", got, tc.want)
		}
	}
}
