package model

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestNormalizeMobileAccepts(t *testing.T) {
	tests := []struct {
		in, local, e164 string
	}{
		{"09121234567", "09121234567", "+989121234567"},
		{"9121234567", "09121234567", "+989121234567"},
		{"+989121234567", "09121234567", "+989121234567"},
		{"00989121234567", "09121234567", "+989121234567"},
		{"989121234567", "09121234567", "+989121234567"},
		{"9809121234567", "09121234567", "+989121234567"},
		{"+98 0912 123 4567", "09121234567", "+989121234567"},
		{"0098 (912) 123-4567", "09121234567", "+989121234567"},
		{"  0912-123-4567 ", "09121234567", "+989121234567"},
		{"0912.123.4567", "09121234567", "+989121234567"},
		{"(0912) 123 45 67", "09121234567", "+989121234567"},
		{"0912\u00a0123\u00a04567", "09121234567", "+989121234567"},         // NBSP
		{"\u200e+98 912 123 4567\u200f", "09121234567", "+989121234567"},    // LRM, RLM
		{"\u061c09121234567", "09121234567", "+989121234567"},               // ALM
		{"\u2066+989121234567\u2069", "09121234567", "+989121234567"},       // isolate
		{"۰۹۱۲۱۲۳۴۵۶۷", "09121234567", "+989121234567"},                     // Persian digits
		{"٠٩١٢١٢٣٤٥٦٧", "09121234567", "+989121234567"},                     // Arabic-Indic digits
		{"+۹۸ ۹۱۲ ۱۲۳ ۴۵۶۷", "09121234567", "+989121234567"},                // Persian with +98
		{"۰۹۱۲-123-۴۵۶۷", "09121234567", "+989121234567"},                   // mixed digits
		{"０９１２１２３４５６７", "09121234567", "+989121234567"},                     // full-width digits
		{"0912\u2013123\u20134567", "09121234567", "+989121234567"},         // en dashes
		{"09001234567", "09001234567", "+989001234567"},                     // Irancell 0900
		{"09051234567", "09051234567", "+989051234567"},                     // Irancell 0905
		{"09221234567", "09221234567", "+989221234567"},                     // RighTel
		{"09301234567", "09301234567", "+989301234567"},                     // Irancell
		{"09391234567", "09391234567", "+989391234567"},                     // Irancell
		{"09901234567", "09901234567", "+989901234567"},                     // MCI
		{"09981234567", "09981234567", "+989981234567"},                     // MVNO
		{"09991234567", "09991234567", "+989991234567"},                     // MVNO
		{"+4915112345678", "+4915112345678", "+4915112345678"},              // Germany
		{"0044 20 7946 0958", "+442079460958", "+442079460958"},             // UK via 00
		{"+1 (415) 555-2671", "+14155552671", "+14155552671"},               // US
		{"+971501234567", "+971501234567", "+971501234567"},                 // UAE
		{"+12345678", "+12345678", "+12345678"},                             // 8 digits: shortest allowed
		{"+123456789012345", "+123456789012345", "+123456789012345"},        // 15 digits: longest allowed
		{"\ufeff09121234567", "09121234567", "+989121234567"},               // BOM from a file
		{"09121234567\u200c", "09121234567", "+989121234567"},               // stray ZWNJ
		{"\t0912 123 4567\t", "09121234567", "+989121234567"},               // tabs
		{"＋989121234567", "09121234567", "+989121234567"},                   // full-width plus
		{"(+98) 912 123 4567", "09121234567", "+989121234567"},              // parenthesised code
		{"0 9 1 2 1 2 3 4 5 6 7", "09121234567", "+989121234567"},           // spaced out
		{"+98-912-123-4567", "09121234567", "+989121234567"},                // dashes
		{"0098-0912-123-4567", "09121234567", "+989121234567"},              // 00 98 then trunk 0
		{"+9809121234567", "09121234567", "+989121234567"},                  // + 98 then trunk 0
		{"0936 123 4567", "09361234567", "+989361234567"},                   // Irancell
		{"0921 123 4567", "09211234567", "+989211234567"},                   // RighTel
		{"0919 999 9999", "09199999999", "+989199999999"},                   // MCI
		{"٠٩١٩ ٩٩٩ ٩٩٩٩", "09199999999", "+989199999999"},                   // Arabic-Indic
		{"+98 (0) 912 123 4567", "09121234567", "+989121234567"},            // (0) trunk hint
		{"00 1 415 555 2671", "+14155552671", "+14155552671"},               // 00 international
		{"+86 138 0013 8000", "+8613800138000", "+8613800138000"},           // China
		{"+90 532 123 45 67", "+905321234567", "+905321234567"},             // Turkey
		{"+964 770 123 4567", "+9647701234567", "+9647701234567"},           // Iraq
		{"+93 70 123 4567", "+93701234567", "+93701234567"},                 // Afghanistan
		{"۰۰۴۴۲۰۷۹۴۶۰۹۵۸", "+442079460958", "+442079460958"},                // Persian digits, 00
		{"+97150-123-4567", "+971501234567", "+971501234567"},               // dashes
		{"+1 415 555 2671 ", "+14155552671", "+14155552671"},                // trailing space
		{"+98912 123 4567", "09121234567", "+989121234567"},                 // no space after code
		{"0098912-1234567", "09121234567", "+989121234567"},                 // 0098 glued
		{"98 912 123 4567", "09121234567", "+989121234567"},                 // 98 without +
		{"912 123 4567", "09121234567", "+989121234567"},                    // 9… without 0
		{"۹۱۲۱۲۳۴۵۶۷", "09121234567", "+989121234567"},                      // 9… Persian
		{"(۰۹۱۲) ۱۲۳-۴۵۶۷", "09121234567", "+989121234567"},                 // Persian punctuated
		{"\u202b۰۹۱۲۱۲۳۴۵۶۷\u202c", "09121234567", "+989121234567"},         // RLE … PDF
		{"\u200f۰۹۱۲ ۱۲۳ ۴۵۶۷\u200f", "09121234567", "+989121234567"},       // RLM around
		{"+98\u00a0912\u00a0123\u00a04567", "09121234567", "+989121234567"}, // NBSP with +98
	}
	for _, tt := range tests {
		got, err := NormalizeMobile(tt.in, FormatLocal)
		if err != nil || got != tt.local {
			t.Errorf("NormalizeMobile(%q, local) = %q, %v; want %q", tt.in, got, err, tt.local)
		}
		got, err = NormalizeMobile(tt.in, FormatE164)
		if err != nil || got != tt.e164 {
			t.Errorf("NormalizeMobile(%q, e164) = %q, %v; want %q", tt.in, got, err, tt.e164)
		}
	}
}

