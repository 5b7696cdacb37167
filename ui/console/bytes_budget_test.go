package console

import (
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// Byte budgets (issue 21): what the console writes to the terminal for one
// action must fit a slow SSH link. Measured as BenchmarkBytesPerAction
// measures them (the program's own renderer writing into a counter, 100×30,
// 256 colours, the 300-contact group), with fewer repetitions.
const (
	idleBudget = 0    // bytes while nothing happens
	sendBudget = 2048 // bytes a second while a send runs
)

func TestBytesBudget(t *testing.T) {
	// The longest first: the subtests wait for the program more than they
	// work, and run side by side.
	t.Run("running send", func(t *testing.T) {
		t.Parallel()
		out, p := runningSend(t)
		first := sendDone(p)
		before, _ := out.read()
		start := time.Now()
		time.Sleep(2 * time.Second) // the service's pacing can pause a send for a second
		after, _ := out.read()
		last := sendDone(p)
		perSecond := float64(after-before) / time.Since(start).Seconds()
		t.Logf("running send: %.0f bytes a second, %d items answered meanwhile (budget %d B/s)", perSecond, last-first, sendBudget)
		if last == first || last >= 300 {
			t.Fatalf("the send was not running the whole measure (%d → %d of 300)", first, last)
		}
		if perSecond > sendBudget {
			t.Errorf("running send: %.0f bytes a second, over the budget of %d", perSecond, sendBudget)
		}
	})
	for _, a := range bytesActions() {
		if a.budget == 0 {
			continue
		}
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			out, p := bytesProgram(t, sandbox.Options{})
			sent := time.Now()
			for _, m := range a.setup {
				p.Send(m)
			}
			before := out.settle(sent)
			const n = 3
			for i := range n {
				sent := time.Now()
				p.Send(a.key(i))
				out.settle(sent)
			}
			after, _ := out.read()
			per := (after - before) / n
			t.Logf("%s: %d bytes an action (budget %d)", a.name, per, a.budget)
			if after == before {
				t.Fatalf("%s wrote nothing: the action did not reach the console", a.name)
			}
			if per > a.budget {
				t.Errorf("%s: %d bytes an action, over the budget of %d", a.name, per, a.budget)
			}
		})
	}
	t.Run("idle", func(t *testing.T) {
		t.Parallel()
		out, _ := bytesProgram(t, sandbox.Options{})
		before, _ := out.read()
		time.Sleep(1100 * time.Millisecond) // past a second's ticks (rate budget, clocks)
		if after, _ := out.read(); after-before > idleBudget {
			t.Errorf("idle: %d bytes in 1.1 s, budget %d", after-before, idleBudget)
		}
	})
}
