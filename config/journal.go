package config

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/model"
)

// A send's journal is its records in the ledger (package ledger): the plan,
// then every intent, outcome, delivery, resume, end and cancel, written by
// the send engine (client/dispatch) and read back by history and resume.
// See model.JournalRecord for the records. A JournalFile is the writer of
// one send: it holds the send's lease (one run at a time writes a send) and
// writes each record in its own transaction, durable when Append returns.

// ErrJournalInUse is returned when another run holds a send's lease (it is
// sending or resuming that send right now).
var ErrJournalInUse = ledger.ErrInUse

// ErrNoSuchSend is returned for a send id the ledger does not hold.
var ErrNoSuchSend = ledger.ErrNoSuchSend

// leaseHolder names this process for a lease: what `smsdesk history`
// and an in-use error say holds a send.
func leaseHolder() string {
	name := "smsdesk"
	if len(os.Args) > 0 {
		name = filepath.Base(os.Args[0])
	}
	if len(os.Args) > 1 && !strings.HasPrefix(os.Args[1], "-") {
		name += " " + os.Args[1]
	}
	return model.SanitizeLine(name)
}

// JournalFile writes one send's records under its lease, renewed while it
// is open. It satisfies dispatch.Journal.
//
// It keeps the context of the run that opened it (CreateJournal,
// OpenJournal, ClaimDue) for its writes, rather than taking one per
// Append: dispatch.Journal's Append has none, and the records a send
// writes once its run is told to stop (the outcome of the chunk in
// flight, the end) must still be written: that rule is the journal's,
// in one place (writeContext), not each caller's.
type JournalFile struct {
	mu     sync.Mutex
	l      *ledger.Ledger
	id     string
	ctx    context.Context // the opening run's (writeContext)
	lease  *ledger.Lease
	closed bool
	stop   context.CancelFunc // ends the heartbeat (hold)
	done   chan struct{}      // closed when the heartbeat has ended
}

// newJournal is the writer of send id under lease, opened by a run whose
// context is ctx.
func newJournal(ctx context.Context, l *ledger.Ledger, id string, lease *ledger.Lease) *JournalFile {
	j := &JournalFile{l: l, id: id, ctx: ctx}
	j.hold(lease)
	return j
}

// writeContext is the context of one write of the journal: the opening
// run's values, without its cancellation (a record the stop itself
// causes is written).
func (j *JournalFile) writeContext() context.Context {
	return context.WithoutCancel(j.ctx)
}

// CreateJournal makes the writer of a new send, reserving its id (under
// its lease: a second run finds it in use): its first Append must be the
// plan. An id in use is refused.
func CreateJournal(ctx context.Context, p Paths, id string) (*JournalFile, error) {
	if err := ledger.CheckID(id); err != nil {
		return nil, err
	}
	l, err := p.Ledger(ctx)
	if err != nil {
		return nil, err
	}
	lease, err := l.ReserveSend(ctx, id, leaseHolder(), ledger.DefaultLeaseTTL)
	if err != nil {
		return nil, fmt.Errorf("creating send journal: %w", err)
	}
	return newJournal(ctx, l, id, lease), nil
}

// OpenJournal opens an existing send for appending (resume, delivery
// refresh), taking its lease: ErrJournalInUse while another run holds it.
func OpenJournal(ctx context.Context, p Paths, id string) (*JournalFile, error) {
	if err := ledger.CheckID(id); err != nil {
		return nil, err
	}
	l, err := p.Ledger(ctx)
	if err != nil {
		return nil, err
	}
	lease, err := l.Claim(ctx, id, leaseHolder(), ledger.DefaultLeaseTTL)
	if err != nil {
		return nil, err
	}
	return newJournal(ctx, l, id, lease), nil
}

// OpenJournalLocked opens send id for appending and replays it after its
// lease is taken: what a resume may send is decided from the records as
// they are now, not as they were when the operator was asked. A second
// process that waited at its prompt while the first finished finds
// nothing left.
func OpenJournalLocked(ctx context.Context, p Paths, id string) (*JournalFile, *model.JournalState, error) {
	j, err := OpenJournal(ctx, p, id)
	if err != nil {
		return nil, nil, err
	}
	st, err := j.l.ReadSend(ctx, id)
	if err != nil {
		_ = j.Close() // the error above is the one to report
		return nil, nil, err
	}
	return j, st, nil
}

// hold keeps lease, renewing it at a third of its time (the heartbeat)
// while its run may still write: until the run's end or cancel is
// written, a write fails, the journal is closed or discarded, or nothing
// holds the journal any more (a journal its owner dropped without Close
// can write nothing more: its lease then lapses within its time, where it
// was renewed for the life of the process).
func (j *JournalFile) hold(lease *ledger.Lease) {
	j.lease = lease
	c, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	j.stop, j.done = stop, done
	go heartbeat(c, lease, done) // holds the lease, never j
	runtime.AddCleanup(j, func(stop context.CancelFunc) { stop() }, stop)
}

