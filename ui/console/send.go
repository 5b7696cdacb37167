package console

import (
	"context"
	"errors"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/ui/app"
)

// startSend hands a confirmed plan to the application layer (journal, then
// the send engine) and shows its results.
func (m *root) startSend(msg startSendMsg) tea.Cmd {
	if err := m.canSend(); err != nil {
		return cmdOf(statusMsg{Err: err})
	}
	pending := msg.Pending
	cmd, _ := m.launch(pending.Source.Name, func(ctx context.Context) (*app.Send, error) {
		return pending.Start(ctx, app.SendOptions{PollDelivery: true})
	})
	return cmd
}

// canSend says why no send can start now, or nil.
func (m *root) canSend() error {
	if m.results.running() {
		return errors.New("a send is already running; wait for it or cancel it (esc on the results screen)")
	}
	if m.c.client() == nil {
		return errors.New("not signed in: finish the setup screen first")
	}
	return nil
}

// launch starts a send (a new one or a resume: start makes it, journaled)
// under its own context, and shows its live results. Cancelling the
// context stops it before the next chunk. It reports whether it started.
func (m *root) launch(source string, start func(context.Context) (*app.Send, error)) (tea.Cmd, bool) {
	ctx, work := m.c.startWork(workSend, source)
	cancel := func() { m.c.work.stop(work, nil) }
	run, err := start(ctx)
	if err != nil {
		m.c.work.end(work)
		var r *app.Refusal
		if errors.As(err, &r) {
			return cmdOf(statusMsg{Err: r}), false
		}
		return cmdOf(statusMsg{Err: fmt.Errorf("nothing sent: %w", err)}), false
	}
	m.c.work.rename(work, run.ID()+" ("+source+")")
	cmd := m.results.start(run, work, cancel, source)
	return tea.Batch(cmd, m.switchTo(screenResults)), true
}
