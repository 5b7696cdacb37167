package model

import (
	"strings"
	"testing"
)

func TestFoldSearch(t *testing.T) {
	for _, tc := range []struct{ a, b string }{
		{"علی", "علي"},
		{"علی", "على"},
		{"کریمی", "كريمي"},
		{"آرش", "ارش"},
		{"أحمد", "احمد"},
		{"فاطمه", "فاطمة"},
		{"نیلوفر خوش\u200cنویس", "نیلوفر خوشنویس"},
		{"مــحــمد", "محمد"},
		{"سَلام", "سلام"},
		{"۰۹۱۲", "0912"},
		{"٠٩١٢", "0912"},
		{"ALI Reza", "ali reza"},
	} {
		if FoldSearch(tc.a) != FoldSearch(tc.b) {
			t.Errorf("%q and %q fold to %q and %q", tc.a, tc.b, FoldSearch(tc.a), FoldSearch(tc.b))
		}
	}
}

func TestFoldNumberQuery(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"+98912", "0912"},
		{"0098912", "0912"},
		{"+98 912-123", "0912123"},
		{"۰۹۱۲", "0912"},
		{"+۹۸۹۱۲", "0912"},
		{"0912", "0912"},
		{"912", "912"},
		{"علي", "علی"},
		{"Ali", "ali"},
		{"+1 555", "1555"},
	} {
		if got := FoldNumberQuery(tc.in); got != tc.want {
			t.Errorf("FoldNumberQuery(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// What the filter does: a folded query is found in the folded row.
	row := FoldSearch("علي رضايي" + "\x00" + "09121234567")
	for _, q := range []string{"علی", "رضایی", "+98912", "۰۹۱۲۱"} {
		if !strings.Contains(row, FoldNumberQuery(q)) {
			t.Errorf("%q does not find %q", q, row)
		}
	}
}

// BenchmarkFoldSearch100k folds the search keys of a 100,000-contact group,
// as the console does once when the group is loaded.
func BenchmarkFoldSearch100k(b *testing.B) {
	keys := make([]string, 100_000)
	for i := range keys {
		keys[i] = "علي رضايي شماره ۱۲\x0009121234567\x00" + strings.Repeat("x", i%7)
	}
	for b.Loop() {
		for _, k := range keys {
			_ = FoldSearch(k)
		}
	}
}