func TestNormalizeMobileRejects(t *testing.T) {
	tests := []struct {
		in     string
		reason string // a substring of MobileError.Reason
	}{
		{"", "empty"},
		{"   ", "empty"},
		{"-", "empty"},
		{"+", "no digits after \"+\""},
		{"abc", "letter 'a'"},
		{"0912abc4567", "letter 'a'"},
		{"۰۹۱۲ الف", "letter 'ا'"},
		{"0912123456", "too short: 10 digits in the 09 form, want 11"},
		{"091212345678", "too long: 12 digits in the 09 form, want 11"},
		{"912123456", "too short: 10 digits in the 09 form, want 11"},
		{"+98912123456", "too short: 10 digits"},
		{"+9891212345678", "too long: 12 digits"},
		{"02188776655", "02… is a landline area code"},
		{"+982188776655", "02… is a landline area code"},
		{"03134567890", "03… is a landline area code"},
		{"09601234567", "0960 is not an Iranian mobile prefix"},
		{"09061234567", "0906 is not an Iranian mobile prefix"},
		{"09231234567", "0923 is not an Iranian mobile prefix"},
		{"09401234567", "0940… is a fixed-wireless (TD-LTE) line, not a mobile"},
		{"09411234567", "0941… is a fixed-wireless (TD-LTE) line, not a mobile"},
		{"+989411234567", "0941… is a fixed-wireless (TD-LTE) line, not a mobile"},
		{"09421234567", "0942… is a fixed-wireless (TD-LTE) line, not a mobile"},
		{"09801234567", "0980 is not an Iranian mobile prefix"},
		{"0912 123 4567, 0913 123 4567", "one number per field"},
		{"09121234567;09131234567", "one number per field"},
		{"0912/1234567", "one number per field"},
		{"0912+1234567", "\"+\" may only come first"},
		{"++989121234567", "\"+\" may only come first"},
		{"+0989121234567", "never starts with 0"},
		{"+1234567", "too short for an international number: 7 digits"},
		{"+1234567890123456", "too long for an international number: 16 digits"},
		{"00441234", "too short for an international number: 6 digits"},
		{"000441234567", "never starts with 0"},
		{"0098", "no digits after the country code"},
		{"12345", "too short: 5 digits; Iranian mobiles look like 09xxxxxxxxx"}, // it said "01… is a landline area code"
		{"0009121234567", "never starts with 0"},
		{"+98009121234567", "too many zeros"},
		{strings.Repeat("9", 30), "too long: more than 24 digits"},
		{"0912\x001234567", "control character"},
		{"0912\x1b[31m1234567", "control character"},
		{"0912\xff1234567", "not UTF-8"},
		{"0912_1234567", "'_', which is not a digit"},
		{"tel:09121234567", "letter 't'"},
	}
	for _, tt := range tests {
		got, err := NormalizeMobile(tt.in, FormatLocal)
		if err == nil {
			t.Errorf("NormalizeMobile(%q) = %q, want an error about %q", tt.in, got, tt.reason)
			continue
		}
		if got != "" {
			t.Errorf("NormalizeMobile(%q) returned %q with its error", tt.in, got)
		}
		var me *MobileError
		if !errors.As(err, &me) || !errors.Is(err, ErrInvalidMobile) {
			t.Errorf("NormalizeMobile(%q): error %T %v is not a *MobileError matching ErrInvalidMobile", tt.in, err, err)
			continue
		}
		if !strings.Contains(me.Reason, tt.reason) {
			t.Errorf("NormalizeMobile(%q): reason %q, want it to contain %q", tt.in, me.Reason, tt.reason)
		}
		if strings.ContainsAny(me.Input, "\x00\x1b") || !utf8.ValidString(me.Input) {
			t.Errorf("NormalizeMobile(%q): MobileError.Input %q is not sanitised", tt.in, me.Input)
		}
	}
}

