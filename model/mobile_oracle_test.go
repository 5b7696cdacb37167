package model

import (
	"fmt"
	"testing"
	"unicode/utf8"
)

// normalizeMobileV1 is NormalizeMobile as it was before it became a
// pipeline (one function of complexity 53), kept as the oracle the fuzz test
// compares the pipeline with: same output, same error, for any input.
func normalizeMobileV1(s string, f NumberFormat) (string, error) {
	var buf [maxMobileDigits]byte
	n := 0
	plus := false
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case c >= '0' && c <= '9':
				if n == len(buf) {
					return "", mobileErr(s, fmt.Sprintf("too long: more than %d digits", maxMobileDigits))
				}
				buf[n] = c
				n++
			case c == '+':
				if plus || n > 0 {
					return "", mobileErr(s, "\"+\" may only come first, before the country code")
				}
				plus = true
			case c == ' ' || c == '-' || c == '(' || c == ')' || c == '.' || c == '\t':
				// separators people type or paste
			default:
				return "", mobileErr(s, badCharReason(rune(c)))
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r >= '۰' && r <= '۹': // Persian digits U+06F0-06F9
			c = byte('0' + r - '۰')
		case r >= '٠' && r <= '٩': // Arabic-Indic digits U+0660-0669
			c = byte('0' + r - '٠')
		case r >= '０' && r <= '９': // full-width digits
			c = byte('0' + r - '０')
		case r == '＋':
			if plus || n > 0 {
				return "", mobileErr(s, "\"+\" may only come first, before the country code")
			}
			plus = true
			continue
		case isNumberSeparator(r):
			continue
		default:
			return "", mobileErr(s, badCharReason(r))
		}
		if n == len(buf) {
			return "", mobileErr(s, fmt.Sprintf("too long: more than %d digits", maxMobileDigits))
		}
		buf[n] = c
		n++
	}
	d := buf[:n]
	if n == 0 {
		if plus {
			return "", mobileErr(s, "no digits after \"+\"")
		}
		return "", mobileErr(s, "empty: no digits")
	}

	// Find the national significant number of an Iranian number, or hand an
	// international one to normalizeInternational.
	var national []byte
	switch {
	case plus:
		if d[0] == '0' {
			return "", mobileErr(s, "after \"+\" comes a country code, which never starts with 0")
		}
		if len(d) < 2 || d[0] != '9' || d[1] != '8' {
			return normalizeInternational(s, d)
		}
		national = d[2:]
	case len(d) >= 2 && d[0] == '0' && d[1] == '0':
		if len(d) < 4 || d[2] != '9' || d[3] != '8' {
			return normalizeInternational(s, d[2:])
		}
		national = d[4:]
	case d[0] == '0':
		national = d[1:]
	case len(d) == 12 && d[0] == '9' && d[1] == '8':
		national = d[2:] // 98 9xx xxx xxxx without + or 00
	case len(d) == 13 && d[0] == '9' && d[1] == '8' && d[2] == '0':
		national = d[3:] // 98 09xx xxx xxxx
	default:
		national = d
	}
	// People often keep the trunk 0 after the country code: +98 0912…
	if len(national) == 11 && national[0] == '0' && national[1] == '9' {
		national = national[1:]
	}
	if reason := checkIranianMobile(national); reason != "" {
		return "", mobileErr(s, reason)
	}
	var out [13]byte
	var o []byte
	if f == FormatE164 {
		o = append(append(out[:0], "+98"...), national...)
	} else {
		o = append(append(out[:0], '0'), national...)
	}
	if string(o) == s {
		return s, nil
	}
	return string(o), nil
}

func FuzzNormalizeMobileSameAsBefore(f *testing.F) {
	for _, s := range []string{"09121234567", "+989121234567", "00989121234567", "989121234567", "9809121234567", "+98 0912 123 4567",
		"۰۹۱۲۱۲۳۴۵۶۷", "٠٩١٢١٢٣٤٥٦٧", "０９１２１２３４５６７", "＋989121234567", "+14155550100", "0014155550100", "+0912", "00", "+", "",
		"0912-123-4567", "(0912) 123.4567", "0912\u00a0123\u200e4567", "09411234567", "02112345678", "0912123456789012345678901", "0912,1234567",
		"09121234567x", "\xff0912", "+9", "+98", "0098", "00012", "98 912 123 4567", "9121234567", "00 98 912 1234567"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, e164 bool) {
		format := FormatLocal
		if e164 {
			format = FormatE164
		}
		got, gotErr := NormalizeMobile(s, format)
		want, wantErr := normalizeMobileV1(s, format)
		if got != want || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Errorf("NormalizeMobile(%q) = %q, %v; before: %q, %v", s, got, gotErr, want, wantErr)
		}
	})
}
