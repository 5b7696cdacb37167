package model

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
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

// TestTextProblemAllocatesNothing: text that cannot be mangled is looked at
// in place. Before the fast path, every message's words were copied
// (strings.Fields) and every non-ASCII one encoded into three code pages:
// 73% of a 100k plan's 108 MiB.
func TestTextProblemAllocatesNothing(t *testing.T) {
	for _, s := range []string{latinText, persianText, "Are you coming? Reply Y/N", "René Café 中文", "سلام مریم، کد شما 4821 است"} {
		if n := testing.AllocsPerRun(20, func() { _ = TextProblem(s) }); n != 0 {
			t.Errorf("TextProblem(%.20q…) allocates %.0f times, want 0", s, n)
		}
	}
}

// TestTextProblemMisreadings reads Persian as each code page would (its
// UTF-8 bytes decoded one byte a character) and checks the misreading is
// named with the text it stands for, as the slow way (textProblemOracle)
// names it.
func TestTextProblemMisreadings(t *testing.T) {
	for _, fa := range []string{"مریم احمدی", "سلام مریم", persianText, "کد شما 4821 است", "گروه پیک"} {
		for _, cm := range codePages {
			misread, err := cm.NewDecoder().String(fa)
			if err != nil {
				t.Fatal(err)
			}
			got, want := TextProblem(misread), textProblemOracle(misread)
			if got != want || !strings.Contains(got, "(it reads "+SanitizeLine(fa)+")") {
				t.Errorf("%v misreading of %q: TextProblem = %q, the slow way %q", cm, fa, got, want)
			}
		}
	}
}

// FuzzTextProblem: the fast paths give the slow way's answer for any bytes.
func FuzzTextProblem(f *testing.F) {
	for _, s := range []string{"???? ?????", "Ù…Ø±ÛŒÙ…", "ط³ظ„ط§ظ… ظ…ط±غŒظ…", "سلام", "a?b", "\xff\xfe", "", "Ã©tÃ©", "\ufffd", latinText, persianText} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := TextProblem(s), textProblemOracle(s); got != want {
			t.Errorf("TextProblem(%q) = %q, the slow way %q", s, got, want)
		}
	})
}

// textProblemOracle is TextProblem as it was before its fast paths: every
// message split into words, every non-ASCII one encoded into each code
// page. The fuzz test holds the two to one answer.
func textProblemOracle(s string) string {
	switch {
	case strings.ContainsRune(s, utf8.RuneError):
		return "the text has characters that could not be read (�): the file is not UTF-8 text; save it as CSV UTF-8"
	}
	qWords, letterWords, longest := 0, 0, 0
	for _, w := range strings.Fields(s) {
		w = strings.Trim(w, `.,:;!()"'«»،؛-`)
		switch {
		case len(w) >= 2 && strings.Trim(w, "?") == "":
			qWords++
			longest = max(longest, len(w))
		case strings.IndexFunc(w, unicode.IsLetter) >= 0:
			letterWords++
		}
	}
	if qWords >= 2 || qWords == 1 && (longest >= 4 || letterWords == 0 && longest >= 3) {
		return "the text is question marks: the file was saved without Unicode; save it as CSV UTF-8"
	}
	if !strings.ContainsFunc(s, func(r rune) bool { return r >= 0x80 }) {
		return ""
	}
	for _, cm := range []*charmap.Charmap{charmap.Windows1252, charmap.ISO8859_1, charmap.Windows1256} {
		b, err := cm.NewEncoder().String(s)
		if err != nil || b == s || !utf8.ValidString(b) {
			continue
		}
		if arabicLetters(b) >= 2 && arabicLetters(b) > arabicLetters(s)/2 && utf8.RuneCountInString(b) < utf8.RuneCountInString(s) {
			return "the text is Persian read in the wrong encoding (it reads " + SanitizeLine(b) + "): save the file as CSV UTF-8"
		}
	}
	return ""
}
