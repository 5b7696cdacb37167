package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// dryRunRows is the pairs file the dry-run memory test and benchmark plan.
const dryRunRows = 100_000

// writeDryRunFile writes dryRunRows pairs (a number and a short code each,
// as in the 1M-row file) and returns its path and an environment.
func writeDryRunFile(tb testing.TB) (string, map[string]string) {
	tb.Helper()
	dir := tb.TempDir()
	var b strings.Builder
	b.WriteString("mobile,message\n")
	for i := range dryRunRows {
		fmt.Fprintf(&b, "0912%07d,Code %06d\n", i, i)
	}
	file := filepath.Join(dir, "pairs.csv")
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		tb.Fatal(err)
	}
	return file, map[string]string{"SMSDESK_CONFIG_DIR": filepath.Join(dir, "config"), "SMSDESK_STATE_DIR": filepath.Join(dir, "state")}
}

// dryRun runs send-pair --file --dry-run in process, its output thrown away.
func dryRun(tb testing.TB, file string, env map[string]string) {
	tb.Helper()
	code := Main(context.Background(), []string{"send-pair", "--file", file, "--sender", "3000505", "--dry-run"},
		Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Getenv: func(k string) string { return env[k] }})
	if code != 0 {
		tb.Fatalf("dry run: exit %d", code)
	}
}

// TestDryRunHoldsTheRowsOnce: a dry run of a big file allocates about its
// plan, once: 297 bytes a row of 24 bytes. It held the rows three times
// over as rows, plan and table (the cells, their clean copies, the whole
// text in one string) and grew each a row at a time: 1,176 bytes a row,
// and 1.4 GB of RSS for a million rows (BENCHMARKS.md has the RSS now).
// Allocation, unlike time, does not depend on the machine. Not parallel:
// the others' allocations would be counted.
func TestDryRunHoldsTheRowsOnce(t *testing.T) {
	const budget = 400 // bytes a row
	file, env := writeDryRunFile(t)
	least := uint64(1 << 63)
	for range 2 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		dryRun(t, file, env)
		runtime.ReadMemStats(&after)
		least = min(least, (after.TotalAlloc-before.TotalAlloc)/dryRunRows)
	}
	t.Logf("a dry run of %d rows allocates %d bytes a row (budget %d)", dryRunRows, least, budget)
	if least > budget {
		t.Errorf("a dry run of %d rows allocates %d bytes a row, over the budget of %d", dryRunRows, least, budget)
	}
}

// BenchmarkSendPairDryRun100k: send-pair --file --dry-run over 100,000
// pairs, in process (BENCHMARKS.md, "1M-row dry run").
func BenchmarkSendPairDryRun100k(b *testing.B) {
	file, env := writeDryRunFile(b)
	b.ReportAllocs()
	for b.Loop() {
		dryRun(b, file, env)
	}
}
