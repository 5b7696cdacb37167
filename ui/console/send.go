package console

import (
	"errors"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/smsdesk/smsdesk/client/dispatch"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// startSend hands a confirmed plan to the send engine and shows its results.
func (m *root) startSend(msg startSendMsg) tea.Cmd {
	if err := m.canSend(); err != nil {
		return cmdOf(statusMsg{Err: err})
	}
	plan := msg.Plan
	items := make([]model.JournalItem, len(plan.Items))
	for i, it := range plan.Items {
		items[i] = model.JournalItem{Index: it.Index, Recipient: it.Recipient, Message: it.Message, Parts: it.Parts.Parts, Line: it.Line}
	}
	job := dispatch.NewJob(dispatch.NewID(m.c.now()), plan.Sender, items)
	opts := dispatch.Options{ChunkSize: m.c.profile.ChunkSize, Profile: m.c.profile.Name, Source: msg.Source, BaseURL: m.c.profile.BaseURL, PollDelivery: true}
	cmd, _ := m.launch(job, opts, msg.Source, func(p config.Paths) (*config.JournalFile, error) {
		return config.CreateJournal(p, job.ID)
	})
	return cmd
}

// canSend says why no send can start now, or nil.
func (m *root) canSend() error {
	if m.results.running() {
		return errors.New("a send is already running; wait for it or cancel it (esc on the results screen)")
	}
	if m.c.client == nil {
		return errors.New("not signed in: finish the setup screen first")
	}
	return nil
}

// launch starts job on the send engine, journaled (when the console has
// paths) to the journal openJournal opens, remembers it in history and shows
// its live results. The run has its own context: cancelling it stops before
// the next chunk. It reports whether the run started.
func (m *root) launch(job *dispatch.Job, opts dispatch.Options, source string,
	openJournal func(config.Paths) (*config.JournalFile, error)) (tea.Cmd, bool) {
	var journal *config.JournalFile
	if paths := m.c.opts.Paths; paths != nil {
		j, err := openJournal(*paths)
		if err != nil {
			return cmdOf(statusMsg{Err: fmt.Errorf("nothing sent: %w", err)}), false
		}
		journal, opts.Journal = j, j
	}
	ctx, work := m.c.startWork(workSend, job.ID+" ("+model.SanitizeLine(source)+")")
	cancel := func() { m.c.work.stop(work, nil) }
	opts.Now, opts.Sleep = m.c.now, m.c.opts.Sleep
	run, err := dispatch.Start(ctx, m.c.client, job, opts)
	if err != nil {
		m.c.work.end(work)
		if journal != nil {
			_ = journal.Close()
		}
		return cmdOf(statusMsg{Err: fmt.Errorf("nothing sent: %w", err)}), false
	}
	m.history.remember(run, source)
	cmd := m.results.start(run, work, cancel, journal, source)
	return tea.Batch(cmd, m.switchTo(screenResults)), true
}
