package model

import (
	"strings"
	"unicode/utf8"
)

// Sanitize makes text from the service or a file safe to print on a terminal. It
// removes C0 and C1 control characters except newline and tab (carriage return
// included), DEL, terminal escape sequences (ESC-prefixed and 8-bit CSI, OSC, DCS,
// SOS, PM and APC, with their parameters and string payloads) and the bidi
// embedding, override and isolate controls (U+202A-U+202E, U+2066-U+2069) that can
// make text display in a different order than it is stored. Invalid UTF-8 bytes
// become U+FFFD. Letters, ZWNJ, ZWJ, LRM/RLM and Persian text are kept intact.
// Text that needs no change is returned as is, without allocating.
func Sanitize(s string) string {
	if !hasControls(s) && utf8.ValidString(s) {
		return s
	}
	i := 0
	for i < len(s) {
		n, t := nextToken(s, i)
		if t != tokKeep {
			break
		}
		i += n
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for i < len(s) {
		n, t := nextToken(s, i)
		switch t {
		case tokKeep:
			b.WriteString(s[i : i+n])
		case tokInvalid:
			b.WriteRune(utf8.RuneError)
		}
		i += n
	}
	return b.String()
}

// SanitizeLine is Sanitize for one table cell or status line: each run of
// newlines and tabs becomes a single space.
func SanitizeLine(s string) string {
	s = Sanitize(s)
	if strings.IndexByte(s, '\n') < 0 && strings.IndexByte(s, '\t') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\n' || c == '\t' {
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		b.WriteByte(c)
	}
	return b.String()
}

// hasControls reports whether Sanitize would remove anything from s other than
// by replacing invalid UTF-8: control characters, escape sequences or bidi
// controls. It scans bytes: every such character starts with a byte below 0x20,
// 0x7f, the lead byte 0xc2 of U+0080-U+009F or 0xe2 of the bidi controls, and
// a lead byte is never taken as part of an earlier (possibly invalid) sequence,
// so the scan agrees with nextToken.
func hasControls(s string) bool {
	for i := 0; i < len(s); i++ {
		if controlLead[s[i]] && controlAt(s, i) {
			return true
		}
	}
	return false
}

// controlAt reports whether the character whose lead byte is s[i] (one
// controlLead marks) is one Sanitize removes: a C0 control other than
// newline and tab, DEL, a C1 control (U+0080–U+009F) or a bidi control
// (U+202A–U+202E, U+2066–U+2069).
func controlAt(s string, i int) bool {
	switch c := s[i]; {
	case c < 0x20:
		return c != '\n' && c != '\t'
	case c == 0x7f:
		return true
	case c == 0xc2:
		return i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] <= 0x9f
	case c == 0xe2:
		return i+2 < len(s) && (s[i+1] == 0x80 && s[i+2] >= 0xaa && s[i+2] <= 0xae ||
			s[i+1] == 0x81 && s[i+2] >= 0xa6 && s[i+2] <= 0xa9)
	}
	return false
}

// controlLead marks the bytes hasControls must look at.
var controlLead = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = c != '\n' && c != '\t'
	}
	t[0x7f], t[0xc2], t[0xe2] = true, true, true
	return t
}()

type token uint8

const (
	tokKeep    token = iota // printable text, newline or tab
	tokDrop                 // a control, an escape sequence or a bidi control
	tokInvalid              // a byte that is not UTF-8
)

// nextToken classifies the text starting at s[i] and returns its length in bytes.
func nextToken(s string, i int) (int, token) {
	if s[i] < utf8.RuneSelf {
		return asciiToken(s, i)
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	switch {
	case r == utf8.RuneError && size == 1:
		return 1, tokInvalid
	case r == 0x9b: // 8-bit CSI
		return size + csiLen(s, i+size), tokDrop
	case r == 0x90 || r == 0x98 || r == 0x9d || r == 0x9e || r == 0x9f: // DCS SOS OSC PM APC
		return size + controlStringLen(s, i+size), tokDrop
	case r >= 0x80 && r < 0xa0:
		return size, tokDrop
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return size, tokDrop
	}
	return size, tokKeep
}

// asciiToken is nextToken for an ASCII byte at s[i]: newline and tab are
// kept, ESC drops its whole sequence, other controls and DEL are dropped.
func asciiToken(s string, i int) (int, token) {
	switch c := s[i]; {
	case c == '\n' || c == '\t':
		return 1, tokKeep
	case c == 0x1b:
		return 1 + escapeLen(s, i+1), tokDrop
	case c < 0x20 || c == 0x7f:
		return 1, tokDrop
	}
	return 1, tokKeep
}

// escapeLen is the length of the escape sequence body after an ESC at s[j-1].
func escapeLen(s string, j int) int {
	if j >= len(s) {
		return 0
	}
	c := s[j]
	switch {
	case c == '[':
		return 1 + csiLen(s, j+1)
	case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
		return 1 + controlStringLen(s, j+1)
	case c >= 0x20 && c <= 0x2f: // nF: intermediates then a final byte
		return nFLen(s, j)
	case c >= 0x30 && c <= 0x7e: // two-character sequence (Fp, Fe, Fs)
		return 1
	}
	return 0 // a lone ESC: drop it, keep what follows
}

// nFLen is the length of an nF escape sequence's intermediates (0x20–0x2f)
// and final byte (0x30–0x7e) starting at s[j]; cut short, it ends there.
func nFLen(s string, j int) int {
	k := j
	for k < len(s) && s[k] >= 0x20 && s[k] <= 0x2f {
		k++
	}
	if k < len(s) && s[k] >= 0x30 && s[k] <= 0x7e {
		k++
	}
	return k - j
}

// csiLen is the length of a control sequence's parameters, intermediates and
// final byte starting at s[j]. A sequence cut short by another character ends
// there; the character is then handled on its own.
func csiLen(s string, j int) int {
	k := j
	for k < len(s) && s[k] >= 0x30 && s[k] <= 0x3f {
		k++
	}
	for k < len(s) && s[k] >= 0x20 && s[k] <= 0x2f {
		k++
	}
	if k < len(s) && s[k] >= 0x40 && s[k] <= 0x7e {
		k++
	}
	return k - j
}

// controlStringLen is the length of an OSC/DCS/SOS/PM/APC payload starting at
// s[j], through its terminator (BEL, ESC \ or the 8-bit ST). Another ESC ends the
// string without being consumed; an unterminated string runs to the end, as a
// terminal would swallow it.
func controlStringLen(s string, j int) int {
	for k := j; k < len(s); k++ {
		switch s[k] {
		case 0x07:
			return k + 1 - j
		case 0x1b:
			if k+1 < len(s) && s[k+1] == '\\' {
				return k + 2 - j
			}
			return k - j
		case 0xc2:
			if k+1 < len(s) && s[k+1] == 0x9c {
				return k + 2 - j
			}
		}
	}
	return len(s) - j
}
