package console

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/smsdesk/smsdesk/client/dispatch"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// historyDetail is one past send opened from the history list: every
// recipient's state, message id and error, and what a resume would send.
type historyDetail struct {
	id      string
	state   *model.JournalState
	running bool // another run (or process) is still working on the send
	loading bool
	err     string
	cursor  int
	offset  int
}

// historyDetailMsg answers reading one send for the detail view.
type historyDetailMsg struct {
	ID      string
	State   *model.JournalState
	Running bool
	Err     error
}

func (m historyDetailMsg) failure() error { return m.Err }

// resumeSendMsg asks the root to continue a past send: only the items
// certainly not taken, and the unknown ones only when the operator said so.
type resumeSendMsg struct {
	State          *model.JournalState
	IncludeUnknown bool
}

// open reads one send (its journal, or this session's run in demo mode).
func (p *historyPane) open(id string) tea.Cmd {
	p.detail = &historyDetail{id: id, loading: true}
	paths := p.c.opts.Paths
	if paths == nil {
		run := p.sessionRun(id)
		return func() tea.Msg {
			if run == nil {
				return historyDetailMsg{ID: id, Err: fmt.Errorf("send %s is not in this session", id)}
			}
			running := false
			select {
			case <-run.Done():
			default:
				running = true
			}
			return historyDetailMsg{ID: id, State: stateOfRun(run, p.c.profile.Name), Running: running}
		}
	}
	return func() tea.Msg {
		st, err := config.ReadJournal(*paths, id)
		if err != nil {
			return historyDetailMsg{ID: id, Err: fmt.Errorf("reading send %s: %w", id, err)}
		}
		return historyDetailMsg{ID: id, State: st, Running: config.JournalInUse(*paths, id)}
	}
}

// sessionRun returns this session's latest run of send id.
func (p *historyPane) sessionRun(id string) *dispatch.Run {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := len(p.session) - 1; i >= 0; i-- {
		if p.session[i].Job().ID == id {
			return p.session[i]
		}
	}
	return nil
}

// stateOfRun describes a run of this session as a journal would, so that a
// demo send can be shown and resumed like a journaled one.
func stateOfRun(run *dispatch.Run, profile string) *model.JournalState {
	job := run.Job()
	st := &model.JournalState{Plan: model.JournalPlan{ID: job.ID, Time: job.CreatedAt, Profile: profile, Sender: job.Sender}}
	for _, r := range run.Results() {
		it := model.SentItem{
			JournalItem: model.JournalItem{Index: r.Index, Recipient: r.Recipient, Message: r.Message},
			State:       r.State, MessageID: r.MessageID, BatchID: r.BatchID, Code: r.Code, Error: r.Error,
			Delivery: r.Delivery, Chunk: r.Chunk,
		}
		for _, ji := range job.Items {
			if ji.Index == r.Index {
				it.Parts, it.Line = ji.Parts, ji.Line
			}
		}
		if r.State == model.StateSending {
			it.State = model.StateUnknown // a run that ended mid-request
		}
		st.NextChunk = max(st.NextChunk, r.Chunk+1)
		st.Items = append(st.Items, it)
	}
	return st
}

func (p *historyPane) detailLoaded(msg historyDetailMsg) tea.Cmd {
	d := p.detail
	if d == nil || d.id != msg.ID {
		return nil // the operator went back meanwhile
	}
	d.loading = false
	if msg.Err != nil {
		d.err = errorLine(msg.Err)
		return nil
	}
	d.err, d.state, d.running = "", msg.State, msg.Running
	d.cursor = min(d.cursor, max(0, len(d.state.Items)-1))
	return nil
}

func (p *historyPane) detailKey(msg tea.KeyMsg) tea.Cmd {
	d, k := p.detail, p.c.keys
	n := 0
	if d.state != nil {
		n = len(d.state.Items)
	}
	switch {
	case key.Matches(msg, k.Up):
		d.cursor = max(0, d.cursor-1)
	case key.Matches(msg, k.Down):
		d.cursor = min(max(0, n-1), d.cursor+1)
	case key.Matches(msg, k.PageUp):
		d.cursor = max(0, d.cursor-p.detailRows())
	case key.Matches(msg, k.PageDown):
		d.cursor = min(max(0, n-1), d.cursor+p.detailRows())
	case key.Matches(msg, k.Back):
		p.detail = nil
		return p.load()
	case key.Matches(msg, k.Resume) && d.state != nil && !d.loading:
		return p.resume()
	case key.Matches(msg, k.Enter) && d.cursor < n:
		it := d.state.Items[d.cursor]
		return p.c.openViewer("Recipient "+it.Recipient, resultDetail(d.state.Plan.ID, it))
	}
	return nil
}

