package console

import (
	"context"
	"errors"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// Starting a send touches files (the send-start lock, which may wait up to
// five seconds for another smsdesk; the journals read for repeats; the new
// journal, fsynced) and so runs as a Cmd, never in Update: launch registers
// the work and returns the Cmd, whose sendStartedMsg, tagged with the
// work's id, shows the run (or why it did not start).

// sendStartedMsg answers starting a send (a new one, a resume, a retry):
// the run, or why nothing was sent. work is the id of the send's work,
// which the run keeps until its sendDoneMsg.
type sendStartedMsg struct {
	Run    *app.Send
	Source string
	Note   string // what the start found (items another run settled meanwhile)
	Resume string // the send resumed ("" for a new send)
	Err    error
	work   int
}

// startSend hands a confirmed send to the application layer (the look for
// sends begun meanwhile, the journal, then the send engine) off the UI
// loop, and shows its results when it has started.
func (m *root) startSend(msg startSendMsg) tea.Cmd {
	if err := m.canSend(); err != nil {
		return cmdOf(statusMsg{Err: err})
	}
	pending := msg.Pending
	return m.launch(pending.Source.Name, "", func(ctx context.Context) (*app.Send, string, error) {
		x, err := pending.Start(ctx, app.SendOptions{PollDelivery: true})
		return x, "", err
	})
}

// canSend says why no send can start now, or nil.
func (m *root) canSend() error {
	if m.results.running() {
		return errors.New("a send is already running; wait for it or cancel it (esc on the results screen)")
	}
	if m.starting != 0 {
		return errors.New("a send is starting; wait for it")
	}
	if m.c.client() == nil {
		return errors.New("not signed in: finish the setup screen first")
	}
	return nil
}

// launch registers a send (a new one or a resume: start makes it,
// journaled) as work with its own context, and returns the Cmd that starts
// it. Cancelling the context stops the run before its next chunk.
func (m *root) launch(source, resume string, start func(context.Context) (*app.Send, string, error)) tea.Cmd {
	ctx, work := m.c.startWork(workSend, source)
	m.starting = work
	done := make(chan struct{})
	ctx, waits := startWaits(ctx, work, done)
	return tea.Batch(owned(m.c.reads, func() tea.Msg {
		defer close(done)
		run, note, err := start(ctx)
		return sendStartedMsg{Run: run, Source: source, Note: note, Resume: resume, Err: err, work: work}
	}), waits)
}

// started shows a send that has started, or says why it did not. A quit
// asked while it started stops it at once: its first chunk is not sent.
func (m *root) started(msg sendStartedMsg) tea.Cmd {
	if m.starting == msg.work {
		m.starting = 0
	}
	if msg.Note != "" {
		m.note = msg.Note
	}
	if msg.Err != nil {
		m.c.work.end(msg.work)
		var r *app.Refusal
		if errors.As(msg.Err, &r) {
			if r.Rule == app.RuleRepeat && r.Repeat != nil && r.Repeat.Meanwhile {
				// Another send (another operator's, over smsdesk serve) took
				// these pairs while this one was confirmed: said whole, with
				// who began it, not cut to the status bar's width.
				return m.stoppedAll(tea.Batch(cmdOf(statusMsg{Err: r}), m.openViewer("Not sent: another send began with these pairs", m.c.refusalText(r))))
			}
			if msg.Resume == "" {
				m.composer.offerLater(r) // quiet hours began while it was confirmed: t sends it later
			}
			return m.stoppedAll(cmdOf(statusMsg{Err: r}))
		}
		return m.stoppedAll(cmdOf(statusMsg{Err: fmt.Errorf("nothing sent: %w", msg.Err)}))
	}
	if msg.Resume == "" {
		m.composer.markSent("") // its draft went: quitting does not ask about it
	}
	work := msg.work
	m.c.work.rename(work, msg.Run.ID()+" ("+msg.Source+")")
	cmd := m.results.start(msg.Run, work, func() { m.c.work.stop(work, nil) }, msg.Source)
	if msg.Resume != "" && m.history.detail != nil && m.history.detail.id == msg.Resume {
		m.history.detail = nil
	}
	if m.stopping {
		m.results.cancelSend() // quitting: it stops before its first chunk, and the quit follows its end
	}
	return tea.Batch(cmd, m.replaceWith(screenResults))
}

// startResume continues a past send through the application layer, which
// decides under the journal's lock what still goes, and shows its live
// results. The send's run shown on the results screen (watching delivery)
// holds its journal: it is let go first, off the UI loop too.
func (m *root) startResume(msg resumeSendMsg) tea.Cmd {
	if err := m.canSend(); err != nil {
		return cmdOf(statusMsg{Err: err})
	}
	r := msg.Resume
	shown := m.results.release(r.ID)
	return m.launch("resume of "+r.ID, r.ID, func(ctx context.Context) (*app.Send, string, error) {
		if err := closeRun(shown); err != nil {
			return nil, "", err
		}
		x, gone, err := r.Start(ctx, app.SendOptions{PollDelivery: true})
		note := ""
		if gone > 0 {
			note = fmt.Sprintf("%d of %d were settled by another run meanwhile and are not sent again", gone, len(r.Todo))
		}
		return x, note, err
	})
}

// retryRun sends again what a send shown on the results screen did not
// get through, as a resume of it from its journal (under the same rules as
// R in the history): the operator has confirmed it. The run shown is let
// go first (it holds the journal), then the resume is prepared and
// started, all off the UI loop.
func (m *root) retryRun(msg retryRunMsg) tea.Cmd {
	if err := m.canSend(); err != nil {
		return cmdOf(statusMsg{Err: err})
	}
	shown := m.results.release(msg.JobID)
	sess, id := m.c.session, msg.JobID
	return m.launch("resume of "+id, id, func(ctx context.Context) (*app.Send, string, error) {
		if err := closeRun(shown); err != nil {
			return nil, "", err
		}
		r, err := sess.PrepareResume(ctx, id, app.ResumeOptions{})
		if err != nil {
			return nil, "", err
		}
		x, gone, err := r.Start(ctx, app.SendOptions{PollDelivery: true})
		note := ""
		if gone > 0 {
			note = fmt.Sprintf("%d of %d were settled by another run meanwhile and are not sent again", gone, len(r.Todo))
		}
		return x, note, err
	})
}

// releaseWait bounds how long a run let go is waited for: its delivery
// polling ends at once when cancelled.
const releaseWait = 5 * time.Second

// closeRun waits for a run let go (nil: none) to end, at most releaseWait,
// and closes its journal, so that a resume may take it.
func closeRun(run *app.Send) error {
	if run == nil {
		return nil
	}
	t := time.NewTimer(releaseWait)
	defer t.Stop()
	select {
	case <-run.Done():
	case <-t.C:
	}
	if err := run.Close(); err != nil {
		return fmt.Errorf("closing send %s's journal: %w; nothing was sent", model.SanitizeLine(run.ID()), err)
	}
	return nil
}
