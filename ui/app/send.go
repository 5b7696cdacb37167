package app

import (
	"errors"
	"sync"

	"github.com/smsdesk/smsdesk/client/dispatch"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// The send engine's events and summary, as the faces read them: a face talks
// to this layer, never to the engine.
type (
	// Event is one step of a running send (see dispatch.Event).
	Event = dispatch.Event
	// Summary is a run's outcome counted over every item of the send.
	Summary = dispatch.Summary
	// StopCause names a refusal that will repeat, which stopped a send.
	StopCause = dispatch.StopCause
)

// Event kinds and stop causes (see package dispatch).
const (
	EventItem        = dispatch.EventItem
	EventWait        = dispatch.EventWait
	EventSent        = dispatch.EventSent
	EventDelivery    = dispatch.EventDelivery
	EventDeliveryOff = dispatch.EventDeliveryOff

	StopCredit      = dispatch.StopCredit
	StopKey         = dispatch.StopKey
	StopSender      = dispatch.StopSender
	StopAccount     = dispatch.StopAccount
	StopUnreachable = dispatch.StopUnreachable
	StopUnknown     = dispatch.StopUnknown
	StopQuiet       = dispatch.StopQuiet
	StopLedger      = dispatch.StopLedger
)

// RequestTimeout bounds one chunk's request, which stopping a send does not
// cut short: a face that stops waits at most this long for the chunk in
// flight to be answered and journaled.
const RequestTimeout = dispatch.DefaultInFlightTimeout

// ErrNotSignedIn: a send needs a client, and the session has none yet.
var ErrNotSignedIn = errors.New("not signed in: sign in first (smsdesk login, or the console's setup screen)")

// SendOptions tune one run of a send (a pending send's Start, a resume's).
type SendOptions struct {
	// ChunkSize is items per request; 0 takes the send's own (a resume's
	// journaled size, a pending send's request), else the profile's.
	ChunkSize int
	// PollDelivery polls accepted messages' delivery states after sending.
	PollDelivery bool
}

// Send is one run of a journaled send: a new send or a resume. Its events
// stream while it runs; Finish waits for it and reads its outcome back from
// the journal, as history will show it.
type Send struct {
	run     *dispatch.Run
	chunk   int // items per request, as the run was started with (0: the engine's default)
	journal *config.JournalFile
	source  string
	// start says how this run began, for the server's log: StartNew,
	// StartResume, StartScheduled, StartContinued, StartTakenOver; runner
	// names the runner that began it ("" for an operator).
	start, runner string
	once          sync.Once
	err           error
	ended         chan struct{} // closed once the run is over and its journal closed (track)
}

func (s *Session) runOptions(o SendOptions, chunk int, j *config.JournalFile) dispatch.Options {
	if j != nil {
		// The messages this run has accepted are first polled for
		// delivery_poll_after after (the ledger writes their next poll).
		j.SetDeliveryPollAfter(s.Profile.PollAfter)
	}
	return dispatch.Options{ChunkSize: chunk, Journal: j, PollDelivery: o.PollDelivery,
		RetryFor: s.Profile.RetryFor, Now: s.Now, Sleep: s.Sleep, LeaveOut: s.leaveOutOptedOut}
}

// ID is the send's id (a resume keeps it).
func (x *Send) ID() string { return x.run.Job().ID }

// ChunkSize is how many items this run puts in one request: the send's own
// for a resume (a send begun one at a time goes on one at a time), else the
// option's or the profile's.
func (x *Send) ChunkSize() int {
	if x.chunk <= 0 {
		return dispatch.DefaultChunkSize
	}
	return x.chunk
}

// Sender is the send's sender line.
func (x *Send) Sender() string { return x.run.Job().Sender }

// Source names where the send's rows came from (as journaled).
func (x *Send) Source() string { return x.source }

// Items are every item of the send, in plan order.
func (x *Send) Items() []model.JournalItem { return x.run.Job().Items }

// ToSend are the plan indexes this run sends (all of a new send; what was
// left of a resumed one).
func (x *Send) ToSend() []int { return x.run.Job().ToSend() }

// How a run began (Send.Start).
const (
	StartNew       = "new"        // a new send, started by an operator
	StartResume    = "resume"     // an operator's resume of an earlier send
	StartScheduled = "scheduled"  // a runner's start of a scheduled send at its time
	StartContinued = "continued"  // a runner's going on with a send held at quiet hours
	StartTakenOver = "taken_over" // a runner's going on with a send whose runner stopped mid-send
)

// Start says how this run began: StartNew, StartResume, StartScheduled,
// StartContinued or StartTakenOver. A runner's start of a scheduled send replays its journal
// as a resume does, but is no resume.
func (x *Send) Start() string { return x.start }

// IsResume reports whether this run continues an earlier send.
func (x *Send) IsResume() bool { return x.run.Job().IsResume() }

// Events streams the run's steps; the channel closes when the run (and its
// delivery polling) is over.
func (x *Send) Events() <-chan Event { return x.run.Events() }

// Done is closed when the run is over and its journal closed: its lease
// let go, so that it may be resumed at once, from here or elsewhere.
func (x *Send) Done() <-chan struct{} {
	if x.ended == nil { // not started through a session
		return x.run.Done()
	}
	return x.ended
}

// Results are every item's state now, in plan order.
func (x *Send) Results() []model.SentItem { return x.run.Results() }

// Wait waits for the run to end and returns its own summary.
func (x *Send) Wait() (Summary, error) { return x.run.Wait() }

// Close closes the send's journal (once; later calls return the first
// answer). Call it when the run is over, or to let a resume take the lock.
func (x *Send) Close() error {
	x.once.Do(func() { x.err = x.journal.Close() })
	return x.err
}

// Outcome is a finished run as its journal tells it.
type Outcome struct {
	Summary Summary
	Results []model.SentItem // in plan order
	// ReadBack is why the journal could not be read back (the results are
	// then the run's own); nil when they come from the journal.
	ReadBack error
}

// Finish waits for the run, closes the journal and reads the send back from
// it: after a failed write (a full disk) the run's own view may claim more
// than the journal can vouch for. runErr is the run's own error.
func (x *Send) Finish() (o Outcome, runErr error) {
	o.Summary, runErr = x.run.Wait()
	o.Results = x.run.Results()
	_ = x.Close()
	st, err := x.journal.ReadBack()
	if err != nil {
		o.ReadBack = err
		return o, runErr
	}
	o.Results, o.Summary.Counts = st.Items, st.Counts()
	return o, runErr
}

// OutcomeOf is a send as its journal tells it (a resume with nothing left).
func OutcomeOf(st *model.JournalState) Outcome {
	return Outcome{Results: st.Items, Summary: Summary{JobID: st.Plan.ID, Counts: st.Counts(), Interrupted: st.Interrupted,
		Stopped: st.Stopped, Cause: StopCause(st.StopCause)}}
}
