package console

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// historyDetail is one past send opened from the history list: every
// recipient's state, message id and error, and what a resume would send.
type historyDetail struct {
	id      string
	state   *model.JournalState
	running bool // another run (or process) is still working on the send
	loading bool
	err     string
	scroll      // the recipient under the cursor, and the first shown
	head    int // lines above the rows, as last drawn
	// resumeWhenLoaded: R was pressed on the list; ask once the send is read.
	resumeWhenLoaded bool
	// refreshing: a quiet read (refreshDetail) is under way; again: others
	// changed the send meanwhile, so it is read once more when it answers
	// (one read at a time, however fast the webhook events land).
	refreshing, again bool
}

// historyDetailMsg answers reading one send for the detail view.
type historyDetailMsg struct {
	ID      string
	State   *model.JournalState
	Running bool
	Err     error
}

func (m historyDetailMsg) failure() error { return m.Err }

// resumeSendMsg asks the root to continue a past send, prepared (and its
// rules checked) by the application layer: only the items certainly not
// taken, and the unknown ones only when the operator said so.
type resumeSendMsg struct {
	Resume *app.Resume
}

// open reads one send's journal.
func (p *historyPane) open(id string) tea.Cmd {
	p.detail = &historyDetail{id: id, loading: true}
	return p.readDetail(id)
}

// readDetail reads send id for the detail (historyDetailMsg).
func (p *historyPane) readDetail(id string) tea.Cmd {
	sess, ctx := p.c.session, p.c.ctx
	return owned(p.c.reads, func() tea.Msg {
		e, err := sess.ReadSendDelivery(ctx, id)
		if err != nil {
			return historyDetailMsg{ID: id, Err: fmt.Errorf("reading send %s: %w", id, err)}
		}
		return historyDetailMsg{ID: id, State: e.State, Running: e.Running}
	})
}

func (p *historyPane) detailLoaded(msg historyDetailMsg) tea.Cmd {
	d := p.detail
	if d == nil || d.id != msg.ID {
		return nil // the operator went back meanwhile
	}
	d.loading, d.refreshing = false, false
	cmd := p.detailApply(d, msg)
	if d.again { // others changed it while it was read
		d.again, d.refreshing = false, true
		cmd = tea.Batch(cmd, p.readDetail(d.id))
	}
	return cmd
}

// detailApply shows what a read of the open send found.
func (p *historyPane) detailApply(d *historyDetail, msg historyDetailMsg) tea.Cmd {
	if msg.Err != nil {
		d.err = errorLine(msg.Err)
		return nil
	}
	d.err, d.state, d.running = "", msg.State, msg.Running
	d.cursor = min(d.cursor, max(0, len(d.state.Items)-1))
	if d.resumeWhenLoaded {
		d.resumeWhenLoaded = false
		return p.resume()
	}
	return nil
}

func (p *historyPane) detailKey(msg tea.KeyPressMsg) tea.Cmd {
	d, k := p.detail, p.c.keys
	n := 0
	if d.state != nil {
		n = len(d.state.Items)
	}
	if d.pageKey(k, msg, n, p.detailRows()) {
		return nil
	}
	switch {
	case key.Matches(msg, k.Back):
		p.detail = nil
		if !p.top {
			return nil // deep in the history: the list as it was, where it was
		}
		return p.load()
	case key.Matches(msg, k.Resume.Binding) && d.state != nil && !d.loading:
		return p.resume()
	case key.Matches(msg, k.CancelScheduled.Binding) && d.state != nil && !d.loading:
		return p.askCancel(p.entryOf(d))
	case key.Matches(msg, k.ResendFailed.Binding) && d.resendable():
		return p.resendFailed()
	case key.Matches(msg, k.Enter) && d.cursor < n:
		it := d.state.Items[d.cursor]
		return p.c.openViewer("Recipient "+it.Recipient, resultDetail(d.state.Plan.ID, it, outcomeWord(it.State, false, d.state.Cancel)))
	}
	return nil
}

// resumePreparedMsg answers preparing a resume of send ID off the UI loop
// (app.Session.PrepareResume reads its journal and the recent sends):
// the resume, or why it may not go.
type resumePreparedMsg struct {
	ID             string
	IncludeUnknown bool
	Resume         *app.Resume
	Err            error
}

