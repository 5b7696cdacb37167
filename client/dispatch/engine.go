package dispatch

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/model"
)

// Run is one run of a job, started by Start.
type Run struct {
	job  *Job
	c    Client
	opts Options
	q    *eventQueue
	done chan struct{}

	// Buffers reused from chunk to chunk (only the sending goroutine uses them).
	sendingBuf []model.JournalResult
	evBuf      []Event

	mu      sync.Mutex
	results []model.SentItem // in job item order
	pos     positions        // plan index → position in results
	settled int              // items with a verdict
	stopped string           // why the run stops before the next chunk (a refusal that will repeat)
	cause   StopCause
	held    time.Time // when a run held at quiet hours may go on
	trouble time.Time // when the current stretch of unreachable-service retries began
	unknown int       // chunks in a row that ended with every item unknown
	summary Summary
}

// Start records the job in the journal (its plan, or a resume record) and
// starts sending in the background. An error means nothing was sent. Cancel ctx
// to stop before the next chunk. Read Events until it is closed, or call Wait.
func Start(ctx context.Context, c Client, job *Job, opts Options) (*Run, error) {
	pos, err := job.check()
	if err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	r := &Run{job: job, c: c, opts: opts, done: make(chan struct{}), pos: pos}
	r.results = make([]model.SentItem, len(job.Items))
	for i, it := range job.Items {
		res, ok := job.prior[it.Index]
		if !ok {
			res = model.SentItem{JournalItem: it, State: model.StateQueued}
			if it.OptedOut {
				res.State = model.StateOptedOut
			}
		}
		r.results[i] = res
	}
	for _, i := range job.optedOut {
		// As the journal replays the resume record: an item whose outcome
		// is unknown (it may have gone) stays so, and is not sent again.
		if p, _ := r.pos.get(i); r.results[p].State.CertainlyNotTaken() {
			r.results[p].State = model.StateOptedOut
		}
	}
	for _, i := range job.ToSend() { // this run will settle these again
		p, _ := r.pos.get(i) // check made sure it is there
		r.results[p].State = model.StateQueued
	}
	for _, res := range r.results {
		if res.State.Final() {
			r.settled++
		}
	}
	first, err := job.firstRecord(opts.Now(), opts)
	if err != nil {
		return nil, err
	}
	if err := r.record(first, true); err != nil {
		return nil, err
	}
	r.q = newEventQueue()
	go r.run(ctx)
	return r, nil
}

// Schedule records a new job's plan in opts.Journal with its time
// (opts.Plan.ScheduledFor, which must be set) and syncs it; nothing is
// sent. A runner starts it then as a resume of the journal (ResumeJob,
// its opts.Resume naming the runner), which writes the resume record that
// is its first run.
func Schedule(job *Job, opts Options) error {
	if _, err := job.check(); err != nil {
		return err
	}
	if job.resume || opts.Plan == nil || opts.Plan.ScheduledFor.IsZero() {
		return fmt.Errorf("dispatch: job %s: only a new job with a time is scheduled", job.ID)
	}
	if opts.Journal == nil {
		return fmt.Errorf("dispatch: job %s: a scheduled send needs a journal", job.ID)
	}
	opts = opts.withDefaults()
	r := &Run{opts: opts}
	return r.record(job.planRecord(opts.Now(), opts), true)
}

// TellJournalWait puts an EventJournalWait in the run's events: a write of
// its journal waits for the journal's store (reason: what for; waited: how
// long so far; over: the wait has ended). The journal's owner tells it
// (config's ledger says so to whoever opened the journal); the engine
// never waits for the reader, and a run that is over drops it.
func (r *Run) TellJournalWait(reason string, waited time.Duration, over bool) {
	select {
	case <-r.done:
		return
	default:
	}
	r.q.push(Event{JobID: r.job.ID, Kind: EventJournalWait, Reason: reason, Wait: waited, Over: over, Total: len(r.job.Items)})
}

// Events streams the run's events; the channel closes when the run is over.
// The engine never waits for the reader.
func (r *Run) Events() <-chan Event { return r.q.out }

// Done is closed when the run is over (sending and any delivery polling).
func (r *Run) Done() <-chan struct{} { return r.done }

// Wait waits for the run to end and returns its summary; the error is the
// summary's Err (a journal failure that stopped the run).
func (r *Run) Wait() (Summary, error) {
	<-r.done
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.summary, r.summary.Err
}

