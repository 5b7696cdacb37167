package app

import (
	"context"

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
