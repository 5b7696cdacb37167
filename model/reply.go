package model

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// ReplyAction is what a reply to a line asks of that line's opt-out list.
type ReplyAction string

// What a reply does (issue 42 §5; the regulator's rule: a reply of 11 to a
// line stops that line's messages, a reply of 12 brings them back).
const (
	ReplyNothing ReplyAction = ""          // any other reply: kept, changes nothing
	ReplyOptOut  ReplyAction = "opted_out" // «۱۱», «لغو», «لغو۱۱»
	ReplyOptIn   ReplyAction = "opted_in"  // «۱۲»
)

// FoldReply folds a reply's text to the one spelling the opt-out words are
// compared in. People answer «لغو۱۱» from every keyboard there is: digits of
// any script become ASCII (Persian ۱۱, Arabic-Indic ١١, full-width １１ alike);
// Arabic letter forms become Persian (FoldSearch: ي → ی, ك → ک), presentation
// forms their letters (NFKC: ﻟﻐﻮ → لغو); spaces, ZWNJ/ZWJ, the bidi marks
// (LRM, RLM, ALM, isolates), tatweel, harakat, punctuation and symbols are
// dropped ("۱۱.", "11 !", "ل‌غ‌و"); Latin is lower-cased.
func FoldReply(text string) string {
	text = norm.NFKC.String(text)
	var b strings.Builder
	b.Grow(len(text))
	for _, r := range text {
		switch {
		case unicode.IsDigit(r):
			b.WriteRune(digitValue(r))
		case unicode.IsSpace(r), unicode.Is(unicode.Cf, r), unicode.IsPunct(r), unicode.IsSymbol(r), unicode.IsControl(r):
			// not part of what was meant: layout, marks and decoration
		default:
			b.WriteRune(r)
		}
	}
	return FoldSearch(b.String())
}

// digitValue is the ASCII digit of a decimal digit of any script. Unicode
// keeps each script's digits as a run of ten from its zero, and the Nd
// table's ranges are whole runs, so a digit's value is its distance from
// its range's start, modulo ten.
func digitValue(r rune) rune {
	for _, rg := range unicode.Nd.R16 {
		if lo, hi := rune(rg.Lo), rune(rg.Hi); r >= lo && r <= hi && rg.Stride == 1 {
			return '0' + (r-lo)%10
		}
	}
	for _, rg := range unicode.Nd.R32 {
		if lo, hi := rune(rg.Lo), rune(rg.Hi); r >= lo && r <= hi && rg.Stride == 1 {
			return '0' + (r-lo)%10
		}
	}
	return r
}

// The folded replies that opt out, and the one that opts back in. «لغو» with
// «11» on either side counts: a phone's keyboard may put the digits first
// when the text's direction flips.
var replyActions = map[string]ReplyAction{
	"11":    ReplyOptOut,
	"لغو":   ReplyOptOut,
	"لغو11": ReplyOptOut,
	"11لغو": ReplyOptOut,
	"12":    ReplyOptIn,
}

// ReplyActionOf is what a reply asks, after FoldReply: ReplyOptOut for
// «11», «لغو» and «لغو11» in any spelling, ReplyOptIn for «12», and
// ReplyNothing for anything else (a reply that only mentions 11 among
// other words is a message, not a request).
func ReplyActionOf(text string) ReplyAction {
	return replyActions[FoldReply(text)]
}
