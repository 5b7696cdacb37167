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

// TestBytesBudgetOverTime measures what takes seconds of real time: a
// running send (2 s) and an idle console (1.1 s). It is in the file whose
// name sorts first, and first in it, so that of the package's parallel
// tests it is the first paused and the first the testing package resumes
// (Go 1.26): its seconds pass beside the other tests, not after them. Its
// budgets do not depend on the machine's load (the service paces the send;
// idle is no frame at all).
func TestBytesBudgetOverTime(t *testing.T) {
	t.Parallel()
	t.Run("running send", func(t *testing.T) {
		t.Parallel()
		out, p := runningSend(t)
		first := sendDone(p)
		before, _ := out.read()
		start := time.Now()
		// Real time is what is measured (bytes a second from the program's own
		// renderer, whose frames tick on the real clock); two seconds, as the
		// service's pacing can pause a send for a second.
		time.Sleep(2 * time.Second)
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
	t.Run("idle", func(t *testing.T) {
		t.Parallel()
		out, _ := bytesProgram(t, sandbox.Options{}) // loaded, still, its last frame written
		// Each window is past a second's ticks (rate budget, clocks, the
		// spinner's quarter seconds), so a console that redraws on any of
		// them writes in every window. A busy machine may yet flush the
		// frame before the first window late, into it: up to three are
		// looked at, and one of them must be silent.
		var wrote []int
		for range 3 {
			before, _ := out.read()
			time.Sleep(1100 * time.Millisecond) // real time is what is measured: a second of the renderer's real ticks with no frame
			after, _ := out.read()
			if after-before <= idleBudget {
				return
			}
			wrote = append(wrote, after-before)
		}
		t.Errorf("idle: %v bytes in three windows of 1.1 s, budget %d; last written %q", wrote, idleBudget, out.lastChunk)
	})
}

// TestBytesBudget measures the bytes of one action. Not parallel with the
// package's other tests: on a loaded machine (the race detector, a dozen
// consoles at once) an action's frame can be drawn in two, and the
// composer's character measured 914 B against its 800; it runs before
// them, its actions side by side (under a second).
func TestBytesBudget(t *testing.T) {
	for _, a := range bytesActions() {
		if a.budget == 0 {
			continue
		}
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			out, p := bytesProgramStyled(t, sandbox.Options{}, a.noColor)
			sent := time.Now()
			for _, m := range a.setup {
				p.Send(m)
			}
			if a.ready != nil {
				awaitState(t, p, a.name+": its setup done", a.ready)
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
}
