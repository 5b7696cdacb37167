package model

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// digits returns n characters of the repeating 1234567890 pattern starting at
// the digit after first (the Twilio vectors' bodies).
func digits(first byte, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = '0' + (first-'0'+1+byte(i))%10
	}
	return string(b)
}

func TestPartsTwilioVectors(t *testing.T) {
	// The vectors of Twilio's message-segment-calculator tests
	// (github.com/TwilioDevEd/message-segment-calculator, tests/index.test.js),
	// rebuilt here: Twilio's messageSize is Units×7 bits (GSM-7) or Units×16
	// bits (UCS-2). Its Malaysian-locale vector (é forced to UCS-2) and its
	// grapheme counts are out of scope: é is GSM-7 in the default alphabet,
	// and Chars counts code points (Twilio's unicodeScalars).
	tests := []struct {
		name     string
		body     string
		enc      Encoding
		parts    int
		msgBits  int
		scalars  int
		lastPart int // units in the last part, when the test pins it
	}{
		{"GSM-7 in one segment", "1" + digits('1', 159), GSM7, 1, 1120, 160, -1},
		{"GSM-7 in two segments", "1" + digits('1', 160), GSM7, 2, 1127, 161, -1},
		{"GSM-7 in three segments", "1" + digits('1', 306), GSM7, 3, 2149, 307, 1},
		{"UCS-2 message in one segment", "😜" + digits('1', 68), UCS2, 1, 1120, 69, -1},
		{"UCS-2 message in two segments", "😜" + digits('1', 69), UCS2, 2, 1136, 70, -1},
		{"UCS-2 message in three segments", "😜" + digits('1', 133), UCS2, 3, 2160, 134, 1},
		{"UCS-2 two-scalar flag, one segment", "🇮🇹" + digits('1', 66), UCS2, 1, 1120, 68, -1},
		{"UCS-2 two-scalar flag, two segments", "🇮🇹" + digits('1', 67), UCS2, 2, 1136, 69, -1},
		{"UCS-2 four-scalar flag, one segment", "\U0001F3F3\uFE0F\u200D\U0001F308" + digits('1', 64), UCS2, 1, 1120, 68, -1},
		{"UCS-2 four-scalar flag, two segments", "\U0001F3F3\uFE0F\u200D\U0001F308" + digits('1', 65), UCS2, 2, 1136, 69, -1},
		{"UCS-2 with GSM escape characters, one segment", "😀" + strings.Repeat("]", 68), UCS2, 1, 1120, 69, -1},
		{"UCS-2 with GSM escape characters, two segments", "😀" + strings.Repeat("]", 69), UCS2, 2, 1136, 70, -1},
		{"triple accents, one segment", "e\u0301\u0301\u0301" + strings.Repeat("a", 66), UCS2, 1, 1120, 70, -1},
		{"triple accents, two segments", "e\u0301\u0301\u0301" + strings.Repeat("a", 67), UCS2, 2, 1136, 71, -1},
	}
	for _, c := range "|^€{}[]~\\" {
		tests = append(tests,
			struct {
				name     string
				body     string
				enc      Encoding
				parts    int
				msgBits  int
				scalars  int
				lastPart int
			}{"one segment with escape " + string(c), string(c) + "1" + digits('1', 157), GSM7, 1, 1120, 159, -1},
			struct {
				name     string
				body     string
				enc      Encoding
				parts    int
				msgBits  int
				scalars  int
				lastPart int
			}{"two segments with escape " + string(c), string(c) + "1" + digits('1', 158), GSM7, 2, 1127, 160, -1},
		)
	}
	for _, c := range "ÁÚúçíÍóÓ" {
		for n, parts := range map[int]int{70: 1, 71: 2} {
			body := strings.Repeat(string(c), n)
			tests = append(tests, struct {
				name     string
				body     string
				enc      Encoding
				parts    int
				msgBits  int
				scalars  int
				lastPart int
			}{"UCS-2 letter " + string(c), body, UCS2, parts, n * 16, n, -1})
		}
	}
	for _, tt := range tests {
		pc := Parts(tt.body)
		bits := pc.Units * 7
		if pc.Encoding == UCS2 {
			bits = pc.Units * 16
		}
		if pc.Encoding != tt.enc || pc.Parts != tt.parts || bits != tt.msgBits || pc.Chars != tt.scalars {
			t.Errorf("%s: Parts = %+v (%d bits); want %s, %d parts, %d bits, %d chars", tt.name, pc, bits, tt.enc, tt.parts, tt.msgBits, tt.scalars)
		}
		if tt.lastPart >= 0 && pc.PerPart-pc.Left != tt.lastPart {
			t.Errorf("%s: last part holds %d units, want %d", tt.name, pc.PerPart-pc.Left, tt.lastPart)
		}
	}
}

