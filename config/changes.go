package config

import (
	"context"
	"errors"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/smsdesk/smsdesk/config/ledger"
)

// What others change while a face shows it: another session of smsdesk
// serve, another console, the CLI or a runner on any host opts numbers out,
// plans, schedules, starts, ends or cancels a send, and `smsdesk config
// set` changes the rules. A face learns of it through a ChangeFeed: one
// watch a process (of the ledger, ledger.WatchCounters, and of the config
// file, a stat a second) shared by every feed taken from the same Paths
// (the sessions of one server share their engine's), started by the first
// feed and stopped, its goroutine waited for, when the last is closed.

// Changes are the kinds of change a feed tells of.
type Changes struct {
	Sends      bool // a send planned, scheduled, held, started, ended, cancelled or let go
	OptOuts    bool // the opt-out list
	Rules      bool // the config file (the profiles' settings)
	Deliveries bool // a message's delivery state (a webhook event, a poll, an outcome's new rows)
	Inbox      bool // a recipient's message filed in the inbox
}

// Any reports whether anything changed.
func (c Changes) Any() bool { return c.Sends || c.OptOuts || c.Rules || c.Deliveries || c.Inbox }

func (c Changes) or(d Changes) Changes {
	return Changes{Sends: c.Sends || d.Sends, OptOuts: c.OptOuts || d.OptOuts, Rules: c.Rules || d.Rules,
		Deliveries: c.Deliveries || d.Deliveries, Inbox: c.Inbox || d.Inbox}
}

// changesBetween are the kinds whose ledger counters moved from was to c.
func changesBetween(c, was ledger.Counters) Changes {
	return Changes{Sends: c.Sends != was.Sends, OptOuts: c.OptOuts != was.OptOuts,
		Deliveries: c.Deliveries != was.Deliveries, Inbox: c.Inbox != was.Inbox}
}

// ErrFeedClosed is Next's error once its feed is closed.
var ErrFeedClosed = errors.New("the change feed is closed")

// ChangeFeed is one listener's share of the process's watch. Changes not
// taken yet coalesce: Next returns every kind that changed since the last.
type ChangeFeed struct {
	hub    *changeHub
	handle *ledgerHandle
	mu     sync.Mutex
	due    Changes
	ready  chan struct{} // holds one signal while due has something
	done   chan struct{} // closed by Close
	once   sync.Once
}

// Next waits for the next changes (every kind that changed since the last
// Next), until ctx ends (its error) or the feed is closed (ErrFeedClosed).
func (f *ChangeFeed) Next(ctx context.Context) (Changes, error) {
	for {
		f.mu.Lock()
		c := f.due
		f.due = Changes{}
		f.mu.Unlock()
		if c.Any() {
			return c, nil
		}
		select {
		case <-f.ready:
		case <-f.done:
			return Changes{}, ErrFeedClosed
		case <-ctx.Done():
			return Changes{}, ctx.Err()
		}
	}
}

// tell adds c to what the feed has to tell.
func (f *ChangeFeed) tell(c Changes) {
	f.mu.Lock()
	f.due = f.due.or(c)
	f.mu.Unlock()
	select {
	case f.ready <- struct{}{}:
	default:
	}
}

// Close ends the feed (Next returns ErrFeedClosed); the last feed's Close
// stops the process's watch and waits for it. Closing twice does nothing.
func (f *ChangeFeed) Close() {
	f.once.Do(func() {
		close(f.done)
		f.hub.leave(f, f.handle)
	})
}

// changeHub is a Paths' one watch and its feeds.
type changeHub struct {
	mu     sync.Mutex
	feeds  map[*ChangeFeed]struct{}
	cancel context.CancelFunc
	done   chan struct{} // closed when the watch's goroutine has ended
	// running is set while a watch runs: the ledger, opened meanwhile,
	// reads its counters as it opens (ledgerHandle.base), before anyone
	// reads anything else of it.
	running atomic.Bool
}

