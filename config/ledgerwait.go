package config

import (
	"context"

	"github.com/smsdesk/smsdesk/config/ledger"
)

// Waits on the ledger (docs/ARCHITECTURE.md): a write that meets another
// writer waits for it, under the record bound, and says what it waits for
// to the notice its context carries.

// LedgerWait is a write of the ledger that waits for another writer: what
// is being done, what it waits for, how long so far, and when it is over.
type LedgerWait = ledger.Wait

// The bounds of a wait on the ledger (ledger.RecordWait, ledger.LookWait).
const (
	RecordWait = ledger.RecordWait
	LookWait   = ledger.LookWait
)

// WithLedgerWaits is ctx carrying notice: every write of the ledger made
// with it (or with a context made from it) tells notice when it has waited
// about a second for another writer, again every few seconds while it
// waits, and once more when the wait is over. notice may be called from
// another goroutine than the write's and must not block.
func WithLedgerWaits(ctx context.Context, notice func(LedgerWait)) context.Context {
	return ledger.WithWaitNotice(ctx, notice)
}

// LedgerWaitNotice is the notice ctx carries (WithLedgerWaits), nil when
// none.
func LedgerWaitNotice(ctx context.Context) func(LedgerWait) {
	return ledger.WaitNoticeOf(ctx)
}
