package console

import (
	"context"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/smsdesk/smsdesk/client/dispatch"
	"github.com/smsdesk/smsdesk/config"
)

// startSend hands a confirmed plan to the send engine and shows its results.
// The send has its own context: cancelling it stops before the next chunk.
func (m *root) startSend(msg startSendMsg) tea.Cmd {
	if m.results.running() {
		return cmdOf(statusMsg{Err: fmt.Errorf("a send is already running; wait for it or cancel it (esc on the results screen)")})
	}
	if m.c.client == nil {
		return cmdOf(statusMsg{Err: fmt.Errorf("not signed in: finish the setup screen first")})
	}
	plan := msg.Plan
	items := make([]dispatch.Item, len(plan.Items))
	for i, it := range plan.Items {
		items[i] = dispatch.Item{Index: it.Index, Recipient: it.Recipient, Message: it.Message, Parts: it.Parts.Parts, Line: it.Line}
	}
	job := dispatch.NewJob(dispatch.NewID(m.c.now()), plan.Sender, items)
	opts := dispatch.Options{ChunkSize: m.c.profile.ChunkSize, Profile: m.c.profile.Name, Source: msg.Source, PollDelivery: true}
	var journal *config.JournalFile
	if paths := m.c.opts.Paths; paths != nil {
		j, err := config.CreateJournal(*paths, job.ID)
		if err != nil {
			return cmdOf(statusMsg{Err: fmt.Errorf("nothing sent: %w", err)})
		}
		journal, opts.Journal = j, j
	}
	ctx, cancel := context.WithCancel(m.c.ctx)
	run, err := dispatch.Start(ctx, m.c.client, job, opts)
	if err != nil {
		cancel()
		if journal != nil {
			_ = journal.Close()
		}
		return cmdOf(statusMsg{Err: fmt.Errorf("nothing sent: %w", err)})
	}
	m.history.remember(run, msg.Source)
	cmd := m.results.start(run, cancel, journal, msg.Source)
	return tea.Batch(cmd, m.switchTo(screenResults))
}