// WatchChanges is a new feed of the changes others make to the paths'
// ledger and config file from now on: the counters of an open ledger are
// read before it returns (and those of one opened later as it opens), so
// that whatever the caller reads after it is as new as what the feed
// compares with. Close the feed when done.
func (p Paths) WatchChanges() (*ChangeFeed, error) {
	if p.ledger == nil {
		return nil, errors.New("no ledger to watch: these paths were not made by config.PathsIn, DefaultPaths or PathsFromEnv")
	}
	h := &p.ledger.changes
	f := &ChangeFeed{hub: h, handle: p.ledger, ready: make(chan struct{}, 1), done: make(chan struct{})}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.feeds == nil {
		h.feeds = map[*ChangeFeed]struct{}{}
	}
	h.feeds[f] = struct{}{}
	if h.cancel == nil {
		h.running.Store(true)
		p.watched()                   // the counters now, if the ledger is open
		file := stampOf(p.ConfigFile) // and the config file now, not when run gets to it
		ctx, cancel := context.WithCancel(context.Background())
		h.cancel, h.done = cancel, make(chan struct{})
		go h.run(ctx, p, file, h.done)
	}
	return f, nil
}

// leave forgets f; the last to leave stops the watch and waits for it.
func (h *changeHub) leave(f *ChangeFeed, p *ledgerHandle) {
	h.mu.Lock()
	delete(h.feeds, f)
	if len(h.feeds) > 0 || h.cancel == nil {
		h.mu.Unlock()
		return
	}
	cancel, done := h.cancel, h.done
	h.cancel, h.done = nil, nil
	h.running.Store(false)
	h.mu.Unlock()
	cancel()
	<-done
	p.mu.Lock()
	p.base = nil // the next watch reads them afresh
	p.mu.Unlock()
}

// tell tells every feed of c.
func (h *changeHub) tell(c Changes) {
	if !c.Any() {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for f := range h.feeds {
		f.tell(c)
	}
}

// configLook is how often the watch looks at the config file (a stat).
const configLook = time.Second

// run is the watch: the ledger's counters as they move from those read
// when it was opened or the watch began (the watch never opens or makes a
// ledger: it looks at each look of the file whether the process has), and
// the config file at each look (against file, its stamp as the watch
// began), until ctx ends.
func (h *changeHub) run(ctx context.Context, p Paths, file fileStamp, done chan struct{}) {
	defer close(done)
	var counters <-chan ledger.Counters
	defer func() {
		if counters == nil {
			return
		}
		for range counters { // the ledger's watch has ended when it closes
		}
	}()
	var last ledger.Counters
	tick := time.NewTicker(configLook)
	defer tick.Stop()
	for {
		if counters == nil {
			if l, base := p.watched(); l != nil && base != nil {
				last, counters = *base, l.WatchCounters(ctx)
			}
		}
		select {
		case <-ctx.Done():
			return
		case c, ok := <-counters:
			if !ok {
				counters = nil
				continue
			}
			h.tell(changesBetween(c, last))
			last = c
		case <-tick.C:
			if now := stampOf(p.ConfigFile); !now.same(file) {
				file = now
				h.tell(Changes{Rules: true})
			}
		}
	}
}

// fileStamp is a file as a stat saw it.
type fileStamp struct {
	info os.FileInfo // nil: no file
	mod  time.Time
	size int64
}

func stampOf(name string) fileStamp {
	if name == "" {
		return fileStamp{}
	}
	fi, err := os.Stat(name)
	if err != nil {
		return fileStamp{}
	}
	return fileStamp{info: fi, mod: fi.ModTime(), size: fi.Size()}
}

func (a fileStamp) same(b fileStamp) bool {
	if a.info == nil || b.info == nil {
		return a.info == nil && b.info == nil
	}
	return os.SameFile(a.info, b.info) && a.mod.Equal(b.mod) && a.size == b.size
}

// watched is the paths' ledger if the process has opened it (else nil),
// and its counters as a watch compares with: read when it was opened
// while a watch ran, or now (nil if they do not read).
func (p Paths) watched() (*ledger.Ledger, *ledger.Counters) {
	h := p.ledger
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.l != nil && h.base == nil {
		h.readBase()
	}
	return h.l, h.base
}

// readBase reads the open ledger's counters for a watch (h.mu held).
func (h *ledgerHandle) readBase() {
	if c, err := h.l.ReadCounters(context.Background()); err == nil {
		h.base = &c
	}
}