func TestParts(t *testing.T) {
	persian70 := strings.Repeat("سلام ", 14) // 70 characters
	tests := []struct {
		name  string
		text  string
		want  PartCount
		notes string
	}{
		{"empty", "", PartCount{GSM7, 0, 0, 0, 160, 160}, ""},
		{"hello", "Hello", PartCount{GSM7, 5, 5, 1, 160, 155}, ""},
		{"GSM 160", strings.Repeat("a", 160), PartCount{GSM7, 160, 160, 1, 160, 0}, ""},
		{"GSM 161", strings.Repeat("a", 161), PartCount{GSM7, 161, 161, 2, 153, 145}, ""},
		{"GSM 306", strings.Repeat("a", 306), PartCount{GSM7, 306, 306, 2, 153, 0}, ""},
		{"GSM 307", strings.Repeat("a", 307), PartCount{GSM7, 307, 307, 3, 153, 152}, ""},
		{"GSM 459", strings.Repeat("a", 459), PartCount{GSM7, 459, 459, 3, 153, 0}, ""},
		{"extension costs 2", "€uro {x}", PartCount{GSM7, 8, 11, 1, 160, 149}, ""},
		{"form feed costs 2", "a\fb", PartCount{GSM7, 3, 4, 1, 160, 156}, ""},
		{"80 extension chars = 160 units", strings.Repeat("€", 80), PartCount{GSM7, 80, 160, 1, 160, 0}, ""},
		{"81 extension chars", strings.Repeat("€", 81), PartCount{GSM7, 81, 162, 2, 153, 143}, "76 pairs fill 152 of part 1"},
		// 152 plain + one escape pair: the pair would straddle units 153-154,
		// so part 1 closes at 152 and the pair opens part 2.
		{"escape pair not split", strings.Repeat("a", 152) + "[" + strings.Repeat("a", 10), PartCount{GSM7, 163, 164, 2, 153, 141}, ""},
		{"escape pair fits exactly", strings.Repeat("a", 151) + "[" + strings.Repeat("a", 10), PartCount{GSM7, 162, 163, 2, 153, 143}, ""},
		{"GSM specials", "@£$¥èéùìòÇØøÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ¤¡ÄÖÑÜ§¿äöñüà\r\n", PartCount{GSM7, 44, 44, 1, 160, 116}, ""},
		{"backtick is not GSM", "`", PartCount{UCS2, 1, 1, 1, 70, 69}, ""},
		{"tab is not GSM", "a\tb", PartCount{UCS2, 3, 3, 1, 70, 67}, ""},
		{"ç is not GSM (only Ç)", "ç", PartCount{UCS2, 1, 1, 1, 70, 69}, ""},
		{"Persian 70", persian70, PartCount{UCS2, 70, 70, 1, 70, 0}, ""},
		{"Persian 71", persian70 + "!", PartCount{UCS2, 71, 71, 2, 67, 63}, ""},
		{"Persian 134", strings.Repeat("ب", 134), PartCount{UCS2, 134, 134, 2, 67, 0}, ""},
		{"Persian 135", strings.Repeat("ب", 135), PartCount{UCS2, 135, 135, 3, 67, 66}, ""},
		{"ZWNJ counts", "می\u200cروم", PartCount{UCS2, 6, 6, 1, 70, 64}, ""},
		{"69 Persian + ZWNJ = 70", strings.Repeat("ب", 69) + "\u200c", PartCount{UCS2, 70, 70, 1, 70, 0}, ""},
		{"70 Persian + ZWNJ = 71", strings.Repeat("ب", 70) + "\u200c", PartCount{UCS2, 71, 71, 2, 67, 63}, ""},
		{"Persian digits", "کد: ۱۲۳۴", PartCount{UCS2, 8, 8, 1, 70, 62}, ""},
		{"emoji costs 2", "😀", PartCount{UCS2, 1, 2, 1, 70, 68}, ""},
		{"35 emoji = 70 units", strings.Repeat("😀", 35), PartCount{UCS2, 35, 70, 1, 70, 0}, ""},
		// 66 units + an emoji: the surrogate pair would straddle units 67-68,
		// so part 1 closes at 66.
		{"surrogate pair not split", strings.Repeat("ب", 66) + "😀" + "ببب", PartCount{UCS2, 70, 71, 2, 67, 62}, ""},
		{"surrogate pair fits exactly", strings.Repeat("ب", 65) + "😀" + "بببب", PartCount{UCS2, 70, 71, 2, 67, 63}, ""},
		{"36 emoji", strings.Repeat("😀", 36), PartCount{UCS2, 36, 72, 2, 67, 61}, "33 emoji fill 66 of part 1"},
		{"invalid UTF-8 is one unit", "a\xffb", PartCount{UCS2, 3, 3, 1, 70, 67}, ""},
		{"mixed Persian and Latin", "سلام Ali", PartCount{UCS2, 8, 8, 1, 70, 62}, ""},
	}
	for _, tt := range tests {
		if got := Parts(tt.text); got != tt.want {
			t.Errorf("%s: Parts = %+v, want %+v %s", tt.name, got, tt.want, tt.notes)
		}
	}
}