func TestNormalizeMobilePrefixTable(t *testing.T) {
	// Every 09xx block: accepted exactly when it is in the documented table.
	valid := map[int]bool{}
	for _, r := range [][2]int{{0, 5}, {10, 22}, {30, 39}, {90, 99}} {
		for b := r[0]; b <= r[1]; b++ {
			valid[b] = true
		}
	}
	for b := 0; b < 100; b++ {
		in := "09" + string(rune('0'+b/10)) + string(rune('0'+b%10)) + "1234567"
		_, err := NormalizeMobile(in, FormatLocal)
		if valid[b] != (err == nil) {
			t.Errorf("block 09%02d: valid=%v, err=%v", b, valid[b], err)
		}
	}
}

func TestNormalizeMobileErrorText(t *testing.T) {
	_, err := NormalizeMobile("0960 123 4567", FormatLocal)
	want := `mobile "0960 123 4567": 0960 is not an Iranian mobile prefix (mobile prefixes: 0900-0905, 0910-0922, 0930-0939, 0990-0999)`
	if err == nil || err.Error() != want {
		t.Fatalf("error = %v\nwant    %s", err, want)
	}
	long := strings.Repeat("x", 100)
	_, err = NormalizeMobile(long, FormatLocal)
	var me *MobileError
	if !errors.As(err, &me) || utf8.RuneCountInString(me.Input) != 40 || !strings.HasSuffix(me.Input, "…") {
		t.Errorf("long input kept as %q; want 39 characters and an ellipsis", me.Input)
	}
}

func TestNormalizeMobileNoAllocOnCanonical(t *testing.T) {
	for _, tt := range []struct {
		in string
		f  NumberFormat
	}{{"09121234567", FormatLocal}, {"+989121234567", FormatE164}, {"+4915112345678", FormatLocal}} {
		allocs := testing.AllocsPerRun(100, func() {
			if _, err := NormalizeMobile(tt.in, tt.f); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("NormalizeMobile(%q) allocates %v times; canonical input should not allocate", tt.in, allocs)
		}
	}
}

func TestParseNumberFormat(t *testing.T) {
	for in, want := range map[string]NumberFormat{"": FormatLocal, "local": FormatLocal, " LOCAL ": FormatLocal, "e164": FormatE164, "E.164": FormatE164} {
		got, err := ParseNumberFormat(in)
		if err != nil || got != want {
			t.Errorf("ParseNumberFormat(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseNumberFormat("intl"); err == nil {
		t.Error("ParseNumberFormat(intl) succeeded")
	}
}

func FuzzNormalizeMobile(f *testing.F) {
	for _, s := range []string{"09121234567", "+989121234567", "0098 912 123 4567", "۰۹۱۲۱۲۳۴۵۶۷", "٠٩١٢١٢٣٤٥٦٧",
		"\u200e+98 912\u00a0123 4567", "+4915112345678", "0044 20 7946 0958", "", "+", "++", "0", "98", "+98",
		"0912-abc", "02188776655", "09601234567", "9121234567", "+9809121234567", "\xff\xfe", "0912\x1b[0m",
		strings.Repeat("0", 40), "＋٩٨٩١٢١٢٣٤٥٦٧", "(0912) 123.45.67"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, format := range []NumberFormat{FormatLocal, FormatE164} {
			got, err := NormalizeMobile(s, format)
			if err != nil {
				var me *MobileError
				if !errors.As(err, &me) || me.Reason == "" || got != "" {
					t.Fatalf("NormalizeMobile(%q): bad error %v / result %q", s, err, got)
				}
				continue
			}
			// The output is canonical: digits only after an optional leading +.
			for i, c := range []byte(got) {
				if !(c >= '0' && c <= '9' || c == '+' && i == 0) {
					t.Fatalf("NormalizeMobile(%q) = %q: not canonical", s, got)
				}
			}
			// Idempotent in either format, and consistent between formats.
			again, err := NormalizeMobile(got, format)
			if err != nil || again != got {
				t.Fatalf("NormalizeMobile(%q) = %q, but again gives %q, %v", s, got, again, err)
			}
			other := FormatE164
			if format == FormatE164 {
				other = FormatLocal
			}
			a, err1 := NormalizeMobile(s, other)
			b, err2 := NormalizeMobile(got, other)
			if err1 != nil || err2 != nil || a != b {
				t.Fatalf("formats disagree for %q: %q/%v vs %q/%v", s, a, err1, b, err2)
			}
			if format == FormatLocal && !strings.HasPrefix(got, "+") && (len(got) != 11 || got[:2] != "09") {
				t.Fatalf("NormalizeMobile(%q) = %q: not 09xxxxxxxxx", s, got)
			}
		}
	})
}
