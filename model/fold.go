package model

import (
	"strings"
	"unicode"
)

// FoldSearch folds text for searching, so that spellings a reader takes for
// the same match each other: Arabic yeh and alef maksura (ي ى) become
// Persian yeh (ی), Arabic kaf (ك) Persian kaf (ک), hamza and madda alef
// forms (أ إ آ ٱ) plain alef, teh marbuta (ة) heh, waw with hamza (ؤ) waw;
// ZWNJ, tatweel and harakat are dropped; Persian and Arabic-Indic digits
// become Latin ones; Latin letters are lower-cased. Imported lists often
// write "علي" for "علی", and an operator types whichever their keyboard has.
func FoldSearch(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == 'ي' || r == 'ى' || r == 'ئ':
			b.WriteRune('ی')
		case r == 'ك':
			b.WriteRune('ک')
		case r == 'أ' || r == 'إ' || r == 'آ' || r == 'ٱ':
			b.WriteRune('ا')
		case r == 'ة':
			b.WriteRune('ه')
		case r == 'ؤ':
			b.WriteRune('و')
		case r == '\u200c' || r == '\u0640' || r >= '\u064b' && r <= '\u065f' || r == '\u0670':
			// ZWNJ, tatweel, harakat: not part of the spelling searched for
		case r >= '۰' && r <= '۹':
			b.WriteRune('0' + (r - '۰'))
		case r >= '٠' && r <= '٩':
			b.WriteRune('0' + (r - '٠'))
		case r < utf8RuneSelf:
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

const utf8RuneSelf = 0x80

// FoldNumberQuery folds a search that looks like the start of a phone
// number to the form contacts are kept in (09…): "+98912", "0098912",
// "98912" with a leading + and spaces or dashes in it all become "0912".
// Anything else is FoldSearch.
func FoldNumberQuery(q string) string {
	f := FoldSearch(strings.TrimSpace(q))
	digits := strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' || r == '(' || r == ')' {
			return -1
		}
		return r
	}, f)
	rest, plus := strings.CutPrefix(digits, "+")
	if rest == "" || strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
		return f
	}
	switch {
	case strings.HasPrefix(rest, "0098"):
		return "0" + rest[4:]
	case plus && strings.HasPrefix(rest, "98"):
		return "0" + rest[2:]
	}
	return rest
}