// Job returns the run's job.
func (r *Run) Job() *Job { return r.job }

// Results returns a snapshot of every item's state, in plan order.
func (r *Run) Results() []model.SentItem {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]model.SentItem(nil), r.results...)
}

// record appends a journal record (and syncs it when sync is set).
func (r *Run) record(rec model.JournalRecord, sync bool) error {
	j := r.opts.Journal
	if j == nil {
		return nil
	}
	if err := j.Append(rec); err != nil {
		return fmt.Errorf("recording the send in its journal: %w", err)
	}
	if sync {
		if err := j.Sync(); err != nil {
			return fmt.Errorf("syncing the send's journal to disk: %w", err)
		}
	}
	return nil
}

func (r *Run) run(ctx context.Context) {
	defer close(r.done)
	defer r.q.close()
	start := r.opts.Now()
	interrupted, err := r.sendAll(ctx)
	end := &model.JournalEnd{Time: r.opts.Now(), Interrupted: interrupted, Stopped: r.stopped, StopCause: string(r.cause), HeldUntil: r.held}
	if err != nil {
		end.Error = err.Error()
	}
	if jerr := r.record(end, true); jerr != nil && err == nil {
		err = jerr
	}
	r.mu.Lock()
	r.summary = Summary{JobID: r.job.ID, Interrupted: interrupted, Stopped: r.stopped, Cause: r.cause, HeldUntil: r.held, Err: err, Elapsed: r.opts.Now().Sub(start)}
	for _, res := range r.results {
		r.summary.Counts.Add(res.State, res.Delivery)
	}
	sum, settled := r.summary, r.settled
	r.mu.Unlock()
	r.q.push(Event{JobID: r.job.ID, Kind: EventSent, Summary: &sum, Done: settled, Total: len(r.results)})
	if r.opts.PollDelivery && !interrupted && err == nil {
		r.pollDelivery(ctx)
		r.mu.Lock()
		r.summary.Counts = model.StateCounts{}
		for _, res := range r.results {
			r.summary.Counts.Add(res.State, res.Delivery)
		}
		r.mu.Unlock()
	}
}

// sendAll sends the job's items chunk by chunk. It reports whether it was
// interrupted (items left unsent) and any journal failure.
func (r *Run) sendAll(ctx context.Context) (interrupted bool, err error) {
	if stop, interrupted, err := r.sendAgain(ctx); stop || err != nil {
		return interrupted, err
	}
	pending := slices.Clone(r.job.send)
	size := r.opts.ChunkSize
	chunk := r.job.firstChunk
	for pos := 0; pos < len(pending); {
		if stop, interrupted := r.beforeChunk(ctx); stop {
			return interrupted, nil
		}
		end := min(pos+size, len(pending))
		kept, stop, err := r.leaveOut(ctx, pending[pos:end])
		switch {
		case err != nil:
			return false, err
		case stop:
			return true, nil
		case len(kept) < end-pos: // some left out: the chunk is made again of what is left
			pending = slices.Concat(pending[:pos], kept, pending[end:])
			continue
		}
		items := r.itemsAt(pending[pos:end])
		n := chunk
		chunk++
		kind, err := r.sendChunk(ctx, n, items, idempotencyKey(r.job.ID, n), false)
		switch {
		case err != nil:
			return false, err
		case kind == verdictSplit:
			size = max(1, len(items)/2)
		case kind == verdictRetry: // cancelled while waiting to send it again
			return true, nil
		case kind == verdictHeld: // quiet hours began while it waited: not written
			r.hold()
			return true, nil
		default:
			pos = end
			if r.stopped != "" && pos < len(pending) {
				return true, nil // the rest stays "not sent", resumable
			}
		}
	}
	return false, nil
}

// sendAgain sends the unknown chunks a resume sends again, each as it first
// went (Job.again), before the rest. It reports whether the run stops there
// (and whether that leaves items unsent) and any journal failure.
func (r *Run) sendAgain(ctx context.Context) (stop, interrupted bool, err error) {
	for k, u := range r.job.again {
		if stop, interrupted := r.beforeChunk(ctx); stop {
			return true, interrupted, nil
		}
		kind, err := r.sendChunk(ctx, u.Chunk, r.itemsAt(u.Indexes), u.Key, true)
		switch {
		case err != nil:
			return true, false, err
		case kind == verdictRetry: // cancelled while waiting to send it again
			return true, true, nil
		case r.stopped != "" && (k < len(r.job.again)-1 || len(r.job.send) > 0):
			return true, true, nil // the rest stays as it was, resumable
		}
	}
	return false, false, nil
}

