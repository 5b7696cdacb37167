package app

import (
	"context"
	"sync"

	"github.com/smsdesk/smsdesk/config/ledger"
)

// eventCommitter commits webhook events to the ledger in groups: what
// arrives while a commit is under way goes in the next one, one
// transaction (one sync of the disk on SQLite, whose one writer at a time
// would otherwise hold 10,000 events to the pace of 10,000 syncs). Each
// caller is answered only after the commit that holds its event. There is
// no goroutine of its own: the first caller to find no commit under way
// commits for everyone waiting (its own event among them), until its own
// is committed, then hands over to whoever waits.
type eventCommitter struct {
	l *ledger.Ledger
	// turn is held (a token in it) by the caller committing.
	turn chan struct{}

	mu      sync.Mutex
	waiting []*pendingEvent
}

// maxEventBatch bounds one transaction's events.
const maxEventBatch = 500

type pendingEvent struct {
	ev   ledger.Event
	res  ledger.EventResult
	err  error
	done chan struct{}
}

func newEventCommitter(l *ledger.Ledger) *eventCommitter {
	return &eventCommitter{l: l, turn: make(chan struct{}, 1)}
}

// record commits ev (with whatever else is waiting) and returns what it
// did. A caller whose ctx ends first is answered with ctx's error; its
// event may still be committed by the commit under way (the service's
// next post of it is then a duplicate).
func (c *eventCommitter) record(ctx context.Context, ev ledger.Event) (ledger.EventResult, error) {
	p := &pendingEvent{ev: ev, done: make(chan struct{})}
	c.mu.Lock()
	c.waiting = append(c.waiting, p)
	c.mu.Unlock()
	for {
		select {
		case <-p.done:
			return p.res, p.err
		case c.turn <- struct{}{}:
			c.commitUntil(ctx, p)
			<-c.turn
			return p.res, p.err
		case <-ctx.Done():
			return ledger.EventResult{}, ctx.Err()
		}
	}
}

// commitUntil commits what waits, a group at a time, until p is done. Its
// commits are not cut short by the caller's ctx ending (what waits is
// others' too): the ledger's own bounds end a commit that cannot go.
func (c *eventCommitter) commitUntil(ctx context.Context, p *pendingEvent) {
	ctx = context.WithoutCancel(ctx)
	for {
		select {
		case <-p.done:
			return
		default:
		}
		c.mu.Lock()
		n := min(len(c.waiting), maxEventBatch)
		group := c.waiting[:n:n]
		c.waiting = c.waiting[n:]
		c.mu.Unlock()
		if n == 0 {
			return // p was taken by another's commit, which closes it
		}
		c.commit(ctx, group)
	}
}

// commit commits group in one transaction; a group that fails is tried
// one event at a time, so that an event the ledger refuses holds up no
// other.
func (c *eventCommitter) commit(ctx context.Context, group []*pendingEvent) {
	events := make([]ledger.Event, len(group))
	for i, p := range group {
		events[i] = p.ev
	}
	res, err := c.l.RecordEvents(ctx, events)
	if err != nil && len(group) > 1 {
		for _, p := range group {
			c.commit(ctx, []*pendingEvent{p})
		}
		return
	}
	for i, p := range group {
		if err != nil {
			p.err = err
		} else {
			p.res = res[i]
		}
		close(p.done)
	}
}