// partsNaive splits text one character at a time with explicit part buffers,
// independently of Parts' arithmetic.
func partsNaive(text string) (enc Encoding, parts [][]int) {
	enc = GSM7
	for _, r := range text {
		if gsmWidth(r) == 0 {
			enc = UCS2
		}
	}
	var widths []int
	total := 0
	for _, r := range text {
		w := gsmWidth(r)
		if enc == UCS2 {
			w = 1
			if r > 0xffff {
				w = 2
			}
		}
		widths = append(widths, w)
		total += w
	}
	single, per := 160, 153
	if enc == UCS2 {
		single, per = 70, 67
	}
	if total == 0 {
		return enc, nil
	}
	if total <= single {
		return enc, [][]int{widths}
	}
	cur, sum := []int{}, 0
	for _, w := range widths {
		if sum+w > per {
			parts = append(parts, cur)
			cur, sum = []int{}, 0
		}
		cur = append(cur, w)
		sum += w
	}
	return enc, append(parts, cur)
}

func FuzzParts(f *testing.F) {
	for _, s := range []string{"", "Hello", strings.Repeat("a", 161), strings.Repeat("€", 81), "سلام دنیا",
		strings.Repeat("ب", 66) + "😀", "😀", "\x00", "\xff", "a\fb", strings.Repeat("[", 77), "e\u0301",
		strings.Repeat("a", 152) + "{", "🏳️\u200d🌈", "می\u200cروم"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		pc := Parts(s)
		if utf8.ValidString(s) && partsOf(s, true) != pc {
			t.Fatalf("partsOf(%q, valid) = %+v, Parts = %+v", s, partsOf(s, true), pc)
		}
		enc, parts := partsNaive(s)
		if pc.Encoding != enc || pc.Parts != len(parts) {
			t.Fatalf("Parts(%q) = %+v; naive split: %s in %d parts", s, pc, enc, len(parts))
		}
		if pc.Chars != utf8.RuneCountInString(s) {
			t.Fatalf("Parts(%q).Chars = %d, want %d", s, pc.Chars, utf8.RuneCountInString(s))
		}
		if pc.Units < pc.Chars || pc.Units > 2*pc.Chars {
			t.Fatalf("Parts(%q).Units = %d for %d chars", s, pc.Units, pc.Chars)
		}
		if pc.Left < 0 || pc.Left > pc.PerPart || pc.Parts > 0 && pc.Left == pc.PerPart {
			t.Fatalf("Parts(%q).Left = %d of %d", s, pc.Left, pc.PerPart)
		}
		if len(parts) > 0 {
			last := 0
			for _, w := range parts[len(parts)-1] {
				last += w
			}
			if pc.PerPart-pc.Left != last {
				t.Fatalf("Parts(%q): last part %d units, naive %d", s, pc.PerPart-pc.Left, last)
			}
		}
	})
}