// heartbeat renews lease at a third of its time until c ends or the lease
// is lost, and then closes done.
func heartbeat(c context.Context, lease *ledger.Lease, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(lease.TTL() / 3)
	defer t.Stop()
	for {
		select {
		case <-c.Done():
			return
		case <-t.C:
			if err := lease.Renew(c); errors.Is(err, ledger.ErrLeaseLost) {
				return // the next Append says so
			}
		}
	}
}

// Path names the send's journal for people: the ledger and the send.
func (j *JournalFile) Path() string { return j.l.Where() + " (send " + j.id + ")" }

// ID is the send's id.
func (j *JournalFile) ID() string { return j.id }

// Append writes one record, durable when it returns (its own transaction:
// a chunk's intent is on disk before its request leaves). A record that
// cannot be written is an error, and the send engine stops.
func (j *JournalFile) Append(rec model.JournalRecord) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return fmt.Errorf("send journal %s is closed", j.id)
	}
	if err := j.lease.Append(j.writeContext(), rec); err != nil {
		// A write that fails stops the send: nothing is to be kept
		// leased for it (its owner may never Close a journal it could
		// not write).
		j.stopRenewing()
		return fmt.Errorf("writing send journal %s: %w", j.id, err)
	}
	switch rec.(type) {
	case *model.JournalEnd, *model.JournalCancel:
		// The run is over: what follows (delivery polling) renews the
		// lease as it appends, and nothing renews a journal left open.
		j.stopRenewing()
	}
	return nil
}

// stopRenewing ends the lease's renewal (once).
func (j *JournalFile) stopRenewing() {
	if j.stop != nil {
		j.stop()
		<-j.done
		j.stop = nil
	}
}

// Sync does nothing more: every Append is durable when it returns. A
// closed journal is an error.
func (j *JournalFile) Sync() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return fmt.Errorf("send journal %s is closed", j.id)
	}
	return nil
}

// Close releases the send's lease (another run may take it at once).
func (j *JournalFile) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return nil
	}
	j.closed = true
	j.stopRenewing()
	return j.lease.Release(j.writeContext())
}

// ReadBack replays the send's records as the ledger holds them, open or
// closed: what a run that has ended wrote, read under the context of the
// run that opened the journal, without its end (a send read back after
// its run stopped).
func (j *JournalFile) ReadBack() (*model.JournalState, error) {
	return j.l.ReadSend(j.writeContext(), j.id)
}

// CloseScheduled closes the journal of a scheduled send (its plan
// written). The ledger dates the send its start time for the repeat check
// itself (its touched time counts the plan's ScheduledFor).
func (j *JournalFile) CloseScheduled(time.Time) error { return j.Close() }

// Discard closes and removes a send that never started (its plan could not
// be written whole, or the send could not start): nothing was sent.
func (j *JournalFile) Discard() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.closed = true
	j.stopRenewing()
	return j.lease.Discard(j.writeContext())
}

// ReadJournal replays send id's records.
func ReadJournal(ctx context.Context, p Paths, id string) (*model.JournalState, error) {
	if err := ledger.CheckID(id); err != nil {
		return nil, err
	}
	l, err := p.Ledger(ctx)
	if err != nil {
		return nil, err
	}
	return l.ReadSend(ctx, id)
}

// JournalInfo is one send in the history.
type JournalInfo struct {
	ID    string
	State *model.JournalState // nil when Err is set
	// Running is true while a run holds the send's lease (sending now).
	Running bool
	Err     error // the send could not be read
	// Summary is the send's row as the ledger keeps it.
	Summary ledger.Send
}

// ListJournals returns every send in the history, newest first, each
// replayed. History pages should use ListJournalsPage.
func ListJournals(ctx context.Context, p Paths) ([]JournalInfo, error) {
	return ListJournalsPage(ctx, p, ledger.SendQuery{})
}

// ListJournalsPage returns a page of the history, newest first: only the
// sends on the page are replayed (q.Limit 0: every send).
func ListJournalsPage(ctx context.Context, p Paths, q ledger.SendQuery) ([]JournalInfo, error) {
	l, err := p.Ledger(ctx)
	if err != nil {
		return nil, err
	}
	sends, err := l.ListSends(ctx, q)
	if err != nil {
		return nil, err
	}
	out := make([]JournalInfo, 0, len(sends))
	for _, s := range sends {
		info := JournalInfo{ID: s.ID, Running: s.Leased, Summary: s}
		info.State, info.Err = l.ReadSend(ctx, s.ID)
		out = append(out, info)
	}
	return out, nil
}

// CountJournals counts the sends q selects.
func CountJournals(ctx context.Context, p Paths, q ledger.SendQuery) (int, error) {
	l, err := p.Ledger(ctx)
	if err != nil {
		return 0, err
	}
	return l.CountSends(ctx, q)
}

// JournalInUse reports whether a run holds send id's lease.
func JournalInUse(ctx context.Context, p Paths, id string) bool {
	l, err := p.Ledger(ctx)
	if err != nil {
		return false
	}
	used, err := l.InUse(ctx, id)
	return err == nil && used
}
