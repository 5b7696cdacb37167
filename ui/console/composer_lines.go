package console

// The composer counts a draft as it will go out (issue 40 item 1), and a
// service line adds the suffix «لغو۱۱» where the profile sets none (issue
// 42 §6): the counter, rows and totals read GSM-7 · 1 part over a service
// line while the send went as UCS-2 in 2 (only the confirmation knew). The
// kinds of the account's lines are read off the UI loop as the draft's
// opt-outs are (on opening, a reply, a refresh), and the draft planned
// again when they come. The confirmation reads the kind again, as the send
// does.

import (
	"maps"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/model"
)

// lineKindsMsg answers reading the kinds of the account's lines.
type lineKindsMsg struct {
	kinds map[string]model.LineKind
	err   error
}

// readLineKinds reads the kinds of the account's lines, off the UI loop.
func (p *composerPane) readLineKinds() tea.Cmd {
	p.kindsRead = false
	sess, ctx := p.c.session, p.c.ctx
	return owned(p.c.reads, func() tea.Msg {
		k, err := sess.LineKindsNow(ctx)
		return lineKindsMsg{kinds: k, err: err}
	})
}

// lineKindsRead plans the draft again when the kinds changed. One that
// did not read keeps the kinds read before: the confirmation, which reads
// the line's kind itself, says the rules the send goes by.
func (p *composerPane) lineKindsRead(msg lineKindsMsg) {
	p.kindsRead = true
	if msg.err != nil || maps.Equal(msg.kinds, p.kinds) {
		return
	}
	p.kinds = msg.kinds
	if p.hasDraft() {
		p.replan()
	}
}
