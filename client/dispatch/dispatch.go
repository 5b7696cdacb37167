// Package dispatch is smsdesk's send engine: it sends a paired-send job in
// chunks through the typed client, records every step in a journal, and streams
// one event per recipient state change to whoever shows progress (the console's
// results view, the CLI's progress line).
//
// Safety rules it keeps:
//
//   - an intent record is written and synced to the journal BEFORE each request,
//     once the rate budget has granted it (client.TrackAttempts), and the
//     outcome after it, so a killed process leaves at worst one chunk unknown,
//     and a chunk still waiting for its turn not sent;
//   - a request whose bytes may have reached the service (timeout, reset, 5xx) is
//     never sent again automatically: its items become unknown;
//   - a request the service certainly did not take (429, connection refused) goes
//     again with the same idempotency key, after waiting as told;
//   - a 413 or a too-many-items 422 halves the chunk size and sends the same
//     items again in smaller chunks (nothing was taken);
//   - cancelling the context stops before the next chunk; the chunk in flight is
//     finished (its request is not cancelled) and recorded.
//
// Typical use:
//
//	job := dispatch.NewJob(dispatch.NewID(time.Now()), sender, items)
//	run, err := dispatch.Start(ctx, apiClient, job, dispatch.Options{Journal: j})
//	for ev := range run.Events() { ... }   // read until closed
//	sum, err := run.Wait()
package dispatch

import (
	"context"
	"time"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/model"
)

// Client is what the engine needs from the service. *client.Client satisfies
// it; tests may wrap one.
type Client interface {
	// SendPair posts one chunk. See client.Client.SendPair for the error
	// contract (client.ErrOutcomeUnknown, client.ErrNotSent, *client.APIError).
	// It calls the client.Attempts its context carries (client.TrackAttempts)
	// for each attempt: the engine writes the chunk's intent in Before.
	SendPair(ctx context.Context, req client.SendPairRequest) (client.SendPairResult, error)
	// MessageStatus polls one accepted message's delivery state.
	MessageStatus(ctx context.Context, messageID string) (client.DeliveryStatus, error)
	// RateStatus reports the request budget; Limit sizes delivery polling.
	RateStatus() client.RateStatus
}

// Journal is where the engine records a send. config's journal file satisfies
// it. Append writes one record as one line; Sync makes everything appended so
// far durable (the engine calls it after each intent, before the request).
type Journal interface {
	Append(rec model.JournalRecord) error
	Sync() error
}

// EventKind says what an Event reports.
type EventKind int

// Event kinds. A run emits EventItem and EventWait while sending, then one
// EventSent with the summary, then EventDelivery while polling delivery (when
// enabled); the channel is closed when the run is over.
const (
	// EventItem: Result holds an item's new state.
	EventItem EventKind = iota
	// EventWait: the engine waits Wait before sending a chunk again (Reason says
	// why, e.g. "rate limited (429)").
	EventWait
	// EventSent: sending is over (done or cancelled); Summary is set.
	EventSent
	// EventDelivery: Result holds an accepted item's new delivery state.
	EventDelivery
	// EventDeliveryOff: the service has no delivery-status endpoint; polling stopped.
	EventDeliveryOff
	// EventJournalWait: a write of the run's journal waits for its store
	// (another process holds the ledger): Reason says what it waits for,
	// Wait how long it has so far; Over when that wait has ended (the
	// write went on, or failed: a failure stops the run as always). Told
	// by the journal's owner (TellJournalWait), not by the engine.
	EventJournalWait
)

// String names the kind for logs.
func (k EventKind) String() string {
	switch k {
	case EventItem:
		return "item"
	case EventWait:
		return "wait"
	case EventSent:
		return "sent"
	case EventDelivery:
		return "delivery"
	case EventDeliveryOff:
		return "delivery-off"
	case EventJournalWait:
		return "journal-wait"
	}
	return "unknown"
}

// Event is one step of a run, tagged with the job's id so that late events
// cannot land in the wrong view.
type Event struct {
	JobID   string
	Kind    EventKind
	Result  model.SentItem // EventItem, EventDelivery
	Wait    time.Duration  // EventWait
	Reason  string         // EventWait, EventJournalWait
	Over    bool           // EventJournalWait: the wait has ended
	Done    int            // items with a verdict so far (of Total)
	Total   int            // items in the job
	Summary *Summary       // EventSent
}

// Summary is a run's outcome, counted over every item of the job (including,
// for a resume, items settled by earlier runs).
type Summary struct {
	JobID       string
	Counts      model.StateCounts
	Interrupted bool // cancelled or stopped before every item was attempted
	// Stopped is the refusal that stopped the run before its next chunk (the
	// key refused, no credit, sender line not allowed) and its cause.
	Stopped string
	Cause   StopCause
	// HeldUntil is when a run held at quiet hours (Cause StopQuiet) may go on.
	HeldUntil time.Time
	Err       error         // why the run stopped early other than by cancel (journal failure)
	Elapsed   time.Duration // time spent sending
}

