package console

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// unfinishedLook is how many of the newest sends the note of unfinished
// sends looks at: every console's start reads them, so that their number,
// not every send ever made, is its cost. An older one is in history.
const unfinishedLook = 50

// unfinishedSends looks, once at start, for this profile's sends that did
// not end (a quit, a hang-up, a kill or a refusal mid-send) among its
// newest and says the newest on the status bar and in the message log:
// after a dropped SSH session the summary went to a terminal that no
// longer exists, and only history said "interrupted".
func (m *root) unfinishedSends() tea.Cmd {
	sess, ctx := m.c.session, m.c.ctx
	return func() tea.Msg {
		list, err := sess.HistoryPage(ctx, app.HistoryQuery{Past: true, Limit: unfinishedLook})
		if err != nil {
			return nil
		}
		var first string
		n := 0
		for _, e := range list {
			if e.State == nil || e.Running || e.State.Complete() || e.Waiting() || e.State.Cancelled() {
				continue // a scheduled send waits for its time, a cancelled one is over: R refuses both
			}
			c := e.State.Counts()
			if c.NotSent+c.Unknown == 0 {
				continue
			}
			if n == 0 {
				first = fmt.Sprintf("send %s %s: %d not sent, %d unknown — h, enter, R to continue",
					model.SanitizeLine(e.ID), e.Status(), c.NotSent, c.Unknown)
			}
			n++
		}
		switch {
		case n == 0:
			return nil
		case n > 1:
			first += fmt.Sprintf(" (and %d more unfinished in history)", n-1)
		}
		return statusMsg{Text: first}
	}
}
