package console

import (
	"fmt"
	"strconv"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// Resend the failed from the history (issue 42 §3): F on a send's detail
// asks the application layer for a new send of its messages whose
// delivery failed (app.SendRequest.Resend, the CLI's --resend-failed),
// then shows the same confirmation as any console send; its yes starts it
// as the composer's does (startSendMsg). A repeat (a resend of it already
// made) is the same question as the composer's, its count typed.

// resendPreparedMsg answers preparing a resend of send ID off the UI
// loop: the pending send, or why it could not be checked.
type resendPreparedMsg struct {
	ID      string
	Pending *app.PendingSend
	Err     error
}

func (m resendPreparedMsg) failure() error { return m.Err }

// failedCount counts the opened send's messages whose delivery failed,
// and those rejected: what F would take.
func (d *historyDetail) failedCount() (failed, rejected int) {
	if d.state == nil {
		return 0, 0
	}
	for _, it := range d.state.Items {
		if it.State != model.StateAccepted {
			continue
		}
		switch model.DeliveryState(it.Delivery) {
		case model.DeliveryFailed:
			failed++
		case model.DeliveryRejected:
			rejected++
		}
	}
	return failed, rejected
}

// resendable reports whether F does something on the opened send: it was
// read, is not loading, and has messages whose delivery failed.
func (d *historyDetail) resendable() bool {
	failed, _ := d.failedCount()
	return !d.loading && failed > 0
}

// resendFailed asks the application layer, off the UI loop, for a new
// send of the opened send's failed messages (gated by the role: a send).
func (p *historyPane) resendFailed() tea.Cmd {
	d := p.detail
	if p.c.client() == nil {
		d.err = "not signed in: finish the setup screen first"
		return nil
	}
	d.err = ""
	sess, ctx, id := p.c.session, p.c.ctx, d.id
	return p.c.gate(p.c.keys.ResendFailed.Action, func() tea.Cmd {
		return owned(p.c.reads, func() tea.Msg {
			pending, err := sess.PrepareSend(ctx, app.SendRequest{Resend: &app.ResendFailed{ID: id}})
			return resendPreparedMsg{ID: id, Pending: pending, Err: err}
		})
	})
}

// resendPrepared shows the prepared resend's confirmation, as the
// composer's (a repeat asked with its count typed), or why it may not go.
func (p *historyPane) resendPrepared(msg resendPreparedMsg) tea.Cmd {
	d := p.detail
	if d == nil || d.id != msg.ID {
		return nil // the operator went back meanwhile
	}
	if msg.Err != nil {
		d.err = p.c.refusalLine(msg.Err)
		return nil
	}
	pending, refusal := msg.Pending, msg.Pending.Refusal
	if refusal != nil && refusal.Rule != app.RuleRepeat {
		d.err = p.c.refusalLine(refusal)
		return nil
	}
	n := pending.Verdict.Summary.Recipients
	title := fmt.Sprintf("Resend %s that failed in send %s?", model.Counted(n, "message"), model.SanitizeLine(msg.ID))
	if refusal != nil {
		title = fmt.Sprintf("Resend these? %d of them repeat an earlier send", pending.Verdict.RepeatedPairs())
		pending = pending.AllowRepeats() // the yes is to the sends the dialog names
	}
	dlg := newConfirm(p.c, title, sendConfirmBody(p.c, msg.Pending, ""), func() tea.Cmd {
		return cmdOf(startSendMsg{Pending: pending})
	})
	dlg.pin = 1
	if refusal != nil {
		dlg.pin += len(refusal.Details) + 2
		if p.c.repeatSafeWay(refusal) != "" {
			dlg.pin++
		}
		dlg.need = strconv.Itoa(msg.Pending.Verdict.RepeatedPairs())
	}
	return p.c.showModal(dlg)
}

// resentTaken is what a resend takes: "2 failed", "2 failed, 1 rejected".
func resentTaken(r *app.ResendCounts) string {
	s := fmt.Sprintf("%d failed", r.Failed)
	if r.Rejected > 0 {
		s += fmt.Sprintf(", %d rejected", r.Rejected)
	}
	return s
}