// resume asks before continuing the send: first, when some items have an
// unknown outcome, whether to send those again (default no); then the usual
// confirmation of what will go (default no).
func (p *historyPane) resume() tea.Cmd {
	d := p.detail
	if d.running {
		d.err = "this send is still running (here or in another smsdesk); wait for it to end"
		return nil
	}
	if p.c.client == nil {
		d.err = "not signed in: finish the setup screen first"
		return nil
	}
	st := d.state
	unknown := st.SortedIndexes(model.StateUnknown)
	if len(unknown) == 0 {
		return p.confirmResume(st, false)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d recipient(s) have an unknown outcome: the service may\nalready have taken them.\n", len(unknown))
	for i, ix := range unknown {
		if i == 6 {
			fmt.Fprintf(&b, "  … and %d more (listed in this view)\n", len(unknown)-6)
			break
		}
		it := itemAt(st, ix)
		fmt.Fprintf(&b, "  %s  %s\n", model.SanitizeLine(it.Recipient), fitDialog(it.Error, 40))
	}
	b.WriteString("Send them AGAIN as well? Answer no to leave them out.")
	dlg := newConfirm(p.c, "Unknown outcomes", b.String(), func() tea.Cmd { return p.confirmResume(st, true) })
	dlg.onNo = func() tea.Cmd { return p.confirmResume(st, false) }
	return p.c.showModal(dlg)
}

// itemAt returns the item with plan index ix (also for a state built from a
// session run, which has no replay index).
func itemAt(st *model.JournalState, ix int) model.SentItem {
	if it, ok := st.Item(ix); ok {
		return *it
	}
	for _, it := range st.Items {
		if it.Index == ix {
			return it
		}
	}
	return model.SentItem{}
}

// fitDialog shortens a service string for a dialog line.
func fitDialog(s string, w int) string {
	return strings.TrimRight(fit(model.SanitizeLine(s), w), " ")
}

// confirmResume is the final question before a resume sends anything.
func (p *historyPane) confirmResume(st *model.JournalState, includeUnknown bool) tea.Cmd {
	todo := st.ResumeIndexes(includeUnknown)
	unknown := len(st.SortedIndexes(model.StateUnknown))
	if len(todo) == 0 {
		p.detail.err = ""
		msg := "nothing to resume: every recipient was accepted"
		if unknown > 0 {
			msg = fmt.Sprintf("nothing to resume: the rest were accepted, and %d unknown are left out", unknown)
		}
		return cmdOf(statusMsg{Text: msg})
	}
	parts := 0
	for _, ix := range todo {
		it := itemAt(st, ix)
		parts += max(1, it.Parts)
	}
	body := fmt.Sprintf("Send %d messages (%d SMS parts) from sender %s,\ncontinuing send %s?",
		len(todo), parts, model.SanitizeLine(st.Plan.Sender), model.SanitizeLine(st.Plan.ID))
	switch {
	case includeUnknown && unknown > 0:
		body += fmt.Sprintf("\nThis INCLUDES %d unknown recipient(s), who may get it twice.", unknown)
	case unknown > 0:
		body += fmt.Sprintf("\n%d unknown recipient(s) are left out.", unknown)
	}
	return p.c.showModal(newConfirm(p.c, "Resume send?", body, func() tea.Cmd {
		return cmdOf(resumeSendMsg{State: st, IncludeUnknown: includeUnknown})
	}))
}

// startResume continues a past send through dispatch.ResumeJob, appending to
// its journal, and shows its live results.
func (m *root) startResume(msg resumeSendMsg) tea.Cmd {
	if err := m.canSend(); err != nil {
		return cmdOf(statusMsg{Err: err})
	}
	st := msg.State
	m.results.release(st.Plan.ID, m.history.sessionRun(st.Plan.ID))
	approved := st.ResumeIndexes(msg.IncludeUnknown)
	job := dispatch.ResumeJob(st, msg.IncludeUnknown)
	chunk := st.Plan.ChunkSize
	if chunk <= 0 {
		chunk = m.c.profile.ChunkSize
	}
	opts := dispatch.Options{ChunkSize: chunk, Profile: m.c.profile.Name, Source: st.Plan.Source, PollDelivery: true}
	var note string
	cmd, ok := m.launch(job, opts, "resume of "+st.Plan.ID, func(p config.Paths) (*config.JournalFile, error) {
		// Decide under the lock, from the journal as it is now (a CLI resume
		// may have sent some of these since the detail was loaded).
		j, fresh, err := config.OpenJournalLocked(p, st.Plan.ID)
		if err != nil {
			return nil, err
		}
		*job = *dispatch.ResumeJob(fresh, msg.IncludeUnknown)
		if gone := job.Narrow(approved); gone > 0 {
			note = fmt.Sprintf("%d of %d were settled by another run meanwhile and are not sent again", gone, len(approved))
		}
		if len(job.ToSend()) == 0 {
			j.Close()
			return nil, fmt.Errorf("nothing left to send: another run of send %s finished it", st.Plan.ID)
		}
		return j, nil
	})
	if note != "" {
		m.note = note
	}
	if ok {
		m.history.detail = nil
	}
	return cmd
}

// detailRows is how many recipient rows fit in the detail view.
func (p *historyPane) detailRows() int { return max(1, p.h-2-4) }

func (p *historyPane) detailView() string {
	st, d := p.c.styles, p.detail
	iw, ih := p.w-2, p.h-2
	title := "Send " + model.SanitizeLine(d.id)
	if d.loading {
		title += " " + p.c.spin
	}
	lines := []string{st.Title.Render(fit(title, iw))}
	if d.state != nil {
		s := d.state
		c := s.Counts()
		sum := fmt.Sprintf("sender %s · %s · %d items: %d accepted, %d rejected, %d failed, %d unknown, %d not sent",
			model.SanitizeLine(s.Plan.Sender), model.SanitizeLine(s.Plan.Source), len(s.Items),
			c.Accepted, c.Rejected, c.Failed, c.Unknown, c.NotSent)
		if s.Damaged > 0 {
			sum = fmt.Sprintf("⚠ %d damaged journal line(s): their recipients are unknown · ", s.Damaged) + sum
		}
		lines = append(lines, st.Muted.Render(fit(sum, iw)))
	} else {
		lines = append(lines, "")
	}
	nw, sw, mw := 4, 10, 22
	rw := 14
	ew := max(8, iw-nw-rw-sw-mw-5)
	lines = append(lines, st.Header.Render(" "+fitRight("#", nw)+" "+fit("RECIPIENT", rw)+" "+fit("STATUS", sw)+" "+fit("MESSAGE ID", mw)+" "+fit("ERROR", ew)))
	rows := p.detailRows()
	if d.state != nil {
		items := d.state.Items
		d.offset = min(max(d.offset, d.cursor-rows+1), d.cursor)
		for i := d.offset; i < len(items) && i < d.offset+rows; i++ {
			it := items[i]
			status := string(it.State)
			if it.Delivery != "" {
				status = it.Delivery
			}
			errText := it.Error
			if it.Code != "" {
				errText = it.Code + ": " + errText
			}
			mark := " "
			if i == d.cursor {
				mark = "›"
			}
			row := mark + fitRight(fmt.Sprint(it.Index+1), nw) + " " + fit(model.SanitizeLine(it.Recipient), rw) + " " +
				fit(status, sw) + " " + fit(model.SanitizeLine(it.MessageID), mw) + " " + fitText(model.SanitizeLine(errText), ew, p.c.bidi)
			switch {
			case i == d.cursor:
				row = st.Selected.Render(row)
			case it.State == model.StateUnknown:
				row = st.Warn.Render(row)
			case it.State == model.StateRejected || it.State == model.StateFailed:
				row = st.Bad.Render(row)
			}
			lines = append(lines, row)
		}
	}
	for len(lines) < ih-1 {
		lines = append(lines, "")
	}
	switch {
	case d.err != "":
		lines = append(lines, st.Error.Render(fit("✗ "+d.err, iw)))
	case d.running:
		lines = append(lines, st.Warn.Render(fit("this send is still running; resume is possible once it ends", iw)))
	case d.state != nil:
		lines = append(lines, st.Muted.Render(fit(p.resumeHint(), iw)))
	}
	return st.PaneFocused.Render(block(strings.Join(lines, "\n"), iw, ih))
}

// resumeHint says what R would do.
func (p *historyPane) resumeHint() string {
	s := p.detail.state
	todo := len(s.ResumeIndexes(false))
	unknown := len(s.SortedIndexes(model.StateUnknown))
	switch {
	case todo == 0 && unknown == 0:
		return "every recipient was accepted · esc back"
	case unknown == 0:
		return fmt.Sprintf("R resumes: %d certainly not sent · esc back", todo)
	}
	return fmt.Sprintf("R resumes: %d certainly not sent; %d unknown go only if you say so · esc back", todo, unknown)
}
