package model

import "testing"

// TestReplyActionOf: «۱۱» opts out and «۱۲» opts back in, in every spelling
// a phone sends them (issue 42 §5 asks for at least six of «۱۱»); anything
// else, and anything that only mentions 11, does nothing.
func TestReplyActionOf(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       ReplyAction
	}{
		{"ascii", "11", ReplyOptOut},
		{"persian digits", "۱۱", ReplyOptOut},
		{"arabic-indic digits", "١١", ReplyOptOut},
		{"full-width digits", "１１", ReplyOptOut},
		{"spaced, with a stop", " 1 1. ", ReplyOptOut},
		{"with bidi marks", "\u200f۱۱\u200e", ReplyOptOut},
		{"the word", "لغو", ReplyOptOut},
		{"the word with ZWNJ and tatweel", "ل\u200cغـو", ReplyOptOut},
		{"the word in presentation forms", "\ufedf\ufed0\ufeee", ReplyOptOut},
		{"the suffix as sent", "لغو۱۱", ReplyOptOut},
		{"the suffix with a space", "لغو ۱۱", ReplyOptOut},
		{"digits first", "۱۱ لغو", ReplyOptOut},
		{"arabic digits and a newline", "لغو\n١١", ReplyOptOut},
		{"twelve", "12", ReplyOptIn},
		{"twelve in persian", "۱۲", ReplyOptIn},
		{"twelve with an RLM and a space", "\u200f ١٢ ", ReplyOptIn},
		{"a question", "سلام، کی ارسال می\u200cشود؟", ReplyNothing},
		{"mentions 11 among words", "ساعت ۱۱ میام", ReplyNothing},
		{"111", "111", ReplyNothing},
		{"112", "۱۱۲", ReplyNothing},
		{"empty", "", ReplyNothing},
		{"only marks", "\u200f\u200c", ReplyNothing},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := ReplyActionOf(c.text); got != c.want {
				t.Errorf("ReplyActionOf(%q) = %q (folded %q), want %q", c.text, got, FoldReply(c.text), c.want)
			}
		})
	}
}

// TestDigitValueOfEveryScript: every decimal digit Unicode knows folds to
// its ASCII value (the Nd table's ranges are whole runs of ten).
func TestDigitValueOfEveryScript(t *testing.T) {
	for _, c := range []struct {
		r    rune
		want rune
	}{{'7', '7'}, {'۷', '7'}, {'٧', '7'}, {'७', '7'}, {'৭', '7'}, {'๗', '7'}, {'𝟕', '7'}, {'𝟗', '9'}, {'０', '0'}} {
		if got := digitValue(c.r); got != c.want {
			t.Errorf("digitValue(%q) = %q, want %q", c.r, got, c.want)
		}
	}
}

func FuzzFoldReply(f *testing.F) {
	for _, s := range []string{"11", "لغو۱۱", "\ufedf\ufed0\ufeee", "۱۲", "\u200f", "a\x00b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		folded := FoldReply(s)
		if FoldReply(folded) != folded {
			t.Errorf("FoldReply is not idempotent on %q: %q then %q", s, folded, FoldReply(folded))
		}
		_ = ReplyActionOf(s)
	})
}