// beforeChunk says whether the run stops before its next chunk: cancelled,
// or held at quiet hours (Options.Hold; the rest stays not sent, resumable).
func (r *Run) beforeChunk(ctx context.Context) (stop, interrupted bool) {
	if ctx.Err() != nil {
		return true, true
	}
	if r.opts.Hold != nil {
		if _, _, held := r.opts.Hold(r.opts.Now()); held {
			r.hold()
			return true, true
		}
	}
	return false, false
}

// hold stops the run at quiet hours: the rest stays "not sent", held
// until Hold says.
func (r *Run) hold() {
	reason, until := "quiet hours began", time.Time{}
	if r.opts.Hold != nil {
		if why, u, held := r.opts.Hold(r.opts.Now()); held {
			reason, until = why, u
		}
	}
	r.stopped, r.cause, r.held = reason, StopQuiet, until
}

func (r *Run) itemsAt(idx []int) []model.JournalItem {
	out := make([]model.JournalItem, len(idx))
	for i, ix := range idx {
		p, _ := r.pos.get(ix) // check made sure it is there
		out[i] = r.job.Items[p]
	}
	return out
}

// idempotencyKey is the chunk's Idempotency-Key: the same for every attempt.
func idempotencyKey(jobID string, chunk int) string {
	return fmt.Sprintf("smsdesk-%s-%d", jobID, chunk)
}

// sendChunk sends one chunk (number n, Idempotency-Key key) until it has a
// verdict: again after answers that certainly took nothing, waiting as told,
// within RetryDeadline. It returns verdictSplit when the items must go in
// smaller chunks, verdictRetry when ctx was cancelled while waiting to send
// again (the items stay queued). again marks an unknown chunk sent again as
// it first went: what this attempt certainly did not take stays unknown (the
// first try's fate is still not known), and it is never split.
//
// Each attempt's intent is written by the client's call (chunkAttempts),
// once the rate budget has granted it and before it can leave.
func (r *Run) sendChunk(ctx context.Context, n int, items []model.JournalItem, key string, again bool) (verdictKind, error) {
	a := r.newAttempts(n, items, key, again)
	deadline := r.opts.Now().Add(r.opts.RetryDeadline)
	wait := r.opts.RetryWait
	for {
		// The request in flight is not cancelled with the run: cutting it off
		// would turn a chunk the service may be processing into unknowns.
		sentAt := r.opts.Now()
		reqCtx, cancel := r.requestContext(ctx, sentAt)
		res, err := r.c.SendPair(client.TrackAttempts(reqCtx, a.hooks()),
			client.SendPairRequest{Sender: r.job.Sender, Items: a.pairs, IdempotencyKey: key})
		cancel()
		if a.err != nil {
			return verdictDone, a.err // a record that could not be written: nothing more goes
		}
		v := classify(items, res, err)
		if v.kind == verdictRetry {
			if v.retryAfter > 0 {
				wait = v.retryAfter
			}
			v = r.retryOrGiveUp(v, items, sentAt, wait, deadline)
		}
		v, err = a.end(v, err)
		if err != nil {
			return verdictDone, err
		}
		if v.stop != "" {
			r.stopped, r.cause = v.err, v.stop
		}
		if v.kind != verdictRetry {
			return v.kind, nil
		}
		if ctx.Err() != nil {
			return verdictRetry, nil // stopped: the chunk stays not sent, and no wait is announced for it
		}
		r.q.push(Event{JobID: r.job.ID, Kind: EventWait, Wait: wait, Reason: waitReason(v), Total: len(r.results)})
		if err := r.opts.Sleep(ctx, wait); err != nil {
			return verdictRetry, nil
		}
		if v.retryAfter <= 0 {
			wait = min(wait*2, maxRetryWait)
		}
	}
}

