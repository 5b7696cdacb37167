package console

// A send being started may wait for the ledger: another smsdesk's long
// write holds it (an import, a psql session left in a transaction), and
// the start's writes wait up to the record bound (issue 39 §2). The CLI's
// progress line said what it waited for; the console said nothing but its
// spinner. Its waits are relayed here to the status bar, the latest one,
// until the send has started (then they are the run's events, which the
// results screen shows).

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/ui/app"
)

// startWaitMsg is a wait of the send being started (work), and the Cmd
// that listens on.
type startWaitMsg struct {
	work int
	wait app.LedgerWait
	next tea.Cmd
}

// startWaits is ctx telling its waits on the ledger to the Cmd it returns,
// which relays them one message each (the latest: a wait is told again
// every few seconds) until done is closed (the start has returned) or ctx
// ends.
func startWaits(ctx context.Context, work int, done <-chan struct{}) (context.Context, tea.Cmd) {
	ch := make(chan app.LedgerWait, 1)
	ctx = app.WithLedgerWaits(ctx, func(w app.LedgerWait) { // never blocks: an older one not yet shown gives way
		for {
			select {
			case ch <- w:
				return
			default:
			}
			select {
			case <-ch:
			default:
			}
		}
	})
	var next tea.Cmd
	next = func() tea.Msg {
		select {
		case w := <-ch:
			return startWaitMsg{work: work, wait: w, next: next}
		case <-done:
			return nil
		case <-ctx.Done(): // the start stopped, or the console ended (its Cmd may never run)
			return nil
		}
	}
	return ctx, next
}

// startWaited shows a starting send's wait on the status bar (and in the
// message log), while that send is still the one starting.
func (m *root) startWaited(msg startWaitMsg) tea.Cmd {
	if m.starting != msg.work {
		return nil
	}
	m.note = msg.wait.String()
	m.logNote(m.note)
	return msg.next
}
