package model

import (
	"strconv"
	"strings"
	"testing"

	"github.com/rivo/uniseg"
)

// Conformance vectors from the Unicode Character Database's
// BidiCharacterTest.txt (the examples of UAX #9 section 3.3.5 and its
// Arabic/European digit cases): code points; paragraph direction (0 LTR,
// 1 RTL, 2 first strong); resolved paragraph level; each code point's level;
// the visual order of the code points.
var bidiConformance = []string{
	"05D0 05D1 0028 05D2 05D3 005B 0026 0065 0066 005D 002E 0029 0067 0068;0;0;1 1 0 1 1 0 0 0 0 0 0 0 0 0;1 0 2 4 3 5 6 7 8 9 10 11 12 13",
	"05D0 05D1 0028 05D2 05D3 005B 0026 0065 0066 005D 002E 0029 0067 0068;1;1;1 1 1 1 1 1 1 2 2 1 1 1 2 2;12 13 11 10 9 7 8 6 5 4 3 2 1 0",
	"0061 0062 0063 0020 0028 0064 0065 0066 0020 0627 0628 062C 0029 0020 05D0 05D1 05D2;0;0;0 0 0 0 0 0 0 0 0 1 1 1 0 0 1 1 1;0 1 2 3 4 5 6 7 8 11 10 9 12 13 16 15 14",
	"0061 0062 0063 0020 0028 0064 0065 0066 0020 0627 0628 062C 0029 0020 05D0 05D1 05D2;1;1;2 2 2 1 1 2 2 2 1 1 1 1 1 1 1 1 1;16 15 14 13 12 11 10 9 8 5 6 7 4 3 0 1 2",
	"05D0 05D1 05D2 0020 0028 0064 0065 0066 0020 0627 0628 062C 0029 0020 0061 0062 0063;0;0;1 1 1 0 0 0 0 0 0 1 1 1 0 0 0 0 0;2 1 0 3 4 5 6 7 8 11 10 9 12 13 14 15 16",
	"05D0 05D1 05D2 0020 0028 0064 0065 0066 0020 0627 0628 062C 0029 0020 0061 0062 0063;1;1;1 1 1 1 1 2 2 2 1 1 1 1 1 1 2 2 2;14 15 16 13 12 11 10 9 8 5 6 7 4 3 2 1 0",
	"0061 0062 0063 0020 0028 0627 0628 062C 0020 0064 0065 0066 0029 0020 05D0 05D1 05D2;0;0;0 0 0 0 0 1 1 1 0 0 0 0 0 0 1 1 1;0 1 2 3 4 7 6 5 8 9 10 11 12 13 16 15 14",
	"0061 0062 0063 0020 0028 0627 0628 062C 0020 0064 0065 0066 0029 0020 05D0 05D1 05D2;1;1;2 2 2 1 1 1 1 1 1 2 2 2 1 1 1 1 1;16 15 14 13 12 9 10 11 8 7 6 5 4 3 0 1 2",
	"05D0 05D1 05D2 0020 0028 0627 0628 062C 0020 0064 0065 0066 0029 0020 0061 0062 0063;0;0;1 1 1 0 0 1 1 1 0 0 0 0 0 0 0 0 0;2 1 0 3 4 7 6 5 8 9 10 11 12 13 14 15 16",
	"05D0 05D1 05D2 0020 0028 0627 0628 062C 0020 0064 0065 0066 0029 0020 0061 0062 0063;1;1;1 1 1 1 1 1 1 1 1 2 2 2 1 1 2 2 2;14 15 16 13 12 9 10 11 8 7 6 5 4 3 2 1 0",
	"0627 0628 062C 0020 0062 006F 006F 006B 0028 0073 0029;0;0;1 1 1 0 0 0 0 0 0 0 0;2 1 0 3 4 5 6 7 8 9 10",
	"0627 0628 062C 0020 0062 006F 006F 006B 0028 0073 0029;1;1;1 1 1 1 2 2 2 2 2 2 2;4 5 6 7 8 9 10 3 2 1 0",
	"062A 0031 002F 0032;2;1;1 2 2 2;1 2 3 0",
	"062A 0031 002F 0032;0;0;1 2 2 2;1 2 3 0",
	"062A 0031 002F 0032;1;1;1 2 2 2;1 2 3 0",
	"05D0 0020 0031 002D 0032;0;0;1 1 2 2 2;2 3 4 1 0",
}

func TestBidiConformance(t *testing.T) {
	for _, line := range bidiConformance {
		f := strings.Split(line, ";")
		var runes []rune
		for _, h := range strings.Fields(f[0]) {
			n, _ := strconv.ParseUint(h, 16, 32)
			runes = append(runes, rune(n))
		}
		dir := map[string]int{"0": 0, "1": 1, "2": -1}[f[1]]
		levels, base := resolveLevels(runes, dir)
		var got []string
		for _, l := range levels {
			got = append(got, strconv.Itoa(l))
		}
		if strconv.Itoa(base) != f[2] || strings.Join(got, " ") != f[3] {
			t.Errorf("%s dir %s: paragraph %d levels %s, want %s and %s", f[0], f[1], base, strings.Join(got, " "), f[2], f[3])
			continue
		}
		var order []string
		for _, i := range visualOrder(levels, base) {
			order = append(order, strconv.Itoa(i))
		}
		if strings.Join(order, " ") != f[4] {
			t.Errorf("%s dir %s: visual order %s, want %s", f[0], f[1], strings.Join(order, " "), f[4])
		}
	}
}

