package app

import (
	"context"
	"sync"

	"github.com/smsdesk/smsdesk/client/dispatch"
	"github.com/smsdesk/smsdesk/config"
)

// Waits on the ledger, as the faces see them. A write that meets another
// writer waits (up to config.RecordWait for what a send depends on) and,
// after about a second, says what it waits for: to the notice the flow's
// context carries (WithLedgerWaits) before a send runs and in flows that
// are not sends (an import, a runner's look), and as the run's
// EventLedgerWait events while a send runs. A face shows it (the CLI's
// progress line, the console's results line); a runner logs it.

// LedgerWait is a write of the ledger that waits for another writer.
type LedgerWait = config.LedgerWait

// EventLedgerWait: a write of the running send's journal waits for the
// ledger. Event.Reason says what for (LedgerWait.String); Event.Over says
// the wait has ended.
const EventLedgerWait = dispatch.EventJournalWait

// WithLedgerWaits is ctx carrying notice, which a flow started with it
// tells of its waits on the ledger (see LedgerWait): a send's until it
// runs (then they are its EventLedgerWait events), an import's, a runner's.
// notice may be called from another goroutine and must not block.
func WithLedgerWaits(ctx context.Context, notice func(LedgerWait)) context.Context {
	return config.WithLedgerWaits(ctx, notice)
}

// waitRelay passes one send's waits on the ledger on: to the notice of
// the context it was made from until the send's run has started, to the
// run's events while it runs, and to that notice again once it is over
// (its journal's close).
type waitRelay struct {
	mu    sync.Mutex
	run   *dispatch.Run
	outer func(LedgerWait)
}

// relayWaits is ctx with a relay of the send's waits (see waitRelay):
// the context to open the send's journal with.
func relayWaits(ctx context.Context) (context.Context, *waitRelay) {
	r := &waitRelay{outer: config.LedgerWaitNotice(ctx)}
	return config.WithLedgerWaits(ctx, r.notice), r
}

func (r *waitRelay) notice(w LedgerWait) {
	r.mu.Lock()
	run, outer := r.run, r.outer
	r.mu.Unlock()
	if run != nil {
		select {
		case <-run.Done():
		default:
			run.TellJournalWait(w.String(), w.Waited, w.Over)
			return
		}
	}
	if outer != nil {
		outer(w)
	}
}

// running hands the relay the send's run: its waits are its events now.
func (r *waitRelay) running(run *dispatch.Run) {
	r.mu.Lock()
	r.run = run
	r.mu.Unlock()
}

// ledgerWaits is ctx telling the runner's Report of its waits on the
// ledger (RunnerLedgerWait): its looks, claims and starts, and the records
// of the sends it runs, whose journals keep the context they were claimed
// with.
func (r *Runner) ledgerWaits(ctx context.Context) context.Context {
	return WithLedgerWaits(ctx, func(w LedgerWait) {
		if !w.Over {
			r.report(RunnerEvent{Kind: RunnerLedgerWait, Reason: w.String()})
		}
	})
}
