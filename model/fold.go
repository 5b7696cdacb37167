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
		case r < utf8RuneSelf:
			b.WriteRune(unicode.ToLower(r))
		case r >= arabicBlock && r < arabicBlock+rune(len(arabicFold)) && arabicFold[r-arabicBlock] != 0:
			if f := arabicFold[r-arabicBlock]; f > 0 {
				b.WriteRune(f)
			}
		case r == '\u200c':
			// ZWNJ: not part of the spelling searched for
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// arabicBlock is where the Unicode block U+0600–U+06FF starts, the one
// arabicFold covers.
const arabicBlock = 0x600

// arabicFold is FoldSearch's table for the Arabic block: by rune, what it
// folds to; 0 keeps the rune as it is, -1 drops it.
var arabicFold = func() (t [0x100]rune) {
	for from, to := range map[rune]rune{
		'ي': 'ی', 'ى': 'ی', 'ئ': 'ی', // Arabic yeh, alef maksura, yeh with hamza
		'ك': 'ک',                               // Arabic kaf
		'أ': 'ا', 'إ': 'ا', 'آ': 'ا', 'ٱ': 'ا', // hamza and madda alef forms
		'ة': 'ه', // teh marbuta
		'ؤ': 'و', // waw with hamza
	} {
		t[from-arabicBlock] = to
	}
	// Tatweel and harakat: not part of the spelling searched for.
	t['\u0640'-arabicBlock], t['\u0670'-arabicBlock] = -1, -1
	for r := '\u064b'; r <= '\u065f'; r++ {
		t[r-arabicBlock] = -1
	}
	// Persian and Arabic-Indic digits: Latin ones.
	for d := range rune(10) {
		t['۰'+d-arabicBlock], t['٠'+d-arabicBlock] = '0'+d, '0'+d
	}
	return t
}()

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
