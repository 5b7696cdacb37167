package dispatch

import (
	"errors"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/model"
)

// chunkAttempts journals the attempts of one chunk's request as the client
// makes them (client.TrackAttempts). An attempt's intent is written and
// synced once the rate budget has granted it, just before its request is
// written: a process that dies while the request waits for its turn (ten
// sends sharing the key's budget wait seconds) leaves the chunk certainly
// not sent, not unknown. An attempt the service certainly did not take (a
// 429, a request never written) is closed by its outcome before the client
// waits to make it again, for the same reason.
type chunkAttempts struct {
	r     *Run
	n     int // the chunk's number
	key   string
	again bool // an unknown chunk sent again as it first went
	items []model.JournalItem
	idx   []int
	pairs []model.Pair

	attempt int   // the next intent's attempt number
	open    bool  // an intent is written that no outcome closes yet
	err     error // a record that could not be written: the send stops
}

func (r *Run) newAttempts(n int, items []model.JournalItem, key string, again bool) *chunkAttempts {
	a := &chunkAttempts{r: r, n: n, key: key, again: again, items: items,
		idx: make([]int, len(items)), pairs: make([]model.Pair, len(items))}
	for i, it := range items {
		a.idx[i] = it.Index
		a.pairs[i] = model.Pair{Recipient: it.Recipient, Message: it.Message}
	}
	return a
}

// hooks are what the client calls for each attempt.
func (a *chunkAttempts) hooks() client.Attempts {
	return client.Attempts{Before: a.before, NotTaken: a.notTaken}
}

// before writes and syncs the attempt's intent; an error keeps the request
// from being written, and stops the send.
func (a *chunkAttempts) before() error {
	intent := &model.JournalIntent{Time: a.r.opts.Now(), Chunk: a.n, Indexes: a.idx, Key: a.key, Attempt: a.attempt}
	if err := a.r.record(intent, true); err != nil {
		a.err = err
		return err
	}
	a.attempt++
	a.open = true
	a.r.setAll(a.items, a.n, model.StateSending)
	return nil
}

// notTaken closes an attempt the service certainly did not take (err says
// why) before the client waits to make it again: its items are not sent
// (an unknown chunk sent again: still unknown) until the next intent.
func (a *chunkAttempts) notTaken(err error) error {
	v := classify(a.items, client.SendPairResult{}, err)
	v.kind = verdictRetry // the client makes it again
	if a.again {
		v = v.stillUnknown(a.items)
	}
	return a.close(v)
}

// end records v, the verdict on the call (err its error), and returns it as
// recorded. When no intent is open nothing went since the chunk's last
// record (none yet, or an attempt not taken): the call stopped while it
// waited (cancelled, held at quiet hours, out of time), and its items stay
// as the journal has them, not sent. A call that went without telling
// (a Client that ignores client.TrackAttempts) gets its intent now, late,
// so that its outcome is tied to it and never read as "not sent".
func (a *chunkAttempts) end(v verdict, err error) (verdict, error) {
	if !a.open && !errors.Is(err, client.ErrNotSent) {
		if err := a.before(); err != nil {
			return v, err
		}
	}
	if !a.open {
		v = v.all(a.items, model.StateQueued)
	}
	if a.again {
		v = v.stillUnknown(a.items)
	}
	a.r.countUnknown(v, a.items)
	if !a.open {
		a.r.apply(a.n, v.results, v.batchID)
		return v, nil
	}
	return v, a.close(v)
}

// close records the outcome v of the open intent and applies it.
//
// The outcome is appended without a sync of its own; the next intent's
// sync (or the end record's) makes it durable before anything else is
// sent. Why that keeps the safety rule:
//   - SIGKILL: written bytes live in the kernel's page cache and survive
//     the process, synced or not. Only the chunk in flight (intent, no
//     outcome) replays as unknown: at most one chunk (TestKilledSendResumes).
//   - OS crash or power loss: this outcome may be lost, and its chunk
//     replays as unknown — never as "not sent", so it is never resent
//     without the operator. If the crash lands while the next intent is
//     being synced, that next chunk (whose request was not sent yet) may
//     also replay as unknown: over-cautious, never a duplicate.
//
// A sync here would cost one more fsync per chunk (BENCHMARKS.md) to
// narrow only that crash case.
func (a *chunkAttempts) close(v verdict) error {
	a.open = false
	out := &model.JournalOutcome{Time: a.r.opts.Now(), Chunk: a.n, BatchID: v.batchID, Status: v.status,
		Code: v.code, Error: v.err, Retry: v.kind == verdictRetry, Split: v.kind == verdictSplit, Results: v.results}
	err := a.r.record(out, false)
	a.r.apply(a.n, v.results, v.batchID)
	if err != nil {
		a.err = err
	}
	return err
}
