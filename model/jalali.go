package model

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"time"
)

// The Jalali (Solar Hijri) calendar is Iran's: an operator may well write
// --at "1405-09-07 08:00" for 2026-11-28. Its years are 1300–1599 here
// (1921–2220 Gregorian), which no Gregorian time a send may have shares.

// jalaliBreaks are the years where the 33-year leap cycle restarts
// (Borkowski's arithmetic, as jalaali-js uses it): exact for 1–3177.
var jalaliBreaks = [...]int{-61, 9, 38, 199, 426, 686, 756, 818, 1111, 1181, 1210, 1635, 2060, 2097, 2192, 2262, 2324, 2394, 2456, 3178}

// jalaliNowruz is the Gregorian day (in March of jy+621) of 1 Farvardin jy.
func jalaliNowruz(jy int) int {
	gy := jy + 621
	leapJ, jp, jump := -14, jalaliBreaks[0], 0
	for _, jm := range jalaliBreaks[1:] {
		jump = jm - jp
		if jy < jm {
			break
		}
		leapJ += jump/33*8 + jump%33/4
		jp = jm
	}
	n := jy - jp
	leapJ += n/33*8 + (n%33+3)/4
	if jump%33 == 4 && jump-n == 4 {
		leapJ++
	}
	leapG := gy/4 - (gy/100+1)*3/4 - 150
	return 20 + leapJ - leapG
}

// JalaliDate is the Gregorian date (midnight in loc) of Jalali year jy,
// month jm (1 Farvardin … 12 Esfand) and day jd; a day the month does not
// have is an error (Esfand has 30 in a leap year, else 29).
func JalaliDate(jy, jm, jd int, loc *time.Location) (time.Time, error) {
	if jy < 1300 || jy > 1599 {
		return time.Time{}, fmt.Errorf("year %d of the Jalali calendar: smsdesk reads 1300 to 1599", jy)
	}
	days := 31
	switch {
	case jm < 1 || jm > 12:
		return time.Time{}, fmt.Errorf("month %d of the Jalali calendar: months are 1 (Farvardin) to 12 (Esfand)", jm)
	case jm > 6:
		days = 30
	}
	date := func(y, m, d int) time.Time {
		// Days from 1 Farvardin: 31 in each of the first six months, 30 after.
		return time.Date(y+621, time.March, jalaliNowruz(y)+(m-1)*31-max(0, m-7)+d-1, 0, 0, 0, 0, loc)
	}
	t := date(jy, jm, jd)
	if jd < 1 || jd > days || jm == 12 && !t.Before(date(jy+1, 1, 1)) {
		return time.Time{}, fmt.Errorf("%d-%02d-%02d of the Jalali calendar: month %d of %d has no day %d", jy, jm, jd, jm, jy, jd)
	}
	return t, nil
}

// jalaliAt matches a date and time written in Jalali years:
// 1405-09-07 08:00, 1405/9/7 08:00, 1405-09-07T08:00:00.
var jalaliAt = regexp.MustCompile(`^(1[3-5]\d\d)[-/](\d{1,2})[-/](\d{1,2})[ T](\d{1,2}):(\d\d)(?::(\d\d))?$`)

// errNotJalali is parseJalaliAt's answer for text that is not a Jalali date.
var errNotJalali = errors.New("not a Jalali date")

// parseJalaliAt reads t (ASCII digits) as a Jalali date and time in loc.
func parseJalaliAt(t string, loc *time.Location) (time.Time, error) {
	m := jalaliAt.FindStringSubmatch(t)
	if m == nil {
		return time.Time{}, errNotJalali
	}
	n := make([]int, 6)
	for i, s := range m[1:] {
		n[i], _ = strconv.Atoi(s) // "" (no seconds) reads 0
	}
	if n[3] > 23 || n[4] > 59 || n[5] > 59 {
		return time.Time{}, fmt.Errorf("%02d:%02d is not a time of day", n[3], n[4])
	}
	d, err := JalaliDate(n[0], n[1], n[2], loc)
	if err != nil {
		return time.Time{}, err
	}
	return time.Date(d.Year(), d.Month(), d.Day(), n[3], n[4], n[5], 0, loc), nil
}
