package cli

import (
	"context"
	"sync"

	"github.com/smsdesk/smsdesk/ui/app"
)

// printLedgerWaits is ctx printing, where progress goes, what a write of
// the ledger made with it waits for once it has waited about a second
// (another smsdesk's start or write; issue 39 §2), and every few seconds
// while it waits: every command's context carries it (a send's start, an
// import's transaction, an audit record). A running send's waits come as
// its events instead (showProgress), a runner's as its reports.
func printLedgerWaits(ctx context.Context, ios *IOStreams) context.Context {
	var mu sync.Mutex // a PostgreSQL wait is told from a watching goroutine
	return app.WithLedgerWaits(ctx, func(w app.LedgerWait) {
		if w.Over {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		printf(ios.ProgressOut(), "%s\n", w)
	})
}
