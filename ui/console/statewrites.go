package console

import (
	"sync"

	tea "charm.land/bubbletea/v2"
)

// owner lets the console's end wait for work its Cmds begin on the
// program's goroutines, which may still run when the program has ended:
// the writes to its state directory (the contacts cache: saved after a
// load, updated after an add, a delete or an import; the bidi setting),
// and the reads of the ledger and the state directory and the requests to
// the service (history pages, a send's journal, a send prepared or
// started, the opt-out list, the rules, the operators file, a contact
// added; issue 39 §3). Whoever removes the directory or closes the ledger
// next (a test's TempDir, smsdesk serve's end, an operator deleting a
// profile) must not meet a half-written file, a read still open on the
// ledger, or a write that lands after it. Work begun before close is waited
// for (the console's context is cancelled first: it ends soon); work whose
// Cmd runs only after close is not done (nobody reads its answer: a cache
// is written by the next load).
type owner struct {
	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

// do runs work unless the console has ended, and reports whether it ran.
// A nil owner (a pane built alone, in a test) just runs it.
func (w *owner) do(work func()) bool {
	if w == nil {
		work()
		return true
	}
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return false
	}
	w.wg.Add(1)
	w.mu.Unlock()
	defer w.wg.Done()
	work()
	return true
}

// close refuses further work and waits for the work under way.
func (w *owner) close() {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	w.wg.Wait()
}

// owned is cmd run under w (do): its answer, or none once the console has
// ended. A nil cmd stays nil.
func owned(w *owner, cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	return func() tea.Msg {
		var msg tea.Msg
		w.do(func() { msg = cmd() })
		return msg
	}
}
