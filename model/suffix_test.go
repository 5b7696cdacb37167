package model

import (
	"strings"
	"testing"
)

func TestWithSuffix(t *testing.T) {
	const s = "لغو۱۱"
	for _, tc := range []struct{ msg, suffix, want string }{
		{"Hello", s, "Hello\n" + s},
		{"Hello\n", s, "Hello\n" + s},
		{"Hello\n" + s, s, "Hello\n" + s},
		{"Hello\n" + s + "\n", s, "Hello\n" + s + "\n"},
		{"Hello", "", "Hello"},
		{"", s, ""},
		{"Hello " + s, s, "Hello " + s + "\n" + s}, // not on its own line
		// The suffix already there in another spelling is not added again.
		{"Hello\nلغو11", s, "Hello\nلغو11"},
		{"Hello\nلغو ۱۱", s, "Hello\nلغو ۱۱"},
		{"Hello\nلغو 11 ", s, "Hello\nلغو 11 "},
		{"Hello\n\u200fلغو۱۱", s, "Hello\n\u200fلغو۱۱"},             // after an RLM
		{"Hello\n\u2067لغو۱۱\u2069", s, "Hello\n\u2067لغو۱۱\u2069"}, // in an RTL isolate
		{"Hello\nلغو٫۱۱", s, "Hello\nلغو٫۱۱\n" + s},                 // another word
		{"Hello\nلغو١١", s, "Hello\nلغو١١"},                         // Arabic-Indic digits
		{"Hello\nلغو۱۲", s, "Hello\nلغو۱۲\n" + s},                   // 12 is not 11
		{"Hello\nstop 11", "STOP 11", "Hello\nstop 11\nSTOP 11"},    // letters compared as written
		{"Hello\n\u200f", s, "Hello\n\u200f\n" + s},
	} {
		if got := WithSuffix(tc.msg, tc.suffix); got != tc.want {
			t.Errorf("WithSuffix(%q, %q) = %q, want %q", tc.msg, tc.suffix, got, tc.want)
		}
	}
}

// The suffix is text: a Latin message that fits one GSM-7 part becomes
// UCS-2 with a Persian suffix, and its parts are counted on the text as
// sent.
func TestSuffixCountedInParts(t *testing.T) {
	latin150 := strings.Repeat("a", 150)
	for _, tc := range []struct {
		msg, suffix string
		enc         Encoding
		parts       int
	}{
		{latin150, "", GSM7, 1},
		{latin150, "لغو۱۱", UCS2, 3}, // 150 + newline + 5 = 156 UCS-2 units
		{strings.Repeat("a", 60), "لغو۱۱", UCS2, 1},
		{strings.Repeat("a", 65), "لغو۱۱", UCS2, 2},    // 71 units
		{strings.Repeat("a", 155), "STOP 11", GSM7, 2}, // 163 septets
	} {
		pc := Parts(WithSuffix(tc.msg, tc.suffix))
		if pc.Encoding != tc.enc || pc.Parts != tc.parts {
			t.Errorf("%d chars + %q: %s %d parts, want %s %d", len(tc.msg), tc.suffix, pc.Encoding, pc.Parts, tc.enc, tc.parts)
		}
	}
}

func TestCheckSuffix(t *testing.T) {
	for _, tc := range []struct{ in, err string }{
		{"لغو۱۱", ""},
		{"", ""},
		{"STOP 11", ""},
		{" لغو۱۱", "space"},
		{"a\nb", "line break"},
		{"a\x1b[2Jb", "control"},
		{strings.Repeat("x", 41), "over 40"},
		{"off", "would end every message with the word off"},
		{"None", "config unset optout_suffix"},
		{"offline", ""},
	} {
		err := CheckSuffix(tc.in)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("CheckSuffix(%q) = %v, want %q", tc.in, err, tc.err)
		}
	}
}

// TestPartsWithSuffix: a message counted as it will go out, and why its
// encoding is what it is (issue 40 item 1: a 104-character Latin
// template read "GSM-7 · 1 part · 56 left" while each row went as UCS-2 in
// 2 parts).
func TestPartsWithSuffix(t *testing.T) {
	latin104 := strings.Repeat("x", 104)
	for _, tc := range []struct {
		text, suffix     string
		chars, parts     int
		left             int
		enc              Encoding
		suffixed, madeUC bool
		why              string
	}{
		{latin104, "لغو۱۱", 110, 2, 24, UCS2, true, true, "the suffix is Persian"},
		{latin104, "", 104, 1, 56, GSM7, false, false, ""},
		{latin104, "STOP 11", 112, 1, 48, GSM7, true, false, ""},
		{"سلام", "لغو۱۱", 10, 1, 60, UCS2, true, false, "the suffix is Persian"},      // UCS-2 by itself
		{"Hi\nلغو11", "لغو۱۱", 8, 1, 62, UCS2, false, false, "the suffix is Persian"}, // its last line is the suffix: not added
		{"", "لغو۱۱", 0, 0, 160, GSM7, false, false, "the suffix is Persian"},
		{"Hi", "stop ✓", 9, 1, 61, UCS2, true, true, "the suffix is not GSM-7"},
	} {
		c := PartsWithSuffix(tc.text, tc.suffix)
		if c.Chars != tc.chars || c.Parts != tc.parts || c.Left != tc.left || c.Encoding != tc.enc || c.Suffixed != tc.suffixed || c.SuffixMadeUCS2() != tc.madeUC {
			t.Errorf("%.12q + %q: %d chars %s %d parts %d left, suffixed %v made UCS-2 %v", tc.text, tc.suffix, c.Chars, c.Encoding, c.Parts, c.Left, c.Suffixed, c.SuffixMadeUCS2())
		}
		if c.PartCount != Parts(WithSuffix(tc.text, tc.suffix)) {
			t.Errorf("%.12q + %q: not the count of the text as a plan's item has it", tc.text, tc.suffix)
		}
		if got := SuffixEncodingText(tc.suffix); got != tc.why {
			t.Errorf("SuffixEncodingText(%q) = %q, want %q", tc.suffix, got, tc.why)
		}
	}
}