// resume asks before continuing the send: first the application layer's
// rules (the send's profile and service are this session's, no other run is
// on it: the CLI's --resume refuses the same way, in the same words), read
// off the UI loop; then, when some items have an unknown outcome, whether
// to send those again (default no); then the usual confirmation of what
// will go (default no).
func (p *historyPane) resume() tea.Cmd {
	d := p.detail
	if st := d.state; st != nil && st.Cancel != nil {
		// Never started: nothing was sent and nothing is resumed (the
		// application layer would refuse it too). Said, not asked.
		return cmdOf(statusMsg{Text: "send " + d.id + " " + cancelLine(st.Cancel) + " before it started: nothing was sent, nothing to resume"})
	}
	if p.c.client() == nil {
		d.err = "not signed in: finish the setup screen first"
		return nil
	}
	d.err = ""
	return p.prepareResume(d.id, false)
}

// prepareResume prepares a resume of send id as a Cmd.
func (p *historyPane) prepareResume(id string, includeUnknown bool) tea.Cmd {
	sess, ctx := p.c.session, p.c.ctx
	return owned(p.c.reads, func() tea.Msg {
		r, err := sess.PrepareResume(ctx, id, app.ResumeOptions{IncludeUnknown: includeUnknown})
		return resumePreparedMsg{ID: id, IncludeUnknown: includeUnknown, Resume: r, Err: err}
	})
}

// resumePrepared shows a prepared resume's questions: the unknown outcomes
// first (when it left them out), then what will go.
func (p *historyPane) resumePrepared(msg resumePreparedMsg) tea.Cmd {
	d := p.detail
	if d == nil || d.id != msg.ID {
		return nil // the operator went back meanwhile
	}
	if msg.Err != nil {
		d.err = p.c.refusalLine(msg.Err)
		return nil
	}
	r := msg.Resume
	if msg.IncludeUnknown || len(r.Unknown) == 0 {
		return p.confirmResume(r)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d recipient(s) have an unknown outcome: the service may\nalready have taken them.\n", len(r.Unknown))
	for i, ix := range r.Unknown {
		if i == 6 {
			fmt.Fprintf(&b, "  … and %d more (listed in this view)\n", len(r.Unknown)-6)
			break
		}
		it := itemAt(r.State, ix)
		fmt.Fprintf(&b, "  %s  %s\n", model.SanitizeLine(it.Recipient), fitDialog(it.Error, 40))
	}
	b.WriteString("Send them AGAIN as well? Answer no to leave them out.")
	dlg := newConfirm(p.c, "Unknown outcomes", b.String(), func() tea.Cmd { return p.prepareResume(r.ID, true) })
	dlg.onNo = func() tea.Cmd { return p.confirmResume(r) }
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
	return strings.TrimRight(fit(s, w), " ")
}

// confirmResume is the final question before a resume sends anything.
func (p *historyPane) confirmResume(r *app.Resume) tea.Cmd {
	unknown, st := len(r.Unknown), r.State
	if len(r.Todo) == 0 {
		p.detail.err = ""
		msg := "nothing to resume: " + settledText(st)
		if unknown > 0 {
			msg = fmt.Sprintf("nothing to resume: the rest were accepted, and %d unknown are left out", unknown)
		}
		return cmdOf(statusMsg{Text: msg})
	}
	body := fmt.Sprintf("Send %d messages (%d SMS parts) from sender %s,\ncontinuing send %s?\nTime: %s",
		len(r.Todo), r.Parts, model.SanitizeLine(st.Plan.Sender), model.SanitizeLine(st.Plan.ID), r.Time)
	switch {
	case r.IncludesUnknown() && unknown > 0:
		body += fmt.Sprintf("\nThis INCLUDES %d unknown recipient(s), who may get it twice.", unknown)
		if r.AsFirstSent > 0 {
			body += fmt.Sprintf("\n%d go again as they first went (same chunk and\nIdempotency-Key): a service that honours the key drops a copy.", r.AsFirstSent)
		}
		for _, u := range r.Apart {
			body += fmt.Sprintf("\n! %d cannot, and go under new keys: %s", len(u.Unknown), u.Why)
		}
	case unknown > 0:
		body += fmt.Sprintf("\n%d unknown recipient(s) are left out.", unknown)
	}
	return p.c.showModal(newConfirm(p.c, "Resume send?", body, func() tea.Cmd {
		return cmdOf(resumeSendMsg{Resume: r})
	}))
}
