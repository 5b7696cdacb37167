package console

import "sync"

// stateWrites lets the console's end wait for the writes to its state
// directory that its Cmds begin (the contacts cache: saved after a load,
// updated after an add, a delete or an import). Such a Cmd runs on a
// goroutine of the program's and may still be writing when the program has
// ended; whoever removes the directory next (a test's TempDir, an operator
// deleting a profile) must not meet a half-written file or a write that
// lands after it. A write begun before close is waited for; one whose Cmd
// runs only after close is not made (it is a cache: the next load writes it).
type stateWrites struct {
	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

// do runs write unless the console has ended, and reports whether it ran.
func (w *stateWrites) do(write func()) bool {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return false
	}
	w.wg.Add(1)
	w.mu.Unlock()
	defer w.wg.Done()
	write()
	return true
}

// close refuses further writes and waits for those under way.
func (w *stateWrites) close() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	w.wg.Wait()
}
