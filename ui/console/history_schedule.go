package console

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/model"
)

// Scheduled sends in the history: listed first with their time and a
// countdown; x cancels one that waits for its time (the sender role on a
// served console), asking first (default no). One that has started is not
// cancelled: the application layer says so, and how to stop it.

// scheduleCancelledMsg answers cancelling a scheduled send, off the UI loop.
type scheduleCancelledMsg struct {
	ID  string
	Err error
}

func (m scheduleCancelledMsg) failure() error { return m.Err }

// cancelLine says why a scheduled send never started: "cancelled by sara",
// "missed: …".
func cancelLine(c *model.JournalCancel) string {
	if c.Cause == model.CancelMissed {
		return "missed: " + model.SanitizeLine(c.Reason)
	}
	if c.Operator != nil {
		return "cancelled by " + model.SanitizeLine(c.Operator.Name)
	}
	return "cancelled"
}

// askCancel asks before cancelling send e.
func (p *historyPane) askCancel(e historyEntry) tea.Cmd {
	return p.c.gate(p.c.keys.CancelScheduled.Action, func() tea.Cmd { return p.askCancelAllowed(e) })
}

// askCancelAllowed is askCancel once the operator's role allows it.
func (p *historyPane) askCancelAllowed(e historyEntry) tea.Cmd {
	if !e.Waiting {
		return cmdOf(statusMsg{Text: fmt.Sprintf("send %s is %s, not scheduled: nothing to cancel", e.ID, e.Status)})
	}
	body := fmt.Sprintf("%s from %s (%s), scheduled for %s (%s).\nNothing of it will be sent.",
		model.Counted(e.Pending, "message"), model.SanitizeLine(e.Sender), model.SanitizeLine(e.Source), model.AtText(e.At, p.c.profile.Zone()), model.DueText(e.At, p.c.now()))
	sess, id, ctx := p.c.session, e.ID, p.c.ctx
	return p.c.showModal(newConfirm(p.c, "Cancel send "+e.ID+"?", body, func() tea.Cmd {
		return func() tea.Msg { return scheduleCancelledMsg{ID: id, Err: sess.CancelScheduled(ctx, id)} }
	}))
}

// cancelled says what became of a cancel and reads the history again.
func (p *historyPane) cancelled(msg scheduleCancelledMsg) tea.Cmd {
	if msg.Err != nil {
		return tea.Batch(cmdOf(statusMsg{Err: fmt.Errorf("%s", p.c.refusalLine(msg.Err))}), p.load())
	}
	return tea.Batch(cmdOf(statusMsg{Text: "cancelled send " + msg.ID + ": nothing of it will be sent"}), p.load())
}

// entryOf is the opened send as the list has it (for x in its detail).
func (p *historyPane) entryOf(d *historyDetail) historyEntry {
	for _, e := range p.entries {
		if e.ID == d.id {
			return e
		}
	}
	st := d.state
	return historyEntry{ID: d.id, Status: "unknown", Sender: st.Plan.Sender, Source: st.Plan.Source}
}
