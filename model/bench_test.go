package model

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Benchmarks for the hot paths; figures go in BENCHMARKS.md (## model).
// Run: go test -bench . -benchmem -run '^$' ./model

const (
	latinText   = "Dear customer, your verification code is 482913. It expires in 5 minutes. Do not share it with anyone."
	persianText = "مشتری گرامی، کد تایید شما ۴۸۲۹۱۳ است. این کد تا ۵ دقیقه\u200cی دیگر معتبر است؛ آن را در اختیار دیگران قرار ندهید."
)

// genPairs returns n rows as an operator's file would hold them: numbers in
// several spellings (local, spaced, +98, Persian digits), half Latin and half
// Persian messages of one to three parts, all valid and distinct.
func genPairs(n int) []PairRow {
	rows := make([]PairRow, n)
	for i := range rows {
		sub := i % 10_000_000
		var rcpt string
		switch i % 4 {
		case 0:
			rcpt = fmt.Sprintf("0912%07d", sub)
		case 1:
			rcpt = fmt.Sprintf("0935 %03d %04d", sub/10000, sub%10000)
		case 2:
			rcpt = fmt.Sprintf("+98 901 %07d", sub)
		default:
			rcpt = toPersianDigits(fmt.Sprintf("0919%07d", sub))
		}
		msg := latinText
		if i%2 == 1 {
			msg = persianText
		}
		if i%5 == 0 {
			msg = strings.Repeat(msg, 2)
		}
		rows[i] = PairRow{Line: i + 2, Recipient: rcpt, Message: fmt.Sprintf("%s #%d", msg, i)}
	}
	return rows
}

func toPersianDigits(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return '۰' + r - '0'
		}
		return r
	}, s)
}

// genPairsCSV renders genPairs(n) as a pairs file with a header, quoting
// messages (they contain commas).
func genPairsCSV(n int) []byte {
	var b bytes.Buffer
	b.WriteString("mobile,message\n")
	for _, r := range genPairs(n) {
		fmt.Fprintf(&b, "%s,\"%s\"\n", r.Recipient, r.Message)
	}
	return b.Bytes()
}

func BenchmarkParts(b *testing.B) {
	for _, bc := range []struct{ name, text string }{
		{"Latin", latinText},
		{"Persian", persianText},
		{"Latin3Parts", strings.Repeat(latinText, 4)},
		{"Persian3Parts", strings.Repeat(persianText, 2)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.text)))
			for b.Loop() {
				_ = Parts(bc.text)
			}
		})
	}
}

func BenchmarkNormalizeMobile(b *testing.B) {
	for _, bc := range []struct{ name, in string }{
		{"Canonical", "09121234567"},
		{"Spaced", "0912 123 4567"},
		{"E164", "+98 912 123 4567"},
		{"Persian", "۰۹۱۲۱۲۳۴۵۶۷"},
		{"Invalid", "09601234567"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				_, _ = NormalizeMobile(bc.in, FormatLocal)
			}
		})
	}
}

func BenchmarkReadPairs100k(b *testing.B) {
	data := genPairsCSV(100_000)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		n := 0
		err := ReadPairs(bytes.NewReader(data), func(PairRow) error { n++; return nil })
		if err != nil || n != 100_000 {
			b.Fatalf("read %d rows: %v", n, err)
		}
	}
}

func BenchmarkBuildPlan100k(b *testing.B) {
	rows := genPairs(100_000)
	b.ResetTimer()
	for b.Loop() {
		if p := BuildPlan("3000", rows, PlanOptions{}); !p.OK() {
			b.Fatalf("plan not OK: %q", p.Invalid()[0].Problems)
		}
	}
}

// TestBuildPlan100kBudget guards the budget: a 100,000-pair plan in
// under 150 ms and 64 MiB on the project machine (2 cores). Time and memory
// are measured on one build, best of three; the test fails only past 4× the
// budget (600 ms, 256 MiB) so that busy CI machines do not flake. Under the
// race detector, which slows this code 5-10×, the time limit is 20× (3 s)
// while the memory limit stays (allocation is unchanged). BENCHMARKS.md has
// the real figures from BenchmarkBuildPlan100k.
func TestBuildPlan100kBudget(t *testing.T) {
	const (
		budgetTime  = 150 * time.Millisecond
		budgetBytes = 64 << 20
		slack       = 4
	)
	timeSlack := time.Duration(slack)
	if raceEnabled {
		timeSlack = 20
	}
	rows := genPairs(100_000)
	best, bestBytes := time.Duration(1<<62), uint64(1<<63)
	for range 3 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		start := time.Now()
		p := BuildPlan("3000", rows, PlanOptions{})
		elapsed := time.Since(start)
		runtime.ReadMemStats(&after)
		if !p.OK() || len(p.Items) != len(rows) {
			t.Fatalf("plan not OK: %q", p.Invalid()[0].Problems)
		}
		best = min(best, elapsed)
		bestBytes = min(bestBytes, after.TotalAlloc-before.TotalAlloc)
	}
	t.Logf("100k plan: %v, %.1f MiB allocated (budget %v, %d MiB)", best, float64(bestBytes)/(1<<20), budgetTime, budgetBytes>>20)
	if best > timeSlack*budgetTime {
		t.Errorf("100k plan took %v, over %d× the %v budget", best, timeSlack, budgetTime)
	}
	if bestBytes > slack*budgetBytes {
		t.Errorf("100k plan allocated %d MiB, over %d× the %d MiB budget", bestBytes>>20, slack, budgetBytes>>20)
	}
}
