package app

import (
	"sync"
	"time"
)

// runs are the runs a pass or a loop started: counted, waited for, and the
// first journal failure among them kept.
type runs struct {
	wg    sync.WaitGroup
	ended chan struct{} // a run ended (one signal holds for several)

	mu       sync.Mutex
	started  int
	failure  error
	failedAt time.Time // when a due send last failed to start (real time)
}

func newRuns() *runs { return &runs{ended: make(chan struct{}, 1)} }

func (rs *runs) add() { rs.wg.Add(1) }

func (rs *runs) done() {
	select {
	case rs.ended <- struct{}{}:
	default:
	}
	rs.wg.Done()
}

func (rs *runs) wait() { rs.wg.Wait() }

func (rs *runs) didStart() {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.started++
}

// fail keeps err, a write that failed and stopped a send (the first one).
func (rs *runs) fail(err error) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.failure == nil {
		rs.failure = err
	}
}

func (rs *runs) failed() error {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.failure
}

func (rs *runs) startFailed() {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.failedAt = time.Now()
}

// sinceStartFailed is the real time since a due send last failed to start
// (a long time: never).
func (rs *runs) sinceStartFailed() time.Duration {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.failedAt.IsZero() {
		return time.Hour
	}
	return time.Since(rs.failedAt)
}
