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
	return textProblem(s, utf8.ValidString(s))
}

// textProblem is TextProblem for a caller that has already asked whether s
// is valid UTF-8 (BuildPlan has). U+FFFD is looked for as its three bytes, a
// search far quicker than walking s rune by rune.
func textProblem(s string, valid bool) string {
	switch {
	case !valid || strings.Contains(s, "\uFFFD"):
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
// Text without a "?" has no such word and is not looked at further; the
// words are walked in place (strings.FieldsSeq), never copied.
func questionMarkWords(s string) bool {
	if strings.IndexByte(s, '?') < 0 {
		return false
	}
	qWords, letterWords, longest := 0, 0, 0
	for w := range strings.FieldsSeq(s) {
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

// codePages are the single-byte code pages Persian is misread as.
var codePages = []*charmap.Charmap{charmap.Windows1252, charmap.ISO8859_1, charmap.Windows1256}

// mojibake reports whether s is UTF-8 Persian (or Arabic) text that was
// read as a single-byte code page and saved again: encoded back to that code
// page, it is valid UTF-8 with Arabic-script letters that s does not have.
// Most text cannot be such a misreading, and says so without a byte being
// allocated: ASCII is left as it is by every code page, and misreadable
// walks each code page's bytes for s (see misreadable) and rules out real
// Persian at its first letter that the code page lacks. Only a candidate
// is encoded.
func mojibake(s string) (string, bool) {
	if isASCII(s) {
		return "", false
	}
	for _, cm := range codePages {
		if !misreadable(cm, s) {
			continue
		}
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

// misreadable is what mojibake's answer needs of s and cm, checked without
// building anything: every rune of s is in cm, and the bytes cm gives them
// are UTF-8 in shape (each lead byte followed by as many continuation bytes
// as it asks for) with at least two characters of two bytes or more, as two
// Arabic-script letters need. It can say yes where mojibake then says no
// (an overlong or surrogate sequence, too few Arabic letters), never the
// other way round.
func misreadable(cm *charmap.Charmap, s string) bool {
	need, multi := 0, 0
	for _, r := range s {
		c, ok := cm.EncodeRune(r)
		switch {
		case !ok:
			return false
		case need > 0:
			if c&0xC0 != 0x80 {
				return false
			}
			need--
		case c < utf8.RuneSelf:
		case c >= 0xC2 && c <= 0xDF:
			need, multi = 1, multi+1
		case c >= 0xE0 && c <= 0xEF:
			need, multi = 2, multi+1
		case c >= 0xF0 && c <= 0xF4:
			need, multi = 3, multi+1
		default:
			return false
		}
	}
	return need == 0 && multi >= 2
}

// isASCII reports whether s is all 7-bit bytes.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
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