// Options tunes a run. The zero value is usable (no journal, no polling).
type Options struct {
	// ChunkSize is the number of items per request (default 100). It halves on
	// a 413 or too-many-items answer.
	ChunkSize int
	// Journal records the send; nil records nothing (demo mode).
	Journal Journal
	// Plan is a new job's first record as the caller built it: the
	// profile, source, service, account, operator, the rules it was sent
	// under, a scheduled send's time (see Schedule). The engine writes it
	// as given, filling in only what it alone knows: ID, Sender and Items
	// from the job, ChunkSize as it chunks, Time (when zero) now. Nil: a
	// plan of only those. Only for a new job (NewJob).
	Plan *model.JournalPlan
	// Resume is a resumed job's first record (ResumeJob) as the caller
	// built it: the operator, the runner that started it with no operator
	// at hand, whether it goes on through quiet hours. The engine writes
	// it as given, filling in Indexes, IncludeUnknown and OptedOut from the
	// job and Time (when zero) now. Nil: a record of only those. Only for
	// a resumed job.
	Resume *model.JournalResume
	// Hold is asked before each chunk, the first included: when it says
	// so (quiet hours have begun), no further chunk starts. The chunk in
	// flight has finished and is journaled; the rest stays not sent and
	// the run ends stopped with StopQuiet, reason and until in its end
	// record (until: when it may go on). Nil: never.
	Hold func(now time.Time) (reason string, until time.Time, held bool)
	// LeaveOut is asked before each new chunk's intent, with the chunk's
	// line and items: the plan indexes of those whose recipients are on the opt-out
	// list now (a reply «۱۱» filed while the send runs). They are journaled
	// as opted out (model.JournalOptedOut), never sent; the rest of the
	// chunk goes. An error stops the run before the chunk (StopLedger: the
	// rest stays not sent, resumable). It is a read, outside any lock the
	// run holds. Nil: never asked (the plan's marks stand).
	LeaveOut func(ctx context.Context, sender string, items []model.JournalItem) ([]int, error)
	// HoldFrom is when Hold will next say so, seen from now (zero: never):
	// a chunk's request is not written from then on (client.SendBy), so a
	// chunk that waited for the rate budget past it is held too.
	HoldFrom func(now time.Time) time.Time
	// InFlightTimeout bounds a chunk's request, which cancelling the run does
	// not cut short (default 2 minutes).
	InFlightTimeout time.Duration
	// RetryDeadline bounds how long one chunk the service certainly did not take
	// (429, connection refused) keeps being sent again; past it, its items are
	// failed (default 10 minutes).
	RetryDeadline time.Duration
	// RetryFor bounds how long a chunk the service provably did not get
	// (connection refused) is tried again, counted from the first failure
	// of a stretch of trouble (a chunk that gets through starts it afresh);
	// past it the chunk and the rest are "not sent" and the run stops
	// (default 30 s, the profile's retry_for). 429 waits are bounded by
	// RetryDeadline instead: the service is up and says when.
	RetryFor time.Duration
	// PauseAfterUnknown stops the run after that many chunks in a row whose
	// every item ended unknown (default 2; negative: never).
	PauseAfterUnknown int
	// RetryWait is the first wait before sending such a chunk again when the
	// service gave no Retry-After; it doubles up to 30 s (default 1 s).
	RetryWait time.Duration
	// PollDelivery polls the delivery state of accepted messages after sending.
	PollDelivery bool
	// Poll tunes delivery polling.
	Poll PollOptions
	// Now and Sleep replace the clock in tests.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
}

// Defaults used when Options leaves a field zero.
const (
	DefaultChunkSize         = 100
	DefaultInFlightTimeout   = 2 * time.Minute
	DefaultRetryDeadline     = 10 * time.Minute
	DefaultRetryWait         = time.Second
	DefaultRetryFor          = 30 * time.Second
	DefaultPauseAfterUnknown = 2
	maxRetryWait             = 30 * time.Second
)

func (o Options) withDefaults() Options {
	if o.ChunkSize <= 0 {
		o.ChunkSize = DefaultChunkSize
	}
	if o.InFlightTimeout <= 0 {
		o.InFlightTimeout = DefaultInFlightTimeout
	}
	if o.RetryDeadline <= 0 {
		o.RetryDeadline = DefaultRetryDeadline
	}
	if o.RetryWait <= 0 {
		o.RetryWait = DefaultRetryWait
	}
	if o.PauseAfterUnknown == 0 {
		o.PauseAfterUnknown = DefaultPauseAfterUnknown
	}
	if o.RetryFor <= 0 {
		o.RetryFor = DefaultRetryFor
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Sleep == nil {
		o.Sleep = client.SleepContext
	}
	o.Poll.Now, o.Poll.Sleep = o.Now, o.Sleep
	return o
}
