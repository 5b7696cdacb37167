package console

import (
	"runtime"
	"sync/atomic"
	"testing"
)

// TestStateWritesCloseWaits: the console's end waits for a cache write under
// way, and a write whose Cmd runs after the end is not made. Without the
// wait, TestTrackGroup and five others failed now and then on a busy
// machine: the test's TempDir was removed while a cache write was landing
// ("state/cache/test: directory not empty").
func TestStateWritesCloseWaits(t *testing.T) {
	w := &stateWrites{}
	started, release := make(chan struct{}), make(chan struct{})
	var finished atomic.Bool
	go w.do(func() {
		close(started)
		<-release
		finished.Store(true)
	})
	<-started
	closed := make(chan bool)
	go func() {
		w.close()
		closed <- finished.Load()
	}()
	// Release the write only once close has begun: it has refused new
	// writes, and is now (or soon) waiting.
	for {
		w.mu.Lock()
		c := w.closed
		w.mu.Unlock()
		if c {
			break
		}
		runtime.Gosched()
	}
	close(release)
	if !<-closed {
		t.Fatal("close returned before the write under way had finished")
	}
	if w.do(func() { t.Error("a write ran after close") }) {
		t.Error("do reported a write after close")
	}
}
