package model

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// NumberFormat is the canonical form NormalizeMobile writes.
type NumberFormat int

const (
	// FormatLocal writes Iranian mobiles as 09xxxxxxxxx (the default).
	FormatLocal NumberFormat = iota
	// FormatE164 writes Iranian mobiles as +989xxxxxxxxx.
	FormatE164
)

// ParseNumberFormat reads "local" or "e164" (as written in config files).
func ParseNumberFormat(s string) (NumberFormat, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "local":
		return FormatLocal, nil
	case "e164", "e.164":
		return FormatE164, nil
	}
	return FormatLocal, fmt.Errorf("number format %q: want local or e164", s)
}

// MobileError explains why a number was rejected.
type MobileError struct {
	Input  string // the number as given (sanitised)
	Reason string // for people: what is wrong and, where it helps, what was expected
}

func (e *MobileError) Error() string { return fmt.Sprintf("mobile %q: %s", e.Input, e.Reason) }

// ErrInvalidMobile is matched by errors.Is for every *MobileError.
var ErrInvalidMobile = errors.New("invalid mobile number")

// Is makes errors.Is(err, ErrInvalidMobile) true.
func (e *MobileError) Is(target error) bool { return target == ErrInvalidMobile }

// Iranian mobile ranges: after the trunk 0 (or the country code 98) every Iranian
// mobile number is 9 followed by nine digits, and the two digits after the 9 name
// the operator's block. The table below lists the 09xx blocks the Communications
// Regulatory Authority (CRA) has assigned to mobile operators, as published in the
// operators' numbering notices and the ITU-T E.164 national numbering plan for
// Iran (country code 98):
//
//	0910-0919, 0990-0994  MCI (Hamrah-e Aval)
//	0900-0905, 0930, 0933, 0935-0939  MTN Irancell
//	0920-0922             RighTel
//	0931                  MTCE (Spadan, Isfahan)
//	0932                  Taliya
//	0934                  TKC (Kish)
//	0995-0999             MVNOs (e.g. Shatel Mobile 0998, Samantel/Aptel/Azartel 0999)
//
// 094x is fixed wireless (TD-LTE home lines such as Irancell's 0941), not
// mobile: an SMS there costs credit and is rarely read, so it is rejected
// with that reason. 0906-0909, 0923-0929 and 0950-0989 are unassigned: a
// number there is more likely a typo than a new operator, so it is rejected
// with the table in the reason. Extend the table when the CRA assigns a new
// block.
var mobileBlocks = [100]bool{
	0: true, 1: true, 2: true, 3: true, 4: true, 5: true,
	10: true, 11: true, 12: true, 13: true, 14: true, 15: true, 16: true, 17: true, 18: true, 19: true,
	20: true, 21: true, 22: true,
	30: true, 31: true, 32: true, 33: true, 34: true, 35: true, 36: true, 37: true, 38: true, 39: true,
	90: true, 91: true, 92: true, 93: true, 94: true, 95: true, 96: true, 97: true, 98: true, 99: true,
}

// mobileBlocksText is mobileBlocks for people.
const mobileBlocksText = "0900-0905, 0910-0922, 0930-0939, 0990-0999"

// maxMobileDigits bounds the digit buffer; longer input is rejected as too long.
const maxMobileDigits = 24

// NormalizeMobile returns the canonical form of a mobile number. Iranian mobiles
// in any common spelling (09…, 9…, +98…, 0098…, 98…, with spaces, dashes,
// parentheses, dots, no-break spaces, bidi marks, Persian or Arabic-Indic digits)
// become 09xxxxxxxxx (FormatLocal) or +989xxxxxxxxx (FormatE164), after checking
// the operator block. Other international numbers (a leading + or 00 followed by
// a country code other than 98) are kept in E.164 after a length check (8-15
// digits). A rejected number yields a *MobileError whose Reason says why.
// NormalizeMobile is idempotent on its own output and does not allocate when the
// input is already canonical.
func NormalizeMobile(s string, f NumberFormat) (string, error) {
	var buf [maxMobileDigits]byte
	digits, plus, reason := foldDigits(s, buf[:0])
	if reason != "" {
		return "", mobileErr(s, reason)
	}
	national, international, reason := cutCountryPrefix(digits, plus)
	switch {
	case reason != "":
		return "", mobileErr(s, reason)
	case international:
		return normalizeInternational(s, national)
	}
	if reason := checkIranianMobile(national); reason != "" {
		return "", mobileErr(s, reason)
	}
	return formatMobile(s, national, f), nil
}

