package cli

import (
	"testing"

	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
)

// TestCostsDoNotGrowWithThePast: `history --limit 20` and a new 1-pair
// send allocate at 2,000 past sends no more than 1.5× what they allocate
// at 20 (issue 36 §7 holds their time to that at 100,000 against 100: see
// BenchmarkPastSends). History replayed every send before it paged: 80×.
// Allocations, not time: they do not depend on how busy the machine is.
func TestCostsDoNotGrowWithThePast(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds 2,000 sends")
	}
	// Not parallel: AllocsPerRun counts the whole process's allocations.
	allocs := func(n int, args func(i int) []string) float64 {
		w := newBenchWorld(t, ledgertest.Backends()[0])
		w.seed(t, n)
		i := 0
		return testing.AllocsPerRun(3, func() {
			i++
			w.run(t, args(i)...)
		})
	}
	for _, tt := range []struct {
		name string
		args func(i int) []string
	}{
		{"history --limit 20", func(int) []string { return []string{"history", "--limit", "20"} }},
		{"send-pair of one pair", func(i int) []string {
			return []string{"send-pair", "--to", "0912000000" + string(rune('0'+i)), "--message", "cost " + string(rune('0'+i)), "--yes"}
		}},
	} {
		few, many := allocs(20, tt.args), allocs(2_000, tt.args)
		if many > 1.5*few {
			t.Errorf("%s: %.0f allocations at 2,000 past sends, %.0f at 20 (%.1f×; budget 1.5×)", tt.name, many, few, many/few)
		} else {
			t.Logf("%s: %.0f allocations at 2,000 past sends, %.0f at 20", tt.name, many, few)
		}
	}
}
