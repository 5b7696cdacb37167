package model

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSanitize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"plain text", "plain text"},
		{"line\nnext\ttab", "line\nnext\ttab"},
		{"سلام دنیا", "سلام دنیا"},
		{"می\u200cروم", "می\u200cروم"},                           // ZWNJ kept
		{"👨\u200d👩\u200d👧", "👨\u200d👩\u200d👧"},                   // ZWJ kept
		{"\u200eLRM\u200f RLM kept", "\u200eLRM\u200f RLM kept"}, // marks are harmless
		{"crlf\r\n", "crlf\n"},
		{"bell\a nul\x00 del\x7f bs\b", "bell nul del bs"},
		{"\x1b[31mred\x1b[0m", "red"},
		{"\x1b[1;31;48;5;200mx", "x"},
		{"\x1b[?25l\x1b[2J\x1b[Hcleared", "cleared"},
		{"\x1b]0;evil title\x07after", "after"},
		{"\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"\x1bP+q544e\x1b\\dcs", "dcs"},
		{"\x1b_apc payload\x1b\\x", "x"},
		{"\x1b^pm\x1b\\x", "x"},
		{"\x1bXsos\x1b\\x", "x"},
		{"\x1b]52;c;ZXZpbA==", ""},           // unterminated OSC swallows the rest, as a terminal would
		{"\x1b]0;t\x1b[31mred", "red"},       // an ESC ends the string and starts a new sequence
		{"\x1b(Bcharset", "charset"},         // nF sequence
		{"\x1b7saved\x1b8", "saved"},         // two-character sequences
		{"\x1bcreset", "reset"},              // RIS
		{"lone esc\x1b", "lone esc"},         // ESC at the end
		{"esc\x1b\nnewline", "esc\nnewline"}, // ESC followed by a control
		{"\x1b[31", ""},                      // CSI cut short at the end
		{"\x1b[31\nx", "\nx"},                // CSI cut short by a newline
		{"\u009b31mC1 CSI", "C1 CSI"},
		{"\u009d0;title\u009cC1 OSC", "C1 OSC"},
		{"\u0090dcs\u009cafter", "after"},
		{"\u0085next line", "next line"},
		{"\u202eevil\u202c", "evil"},
		{"a\u202ab\u202bc\u202dd\u2066e\u2067f\u2068g\u2069", "abcdefg"},
		{"bad\xffbyte", "bad\ufffdbyte"},
		{"\xc2", "\ufffd"},
		{"caf\u00e9 €", "caf\u00e9 €"},
	}
	for _, tt := range tests {
		if got := Sanitize(tt.in); got != tt.want {
			t.Errorf("Sanitize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSanitizeLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"one line", "one line"},
		{"two\nlines", "two lines"},
		{"crlf\r\nline", "crlf line"},
		{"tabs\t\tand\n\nnewlines", "tabs and newlines"},
		{"\x1b[1mbold\x1b[0m\ttab", "bold tab"},
		{"سلام\nدنیا", "سلام دنیا"},
	}
	for _, tt := range tests {
		if got := SanitizeLine(tt.in); got != tt.want {
			t.Errorf("SanitizeLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSanitizeNoAllocWhenClean(t *testing.T) {
	s := "سلام Ali, your code is ۱۲۳۴\nthanks"
	if n := testing.AllocsPerRun(100, func() { _ = Sanitize(s) }); n != 0 {
		t.Errorf("Sanitize of clean text allocates %v times", n)
	}
}

func TestHasControls(t *testing.T) {
	for in, want := range map[string]bool{
		"hello\nworld\t!": false,
		"سلام":            false,
		"bad\xff":         false, // invalid UTF-8 is reported separately
		"\x1b[31m":        true,
		"a\rb":            true,
		"\u202e":          true,
		"\u0085":          true,
	} {
		if got := hasControls(in); got != want {
			t.Errorf("hasControls(%q) = %v, want %v", in, got, want)
		}
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"", "plain", "\x1b[31mred", "\x1b]0;t\x07", "\x1b]8;;u\x1b\\l", "\u009b1m", "\u009dx\u009c",
		"\u202e", "سلام\u200c", "\xff\xfe", "\x1b", "\x1bP", "\x1b[", "\r\n\t", "\x1b(", "\x1b[?1049h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		drop := false // hasControls by way of nextToken, the slow path
		for i := 0; i < len(s); {
			n, tok := nextToken(s, i)
			drop = drop || tok == tokDrop
			i += n
		}
		if hasControls(s) != drop {
			t.Fatalf("hasControls(%q) = %v, nextToken says %v", s, !drop, drop)
		}
		out := Sanitize(s)
		if !utf8.ValidString(out) {
			t.Fatalf("Sanitize(%q) = %q: invalid UTF-8", s, out)
		}
		for _, r := range out {
			if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 ||
				r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
				t.Fatalf("Sanitize(%q) = %q: keeps %U", s, out, r)
			}
		}
		if again := Sanitize(out); again != out {
			t.Fatalf("Sanitize not idempotent: %q -> %q -> %q", s, out, again)
		}
		if hasControls(out) {
			t.Fatalf("hasControls(Sanitize(%q)) is true", s)
		}
		line := SanitizeLine(s)
		if strings.ContainsAny(line, "\n\t\r\x1b") {
			t.Fatalf("SanitizeLine(%q) = %q", s, line)
		}
		if len(out) > len(s)*3 {
			t.Fatalf("Sanitize(%q) grew to %d bytes", s, len(out))
		}
	})
}
