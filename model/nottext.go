package model

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

// TextProblem says why s is not the text it stands for, or "": a
// spreadsheet saved without Unicode writes a question mark for every letter
// it cannot encode (LibreOffice Calc's default CSV export turns "مریم
// احمدی" into "???? ?????"), an unreadable byte becomes U+FFFD, and Persian
// saved as UTF-8 but read as Windows-1252, Latin-1 or Windows-1256 comes back
// as "Ù…Ø±ÛŒÙ…" or "ظ…ط±غŒظ…". Sending such text spends credit on nonsense;
// importing it stores nonsense names. Only unambiguous cases are named: a
// real question ("Coming? Reply Y/N", "??") passes.
func TextProblem(s string) string {
	switch {
	case strings.ContainsRune(s, utf8.RuneError):
		return "the text has characters that could not be read (�): the file is not UTF-8 text; save it as CSV UTF-8"
	case questionMarkWords(s):
		return "the text is question marks: the file was saved without Unicode; save it as CSV UTF-8"
	}
	if orig, ok := mojibake(s); ok {
		return "the text is Persian read in the wrong encoding (it reads " + SanitizeLine(orig) + "): save the file as CSV UTF-8"
	}
	return ""
}

// questionMarkWords reports whether runs of question marks stand for words:
// two words or more made of "?" alone (two marks or more each), one such
// word of four marks or more, or of three with no real word beside it.
func questionMarkWords(s string) bool {
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
	return qWords >= 2 || qWords == 1 && (longest >= 4 || letterWords == 0 && longest >= 3)
}

// mojibake reports whether s is UTF-8 Persian (or Arabic) text that was
// read as a single-byte code page and saved again: encoded back to that code
// page, it is valid UTF-8 with Arabic-script letters that s does not have.
func mojibake(s string) (string, bool) {
	if !strings.ContainsFunc(s, func(r rune) bool { return r >= 0x80 }) {
		return "", false
	}
	for _, cm := range []*charmap.Charmap{charmap.Windows1252, charmap.ISO8859_1, charmap.Windows1256} {
		b, err := cm.NewEncoder().String(s)
		if err != nil || b == s || !utf8.ValidString(b) {
			continue
		}
		if arabicLetters(b) >= 2 && arabicLetters(b) > arabicLetters(s)/2 && utf8.RuneCountInString(b) < utf8.RuneCountInString(s) {
			return b, true
		}
	}
	return "", false
}

func arabicLetters(s string) int {
	n := 0
	for _, r := range s {
		if unicode.Is(unicode.Arabic, r) && unicode.IsLetter(r) {
			n++
		}
	}
	return n
}
