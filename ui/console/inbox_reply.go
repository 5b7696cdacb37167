package console

import (
	"fmt"
	"slices"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/model"
)

// A reply from the inbox: a paired send of one, to the number that wrote,
// from the line it wrote to. It is the composer's draft like any other
// (typed rows: one), its message typed in the row's form, and it goes
// through ctrl+s, the application layer's rules (the opt-out list among
// them: a number that opted out of the line is refused, with why) and the
// confirmation, as every send does.

// inboxReplyMsg asks the root to reply to one inbox message.
type inboxReplyMsg struct {
	To, Line, MessageID string
	Action              model.ReplyAction
}

// replyTo opens the composer on a reply to msg's sender, asking first
// when it holds a draft not sent (the draft is not thrown away without a
// word; the default keeps it).
func (m *root) replyTo(msg inboxReplyMsg) tea.Cmd {
	start := func() tea.Cmd {
		m.composer.startReply(msg)
		return tea.Batch(m.composer.lookupOptOuts(), m.switchTo(screenComposer), m.showModal(m.composer.replyForm()))
	}
	if !m.composer.unsentDraft() {
		return start()
	}
	return m.showModal(newConfirm(m.c, "Replace the draft?",
		fmt.Sprintf("The composer holds a draft over %s.\nStart a reply to %s and throw the draft away?\nThe default is No: the draft stays.",
			model.SanitizeLine(m.composer.planSource().Name), model.SanitizeLine(msg.To)), start))
}

// startReply makes the draft a reply to msg: one row to its sender, from
// its line, the message to be typed.
func (p *composerPane) startReply(msg inboxReplyMsg) {
	p.Reset(model.Group{}, nil) // over no group: c asks before it puts a group's template in its place
	p.source, p.reply = sourceManual, &msg
	p.rows = []model.PairRow{{Line: 1, Recipient: msg.To}}
	p.senderPick.use(msg.Line)
	p.note = fmt.Sprintf("a reply to %s from line %s: type its message; enter edits it, ctrl+s sends",
		model.SanitizeLine(msg.To), model.SanitizeLine(msg.Line))
	if msg.Action == model.ReplyOptOut {
		p.note = fmt.Sprintf("%s opted out of line %s by this message: a send to them is refused while they are on its list",
			model.SanitizeLine(msg.To), model.SanitizeLine(msg.Line))
	}
	p.replan()
}

// replyForm is the reply's row, its message field focused.
func (p *composerPane) replyForm() *form {
	f := rowForm(p.c, 0, p.rows[0])
	f.title = "Reply to " + model.SanitizeLine(p.reply.To)
	f.focus = 1
	return f
}

// use chooses line: one of the profile's, or typed as "other…".
func (s *senderPick) use(line string) {
	if i := slices.Index(s.lines, line); i >= 0 {
		s.choice = i
		return
	}
	s.choice = len(s.lines)
	s.input.SetValue(line)
}