// TestVisualLine: Persian sentences as an operator writes them, in the order a
// terminal that does not reorder must be given them.
func TestVisualLine(t *testing.T) {
	tests := []struct{ name, logical, visual string }{
		{"Latin only is untouched", "Hello {name}, code 48213", "Hello {name}, code 48213"},
		{"a Persian word", "سلام", "مالس"},
		{"Persian with a number keeps the digits left to right",
			"کد شما 48213 است", "تسا 48213 امش دک"},
		{"Persian digits too", "ساعت ۱۰ صبح", "حبص ۱۰ تعاس"},
		{"a {name} variable stays readable",
			"سلام {name} عزیز", "زیزع {name} مالس"},
		{"a URL inside a Persian sentence", "ببینید https://ex.com/a?b=1 امروز", "زورما https://ex.com/a?b=1 دینیبب"},
		{"brackets mirror in a right-to-left run", "(سلام)", "(مالس)"},
		{"an English sentence with a Persian word", "Hello سلام world", "Hello مالس world"},
		{"a number after a Persian word in an English line", "Code سلام 123", "Code 123 مالس"},
		// ZWNJ is part of the cluster before it: it stays with its letter.
		{"ZWNJ stays inside its word", "می\u200cروم", "موری\u200cم"},
		// Read right to left, the Persian percent sign stands left of its number.
		{"a percent sign with its number", "تخفیف ۲۰٪ ویژه", "هژیو ٪۲۰ فیفخت"},
		{"an emoji sequence stays whole", "سلام 👍🏽 دوست", "تسود 👍🏽 مالس"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := VisualLine(tt.logical)
			if got != tt.visual {
				t.Errorf("VisualLine(%q)\n got %q\nwant %q", tt.logical, got, tt.visual)
			}
			// Reordering never adds, drops or splits a grapheme cluster.
			if countGraphemes(got) != countGraphemes(tt.logical) || len(got) != len(tt.logical) {
				t.Errorf("VisualLine(%q) changed the text's clusters: %q", tt.logical, got)
			}
		})
	}
}

func countGraphemes(s string) int { return uniseg.GraphemeClusterCount(s) }

func FuzzVisualLine(f *testing.F) {
	for _, s := range []string{"سلام {name}", "a(b)c", "۱۲۳ abc", "(\u202e)", "[{(", "\u0301\u0301", "x\u200dب"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := VisualLine(s)
		if len(got) != len(s) {
			t.Fatalf("VisualLine(%q) = %q: %d bytes, want %d", s, got, len(got), len(s))
		}
	})
}

// BenchmarkVisualLine100: reordering one 100-column line of mixed text, what
// the console does per visible line with bidi = visual.
func BenchmarkVisualLine100(b *testing.B) {
	line := "مریم عزیز، نوبت شما فردا ساعت ۱۰ صبح است. کد: 48213 · {name} https://ex.com/a"
	for b.Loop() {
		_ = VisualLine(line)
	}
}

func TestParagraphDirection(t *testing.T) {
	for _, tt := range []struct {
		text          string
		rtl, template bool
	}{
		{"سلام علی", true, true},
		{"Put فاطمه موسوی 09351973060 on the opt-out list?", false, false},
		{"09351973060 فاطمه", true, true}, // digits are weak: the first strong is Persian
		{"{name} عزیز، نوبت شما فردا است", false, true},
		{"{name} {code}", false, false},
		{"{name", false, false},
		{"", false, false},
		{"«لغو۱۱»", true, true},
	} {
		if got := RightToLeft(tt.text); got != tt.rtl {
			t.Errorf("RightToLeft(%q) = %v", tt.text, got)
		}
		if got := TemplateRightToLeft(tt.text); got != tt.template {
			t.Errorf("TemplateRightToLeft(%q) = %v", tt.text, got)
		}
	}
}

// TestVisualLineIn: a wrapped line takes its paragraph's direction: the
// second line of a Persian paragraph that begins with a Latin word keeps
// the Persian at its right.
func TestVisualLineIn(t *testing.T) {
	line := "SMS ارسال شد"
	if got, want := VisualLineIn(line, true), "دش لاسرا SMS"; got != want {
		t.Errorf("right to left: %q, want %q", got, want)
	}
	if got, want := VisualLineIn(line, false), "SMS دش لاسرا"; got != want {
		t.Errorf("left to right: %q, want %q", got, want)
	}
	if got := VisualLineIn("plain", true); got != "plain" {
		t.Errorf("no right-to-left text: %q", got)
	}
}