// foldDigits keeps the digits of s (Persian, Arabic-Indic and full-width
// ones folded to ASCII) in buf, drops the punctuation and invisible marks
// people paste, and notes a leading plus. reason says why s is not a number.
func foldDigits(s string, buf []byte) (digits []byte, plus bool, reason string) {
	for _, r := range s {
		if d, ok := digitOf(r); ok {
			if len(buf) == cap(buf) {
				return nil, false, fmt.Sprintf("too long: more than %d digits", maxMobileDigits)
			}
			buf = append(buf, d)
			continue
		}
		switch {
		case r == '+' || r == '＋':
			if plus || len(buf) > 0 {
				return nil, false, "\"+\" may only come first, before the country code"
			}
			plus = true
		case !isNumberSeparator(r):
			return nil, false, badCharReason(r)
		}
	}
	switch {
	case len(buf) > 0:
		return buf, plus, ""
	case plus:
		return nil, false, "no digits after \"+\""
	}
	return nil, false, "empty: no digits"
}

// digitOf is r's digit in ASCII: r may be an ASCII, Persian (U+06F0-06F9),
// Arabic-Indic (U+0660-0669) or full-width digit.
func digitOf(r rune) (byte, bool) {
	if r < utf8.RuneSelf {
		return byte(r), r >= '0' && r <= '9'
	}
	for _, zero := range [...]rune{'۰', '٠', '０'} {
		if r >= zero && r <= zero+9 {
			return byte('0' + r - zero), true
		}
	}
	return 0, false
}

// cutCountryPrefix finds the national significant number of an Iranian
// number (without trunk 0 or country code), or, with international, the
// digits of another country's number from its country code on.
func cutCountryPrefix(d []byte, plus bool) (national []byte, international bool, reason string) {
	switch {
	case plus:
		if d[0] == '0' {
			return nil, false, "after \"+\" comes a country code, which never starts with 0"
		}
		return afterCountryCode(d)
	case len(d) >= 2 && d[0] == '0' && d[1] == '0':
		return afterCountryCode(d[2:])
	}
	return dropTrunkZero(nationalOf(d)), false, ""
}

// afterCountryCode splits digits that start at a country code: Iran's (98)
// or another's.
func afterCountryCode(d []byte) ([]byte, bool, string) {
	if !hasIranCode(d) {
		return d, true, ""
	}
	return dropTrunkZero(d[2:]), false, ""
}

// nationalOf is a number written without + or 00: 09…, 9…, or 98 9… and
// 98 09… in full.
func nationalOf(d []byte) []byte {
	switch {
	case d[0] == '0':
		return d[1:]
	case len(d) == 12 && hasIranCode(d):
		return d[2:] // 98 9xx xxx xxxx without + or 00
	case len(d) == 13 && hasIranCode(d) && d[2] == '0':
		return d[3:] // 98 09xx xxx xxxx
	}
	return d
}

func hasIranCode(d []byte) bool { return len(d) >= 2 && d[0] == '9' && d[1] == '8' }

// dropTrunkZero removes the trunk 0 people often keep after the country
// code: +98 0912…
func dropTrunkZero(national []byte) []byte {
	if len(national) == 11 && national[0] == '0' && national[1] == '9' {
		return national[1:]
	}
	return national
}

// formatMobile writes an Iranian mobile in the format asked for; s itself
// when it is already that (no allocation).
func formatMobile(s string, national []byte, f NumberFormat) string {
	var out [13]byte
	var o []byte
	if f == FormatE164 {
		o = append(append(out[:0], "+98"...), national...)
	} else {
		o = append(append(out[:0], '0'), national...)
	}
	if string(o) == s {
		return s
	}
	return string(o)
}

