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