// requestContext is the context of one attempt of a chunk sent at sentAt.
func (r *Run) requestContext(ctx context.Context, sentAt time.Time) (context.Context, context.CancelFunc) {
	reqCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.opts.InFlightTimeout)
	// Until the request is written (the rate limiter's wait), a stop
	// still keeps the chunk from going: it is then provably not sent.
	reqCtx = client.StopBeforeSend(reqCtx, ctx)
	if r.opts.HoldFrom != nil {
		if by := r.opts.HoldFrom(sentAt); !by.IsZero() {
			reqCtx = client.SendBy(reqCtx, by)
		}
	}
	if !r.trouble.IsZero() {
		// Within a stretch of trouble the client retries only inside
		// what is left of RetryFor, not a whole budget of its own again.
		reqCtx = client.RetryUntil(reqCtx, r.trouble.Add(r.opts.RetryFor))
	}
	return reqCtx, cancel
}

// retryOrGiveUp decides whether a chunk certainly not taken goes again. A
// 429 is waited out within the chunk's RetryDeadline; a service that cannot
// be reached is tried within RetryFor from the first failure of the stretch,
// then the chunk is left "not sent" and the run stops: every further chunk
// would only wait out the same budget (600 pairs once took 68 minutes).
func (r *Run) retryOrGiveUp(v verdict, items []model.JournalItem, sentAt time.Time, wait time.Duration, deadline time.Time) verdict {
	next := r.opts.Now().Add(wait)
	if v.status == 429 {
		if next.Before(deadline) {
			return v
		}
		v.kind = verdictDone
		v.err = "not sent: the service kept answering 429 (" + v.err + "); resume the send to try again"
		return v.all(items, model.StateFailed)
	}
	if r.trouble.IsZero() {
		r.trouble = sentAt
	}
	if next.Sub(r.trouble) <= r.opts.RetryFor {
		return v
	}
	v.kind = verdictDone
	v.stop = StopUnreachable
	v.err = fmt.Sprintf("the service could not be reached for %s (%s)", r.opts.RetryFor.Round(time.Second), v.err)
	return v.all(items, model.StateQueued) // provably not sent: resumable
}

// countUnknown pauses the send after PauseAfterUnknown (two) chunks in a row whose every item
// ended unknown: the service may be failing after taking requests, and each
// further chunk would add recipients nobody can account for.
func (r *Run) countUnknown(v verdict, items []model.JournalItem) {
	if v.kind != verdictDone {
		return
	}
	r.trouble = time.Time{} // an answer came: the next trouble starts afresh
	all := len(v.results) > 0
	for _, res := range v.results {
		all = all && res.State == model.StateUnknown
	}
	if !all {
		r.unknown = 0
		return
	}
	if r.unknown++; r.opts.PauseAfterUnknown > 0 && r.unknown >= r.opts.PauseAfterUnknown && v.stop == "" {
		v.stop = StopUnknown
		r.stopped, r.cause = "two chunks in a row ended without a certain answer ("+v.err+")", StopUnknown
	}
}

func waitReason(v verdict) string {
	if v.status == 429 {
		return "rate limited (429)"
	}
	return "the service did not take the request; sending it again"
}

// setAll moves a chunk's items to a state (sending) and reports it.
func (r *Run) setAll(items []model.JournalItem, chunk int, st model.ItemState) {
	res := r.sendingBuf[:0]
	for _, it := range items {
		res = append(res, model.JournalResult{Index: it.Index, State: st})
	}
	r.sendingBuf = res
	r.apply(chunk, res, "")
}

// apply stores a chunk's results and emits one event per item.
func (r *Run) apply(chunk int, results []model.JournalResult, batchID string) {
	evs := r.evBuf[:0]
	r.mu.Lock()
	for _, jr := range results {
		p, ok := r.pos.get(jr.Index)
		if !ok {
			continue
		}
		res := &r.results[p]
		was := res.State.Final()
		res.State, res.MessageID, res.Code, res.Error = jr.State, jr.MessageID, jr.Code, jr.Error
		res.BatchID, res.Chunk = batchID, chunk
		if now := res.State.Final(); now != was {
			if now {
				r.settled++
			} else {
				r.settled--
			}
		}
		evs = append(evs, Event{JobID: r.job.ID, Kind: EventItem, Result: *res, Done: r.settled, Total: len(r.results)})
	}
	r.mu.Unlock()
	r.q.push(evs...)
	clear(evs) // the queue holds copies; drop the strings for the collector
	r.evBuf = evs[:0]
}
