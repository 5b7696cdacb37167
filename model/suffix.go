package model

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The opt-out suffix: the regulator requires informational messages from
// service lines to end with «لغو۱۱» (reply 11 to opt out, 12 to opt back in),
// and panels refuse a send to more than one number without it. A profile's
// optout_suffix ends every message as sent, on its own line; it is part of
// the text, so it is counted in the parts and the 600-character limit.

// MaxSuffixChars bounds an opt-out suffix: it is a short instruction, not a
// second message.
const MaxSuffixChars = 40

// SuffixOff reports whether s is a word that turns a setting off ("off",
// "none", as quiet_hours and repeat_window read them) rather than a line to
// end messages with: `config set optout_suffix off` means no suffix, and a
// profile holding one is refused rather than ending every message with
// the word off.
func SuffixOff(s string) bool {
	for _, w := range []string{"off", "none", "no", "false", "0"} {
		if strings.EqualFold(strings.TrimSpace(s), w) {
			return true
		}
	}
	return false
}

// CheckSuffix says what is wrong with an opt-out suffix, or nil. "" (no
// suffix) is fine; "off" and its kind are refused (SuffixOff).
func CheckSuffix(s string) error {
	switch {
	case s == "":
		return nil
	case SuffixOff(s):
		return fmt.Errorf("%q would end every message with the word %s: for no suffix, leave it out (smsdesk config unset optout_suffix)", SanitizeLine(s), SanitizeLine(s))
	case !utf8.ValidString(s):
		return fmt.Errorf("is not UTF-8 text")
	case strings.TrimSpace(s) != s:
		return fmt.Errorf("%q starts or ends with a space: it goes on its own line as written", SanitizeLine(s))
	case s != SanitizeLine(s) || strings.ContainsAny(s, "\n\r"):
		return fmt.Errorf("holds a line break or control characters: it is one line, such as لغو۱۱")
	case utf8.RuneCountInString(s) > MaxSuffixChars:
		return fmt.Errorf("is %d characters, over %d: it is a short line, such as لغو۱۱", utf8.RuneCountInString(s), MaxSuffixChars)
	}
	return nil
}

// WithSuffix ends message with suffix on its own line. A message whose last
// line already is the suffix, in any spelling (SameSuffix: لغو11, لغو ۱۱,
// after an RLM), is left as it is (the operator typed it), and an empty
// suffix or an empty message changes nothing.
func WithSuffix(message, suffix string) string {
	if suffix == "" || strings.TrimSpace(message) == "" {
		return message
	}
	body := strings.TrimRight(message, " \t\r\n")
	last := body
	if i := strings.LastIndexByte(body, '\n'); i >= 0 {
		last = body[i+1:]
	}
	if SameSuffix(last, suffix) {
		return message
	}
	return body + "\n" + suffix
}

// SameSuffix reports whether line is the suffix as a person reads it:
// Persian, Arabic and ASCII digits alike, spaces and invisible marks (the
// bidi marks an editor adds around Persian, zero-width joiners) ignored,
// Arabic yeh and kaf read as Persian.
func SameSuffix(line, suffix string) bool {
	k := suffixKey(suffix)
	return k != "" && suffixKey(line) == k
}

// suffixKey is s with digits ASCII, spaces and invisible marks dropped and
// Arabic yeh and kaf made Persian.
func suffixKey(s string) string {
	return strings.Map(func(r rune) rune {
		if d, ok := digitOf(r); ok {
			return rune(d)
		}
		switch {
		case unicode.IsSpace(r), unicode.Is(unicode.Cf, r): // LRM, RLM, ALM, embeddings, isolates, ZWJ, ZWNJ, BOM
			return -1
		case r == 'ي' || r == 'ى':
			return 'ی'
		case r == 'ك':
			return 'ک'
		}
		return r
	}, s)
}

// SentCount is a message's count as it will go out: with the suffix line
// WithSuffix gives it. Alone is the text's own count, without the suffix.
type SentCount struct {
	PartCount
	Alone PartCount
	// Suffixed: the suffix was added (it was not already the text's last
	// line, and neither is empty).
	Suffixed bool
}

// PartsWithSuffix counts text as it will go out with suffix ("" for none):
// the one rule the composer's counter, its rows, the totals, the
// confirmation and the CLI's dry run share (a plan's items are counted
// after WithSuffix too).
func PartsWithSuffix(text, suffix string) SentCount {
	sent := WithSuffix(text, suffix)
	c := SentCount{PartCount: Parts(sent), Suffixed: sent != text}
	c.Alone = c.PartCount
	if c.Suffixed {
		c.Alone = Parts(text)
	}
	return c
}

// SuffixMadeUCS2 reports whether the text alone would go as GSM-7 and the
// suffix makes it UCS-2 (fewer characters a part, often more parts).
func (c SentCount) SuffixMadeUCS2() bool {
	return c.Suffixed && c.Encoding == UCS2 && c.Alone.Encoding == GSM7
}

// SuffixEncodingText says why a suffix makes every message UCS-2, for
// people: "the suffix is Persian" (Arabic script), "the suffix is not
// GSM-7" (another character outside it); "" when it does not.
func SuffixEncodingText(suffix string) string {
	if suffix == "" || Parts(suffix).Encoding != UCS2 {
		return ""
	}
	for _, r := range suffix {
		if unicode.Is(unicode.Arabic, r) {
			return "the suffix is Persian"
		}
	}
	return "the suffix is not GSM-7"
}
