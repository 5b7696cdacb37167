package model

import "strings"

// Sanitize strips control characters and terminal escape sequences from text that
// came from the service or a file, keeping newlines and tabs. STUB.
func Sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return -1
		}
		return r
	}, s)
}

// SanitizeLine is Sanitize for one table cell or status line: newlines and tabs
// become spaces. STUB.
func SanitizeLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ").Replace(Sanitize(s))
}