// checkIranianMobile validates a national significant number (without trunk 0
// or country code) and returns why it is not a mobile, or "".
func checkIranianMobile(nat []byte) string {
	if len(nat) == 0 {
		return "no digits after the country code"
	}
	if nat[0] != '9' {
		if len(nat) < 7 { // 12345: too few digits for any phone number
			return fmt.Sprintf("too short: %d digits; Iranian mobiles look like 09xxxxxxxxx", len(nat))
		}
		if nat[0] == '0' {
			return "starts with too many zeros; Iranian mobiles look like 09xxxxxxxxx"
		}
		return fmt.Sprintf("0%c… is a landline area code, not a mobile; Iranian mobiles start with 09", nat[0])
	}
	const want = 10
	if len(nat) != want {
		word := "too short"
		if len(nat) > want {
			word = "too long"
		}
		return fmt.Sprintf("%s: %d digits in the 09 form, want 11 (09xxxxxxxxx)", word, len(nat)+1)
	}
	block := int(nat[1]-'0')*10 + int(nat[2]-'0')
	if block/10 == 4 {
		return fmt.Sprintf("09%02d… is a fixed-wireless (TD-LTE) line, not a mobile", block)
	}
	if !mobileBlocks[block] {
		return fmt.Sprintf("09%02d is not an Iranian mobile prefix (mobile prefixes: %s)", block, mobileBlocksText)
	}
	return ""
}

// normalizeInternational checks a non-Iranian number given with + or 00;
// digits holds the country code onwards.
func normalizeInternational(s string, digits []byte) (string, error) {
	switch {
	case len(digits) == 0:
		return "", mobileErr(s, "no digits after the international prefix")
	case digits[0] == '0':
		return "", mobileErr(s, "after the international prefix comes a country code, which never starts with 0")
	case len(digits) < 8:
		return "", mobileErr(s, fmt.Sprintf("too short for an international number: %d digits after the country-code prefix, want 8-15", len(digits)))
	case len(digits) > 15:
		return "", mobileErr(s, fmt.Sprintf("too long for an international number: %d digits, E.164 allows at most 15", len(digits)))
	}
	if len(s) == len(digits)+1 && s[0] == '+' && s[1:] == string(digits) {
		return s, nil
	}
	var out [16]byte
	return string(append(append(out[:0], '+'), digits...)), nil
}

// isNumberSeparator reports whether r is punctuation or an invisible mark that
// may appear in a pasted number and carries no digit.
func isNumberSeparator(r rune) bool {
	switch r {
	case ' ', '-', '(', ')', '.', '\t', // separators people type
		'\u00a0',                     // no-break space
		'\u2007', '\u2009', '\u202f', // figure, thin, narrow no-break spaces
		'\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2212', // hyphens and dashes
		'\u200e', '\u200f', '\u061c', // LRM, RLM, ALM
		'\u202a', '\u202b', '\u202c', '\u202d', '\u202e', // bidi embeddings and overrides
		'\u2066', '\u2067', '\u2068', '\u2069', // bidi isolates
		'\u200b', '\u200c', '\u200d', '\ufeff', // zero-width space, ZWNJ, ZWJ, BOM
		'\u3000', '\uff08', '\uff09', '\uff0d': // ideographic space, full-width ( ) -
		return true
	}
	return false
}

// badCharReason explains a character that has no place in a number.
func badCharReason(r rune) string {
	q := strconv.QuoteRune(r)
	switch {
	case strings.ContainsRune(",;/|،؛", r):
		return fmt.Sprintf("contains %s: give one number per field", q)
	case r == utf8.RuneError:
		return "contains bytes that are not UTF-8 text"
	case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
		return fmt.Sprintf("contains the control character %s", q)
	case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f:
		return fmt.Sprintf("contains the letter %s: a number has only digits", q)
	}
	return fmt.Sprintf("contains %s, which is not a digit", q)
}

// mobileErr builds a MobileError with a display-safe copy of the input.
func mobileErr(input, reason string) *MobileError {
	in := SanitizeLine(input)
	if utf8.RuneCountInString(in) > 40 {
		r := []rune(in)
		in = string(r[:39]) + "…"
	}
	return &MobileError{Input: in, Reason: reason}
}
