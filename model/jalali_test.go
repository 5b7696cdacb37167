package model

import (
	"strings"
	"testing"
	"time"
)

// TestJalaliDate: Jalali dates to Gregorian, leap Esfands and the days a
// month does not have; the known pairs are Nowruz (1 Farvardin) of recent
// years, the last day of leap and common years, and the example.
func TestJalaliDate(t *testing.T) {
	for _, tc := range []struct {
		jy, jm, jd int
		want       string // 2006-01-02, or the error's words
	}{
		{1405, 9, 7, "2026-11-28"},
		{1405, 1, 1, "2026-03-21"},
		{1404, 1, 1, "2025-03-21"},
		{1403, 1, 1, "2024-03-20"},
		{1403, 12, 30, "2025-03-20"}, // 1403 is leap
		{1399, 12, 30, "2021-03-20"}, // so is 1399
		{1402, 12, 29, "2024-03-19"},
		{1404, 7, 1, "2025-09-23"},
		{1404, 6, 31, "2025-09-22"},
		{1404, 10, 11, "2026-01-01"},
		{1404, 12, 30, "has no day 30"}, // 1404 is not
		{1405, 7, 31, "has no day 31"},
		{1405, 1, 0, "has no day 0"},
		{1405, 13, 1, "months are 1"},
		{1299, 1, 1, "1300 to 1599"},
	} {
		got, err := JalaliDate(tc.jy, tc.jm, tc.jd, time.UTC)
		switch {
		case err != nil && !strings.Contains(err.Error(), tc.want):
			t.Errorf("%d-%d-%d: %v, want %s", tc.jy, tc.jm, tc.jd, err, tc.want)
		case err == nil && got.Format("2006-01-02") != tc.want:
			t.Errorf("%d-%d-%d = %s, want %s", tc.jy, tc.jm, tc.jd, got.Format("2006-01-02"), tc.want)
		}
	}
}

// TestParseAtJalali: --at reads a date in Jalali years as Jalali (it was
// "1405-09-07 08:00 … is not ahead", a time in the year 1405), in the
// profile's zone, in Persian digits and with slashes too.
func TestParseAtJalali(t *testing.T) {
	tehran, err := time.LoadLocation("Asia/Tehran")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct{ in, want string }{
		{"1405-09-07 08:00", "2026-11-28T08:00:00+03:30"},
		{"۱۴۰۵-۰۹-۰۷ ۰۸:۰۰", "2026-11-28T08:00:00+03:30"},
		{"1405/9/7 08:00", "2026-11-28T08:00:00+03:30"},
		{"1405-09-07T08:00:30", "2026-11-28T08:00:30+03:30"},
		{"1405-09-31 08:00", "has no day 31"},
		{"1405-09-07 25:00", "not a time of day"},
		{"2026-11-28 08:00", "2026-11-28T08:00:00+03:30"}, // Gregorian as before
	} {
		got, err := ParseAt(tc.in, now, tehran)
		switch {
		case err != nil && !strings.Contains(err.Error(), tc.want):
			t.Errorf("%s: %v, want %s", tc.in, err, tc.want)
		case err == nil && got.Format(time.RFC3339) != tc.want:
			t.Errorf("%s = %s, want %s", tc.in, got.Format(time.RFC3339), tc.want)
		}
	}
}
