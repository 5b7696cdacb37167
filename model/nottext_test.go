package model

import (
	"strings"
	"testing"
)

func TestTextProblem(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want string // a part of the problem, "" for none
	}{
		{"سلام مریم، کد شما 4821 است", ""},
		{"Your code is 4821", ""},
		{"Are you coming? Reply Y/N", ""},
		{"Coming?? Call me", ""},
		{"??", ""},
		{"Hi ??? your code is 4821", ""}, // one short run beside real words: could be meant
		{"What?! 50% off — today only", ""},
		{"مریم احمدی", ""},
		{"René Café 中文", ""},
		{"???? ?????", "question marks"},
		{"???? ????? ?? ??? 4821 ???", "question marks"},
		{"Hi ????, your code is 4821", "question marks"},
		{"??? ???", "question marks"},
		{"???", "question marks"},
		{"Hello \ufffd\ufffd\ufffd", "could not be read"},
		{"Ù…Ø±ÛŒÙ… Ø§Ø\u00adÙ…Ø¯ÛŒ", "wrong encoding (it reads مریم احمدی)"},
		{"ط³ظ„ط§ظ… ظ…ط±غŒظ…", "wrong encoding (it reads سلام مریم)"},
		{"Ã©tÃ©", ""}, // mojibake of French: not Persian, not named
	} {
		got := TextProblem(tt.in)
		if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
			t.Errorf("TextProblem(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzTextProblem(f *testing.F) {
	for _, s := range []string{"???? ?????", "Ù…Ø±ÛŒÙ…", "سلام", "a?b", "\xff\xfe", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_ = TextProblem(s) // never panics, whatever the bytes
	})
}
