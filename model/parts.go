package model

import "unicode/utf8"

// Encoding is the character set an SMS travels in.
type Encoding string

const (
	// GSM7 is the GSM 03.38 default alphabet: 7-bit septets, 160 per single
	// message, 153 per part of a concatenated one.
	GSM7 Encoding = "GSM-7"
	// UCS2 is used as soon as one character is outside GSM-7 (Persian text,
	// emoji): UTF-16 code units, 70 per single message, 67 per part.
	UCS2 Encoding = "UCS-2"
)

// Part capacities in units (septets for GSM-7, UTF-16 code units for UCS-2). A
// concatenated message spends 6 octets of each part on the user data header.
const (
	gsmSingle  = 160
	gsmPerPart = 153
	ucsSingle  = 70
	ucsPerPart = 67
)

// PartCount describes how a text is billed and split as SMS.
type PartCount struct {
	Encoding Encoding // GSM7 unless a character needs UCS2
	Chars    int      // characters (Unicode code points) in the text
	Units    int      // septets (GSM-7, extension characters cost 2) or UTF-16 units (UCS-2, astral characters cost 2)
	Parts    int      // SMS parts the text needs; 0 for an empty text
	PerPart  int      // capacity of each part: 160 or 153 (GSM-7), 70 or 67 (UCS-2)
	Left     int      // units still free in the current (last) part
}

// gsmASCII holds the GSM-7 cost of each ASCII byte: 1 for the basic table, 2 for
// the extension table (reached through an escape septet), 0 when the byte is not
// in GSM-7 at all (other control characters and the backtick).
var gsmASCII = func() (t [utf8.RuneSelf]uint8) {
	for c := ' '; c < 0x7f; c++ {
		t[c] = 1
	}
	t['`'] = 0
	t['\n'], t['\r'] = 1, 1
	for _, c := range "\f^{}\\[~]|" {
		t[c] = 2
	}
	return t
}()

// gsmWidth returns the GSM-7 cost of r (see gsmASCII), or 0 if r has no GSM-7
// encoding.
func gsmWidth(r rune) int {
	if r < utf8.RuneSelf {
		return int(gsmASCII[r])
	}
	switch r {
	case '£', '¥', 'è', 'é', 'ù', 'ì', 'ò', 'Ç', 'Ø', 'ø', 'Å', 'å',
		'Δ', 'Φ', 'Γ', 'Λ', 'Ω', 'Π', 'Ψ', 'Σ', 'Θ', 'Ξ',
		'Æ', 'æ', 'ß', 'É', '¤', '¡', 'Ä', 'Ö', 'Ñ', 'Ü', '§', '¿',
		'ä', 'ö', 'ñ', 'ü', 'à':
		return 1
	case '€':
		return 2
	}
	return 0
}

// ucsWidth returns the number of UTF-16 code units r takes.
func ucsWidth(r rune) int {
	if r >= 0x10000 {
		return 2
	}
	return 1
}

// Parts counts the SMS parts text needs. It picks GSM-7 when every character is
// in the GSM 03.38 default alphabet or its extension table, otherwise UCS-2.
// Parts are filled in order and never split an escape pair (GSM-7 extension
// character) or a surrogate pair (UCS-2 astral character): a part that would
// end in the middle of one closes a unit early, so a concatenated part may hold
// 152 septets or 66 units, as handsets and carriers split them.
func Parts(text string) PartCount { return partsOf(text, false) }

// partsOf is Parts for a caller that may already know text is valid UTF-8,
// which lets the UCS-2 count run over bytes.
func partsOf(text string, valid bool) PartCount {
	pc := PartCount{Encoding: GSM7}
	gsm := true
	pairs := 0 // characters that cost 2 units
	for i := 0; i < len(text); {
		c := text[i]
		w, size := 0, 1
		if c < utf8.RuneSelf {
			w = int(gsmASCII[c])
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(text[i:])
			w = gsmWidth(r)
		}
		if w == 0 {
			gsm = false
			break
		}
		pc.Units += w
		pc.Chars++
		pairs += w - 1
		i += size
	}
	single, per := gsmSingle, gsmPerPart
	if !gsm {
		pc.Encoding = UCS2
		single, per = ucsSingle, ucsPerPart
		if valid {
			pc.Chars, pairs = countValidUTF8(text)
		} else {
			pc.Chars, pairs = utf8.RuneCountInString(text), astralCount(text)
		}
		pc.Units = pc.Chars + pairs
	}
	switch {
	case pc.Units == 0:
		pc.PerPart, pc.Left = single, single
		return pc
	case pc.Units <= single:
		pc.Parts, pc.PerPart, pc.Left = 1, single, single-pc.Units
		return pc
	case pairs == 0:
		// Every character costs one unit: no pair can straddle a boundary.
		pc.Parts, pc.PerPart = (pc.Units+per-1)/per, per
		pc.Left = pc.Parts*per - pc.Units
		return pc
	}
	// Concatenated with pairs: fill parts of per units, moving a pair that does
	// not fit whole into the next part.
	width := gsmWidth
	if !gsm {
		width = ucsWidth
	}
	pc.Parts, pc.PerPart = 1, per
	used := 0
	for _, r := range text {
		w := width(r)
		if used+w > per {
			pc.Parts++
			used = 0
		}
		used += w
	}
	pc.Left = per - used
	return pc
}

// countValidUTF8 counts the characters of valid UTF-8 text (bytes that are not
// continuation bytes) and those outside the BMP (4-byte lead bytes).
func countValidUTF8(s string) (chars, astral int) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c&0xc0 != 0x80 {
			chars++
		}
		if c >= 0xf0 {
			astral++
		}
	}
	return chars, astral
}

// astralCount counts the characters of s outside the Basic Multilingual Plane
// (a surrogate pair each in UTF-16). Only a valid 4-byte sequence, which starts
// with a byte of 0xf0 or more, encodes one.
func astralCount(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= 0xf0 {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 4 {
				n++
				i += 3
			}
		}
	}
	return n
}
