package dispatch

import "sync"

// eventQueue hands events to a reader without ever blocking the engine: a slow
// reader (a console busy rendering) cannot hold a chunk's outcome back from the
// journal. Events are kept in order; the channel closes after close().
type eventQueue struct {
	mu     sync.Mutex
	buf    []Event
	closed bool
	wake   chan struct{}
	out    chan Event
}

func newEventQueue() *eventQueue {
	q := &eventQueue{wake: make(chan struct{}, 1), out: make(chan Event, 1024)}
	go q.pump()
	return q
}

// push queues events in order (copied), under one lock however many.
func (q *eventQueue) push(evs ...Event) {
	q.mu.Lock()
	q.buf = append(q.buf, evs...)
	q.mu.Unlock()
	q.signal()
}

func (q *eventQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.signal()
}

func (q *eventQueue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *eventQueue) pump() {
	var batch []Event
	for {
		q.mu.Lock()
		batch, q.buf = q.buf, batch[:0]
		closed := q.closed
		q.mu.Unlock()
		for _, e := range batch {
			q.out <- e
		}
		if len(batch) == 0 {
			if closed {
				close(q.out)
				return
			}
			<-q.wake
		}
		clear(batch)
	}
}
