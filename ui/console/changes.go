package console

// What others change while the console shows it (issue 40 item 15): after
// sara opted three contacts out, ali's table (another session of the same
// server, or another console) showed no ⊘ until r. The console listens to
// the process's one watch of the ledger and the config file (app.Session.
// WatchChanges: a server's sessions share it), one message per Cmd that
// re-issues itself, and looks again, quietly, at what it shows of what
// changed: the contacts' and the draft's opt-outs, the history list and
// the open send's detail (its delivery, live as webhook events land), the
// rules, the inbox. A look that finds nothing new draws nothing new: an idle console
// stays quiet on the wire.

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/ui/app"
)

// changesMsg carries what others changed, and the Cmd that listens on.
type changesMsg struct {
	changes app.Changes
	next    tea.Cmd
}

// listenChanges reads one change of the feed per Cmd and re-issues itself;
// it ends with ctx (the console's) or the feed.
func listenChanges(ctx context.Context, feed *config.ChangeFeed) tea.Cmd {
	var next tea.Cmd
	next = func() tea.Msg {
		c, err := feed.Next(ctx)
		if err != nil {
			return nil
		}
		return changesMsg{changes: c, next: next}
	}
	return next
}

// othersChanged looks again at what the screen shows of what changed.
func (m *root) othersChanged(c app.Changes) tea.Cmd {
	var cmds []tea.Cmd
	if c.OptOuts {
		cmds = append(cmds, m.contacts.refreshOptOuts(), m.composer.refreshOptOuts())
	}
	if (c.Sends || c.Deliveries) && m.screen == screenHistory {
		// the list's DELIVERY column, and the open detail's rows and
		// "delivery:" line, as events land
		cmds = append(cmds, m.history.refresh(), m.history.refreshDetail())
	}
	if c.Rules {
		cmds = append(cmds, m.readRules())
	}
	if c.Inbox && m.screen == screenInbox { // shown again, it is read again
		cmds = append(cmds, m.inbox.refresh())
	}
	return tea.Batch(cmds...)
}

// refreshOptOuts looks the loaded contacts' numbers up again (nil when
// none are loaded, or a load is under way: it looks them up itself).
func (p *contactsPane) refreshOptOuts() tea.Cmd {
	if len(p.rows) == 0 || p.loading {
		return nil
	}
	return p.lookupOptOuts(nil, "", nil)
}

// refreshOptOuts looks the draft's recipients up again (nil with no draft).
func (p *composerPane) refreshOptOuts() tea.Cmd {
	if !p.hasDraft() {
		return nil
	}
	return p.lookupOptOuts()
}

// refreshDetail reads the open detail's send again, quietly (no spinner;
// the row under the cursor stays under it), when others changed it: a
// delivery state a webhook event or a poll moved, a run that went on. Nil
// with no detail open, or while its read is under way (a quiet one is
// followed by one more).
func (p *historyPane) refreshDetail() tea.Cmd {
	d := p.detail
	switch {
	case d == nil || d.loading:
		return nil
	case d.refreshing:
		d.again = true
		return nil
	}
	d.refreshing = true
	return p.readDetail(d.id)
}

// refresh reads the history's top page again, quietly (no spinner; an open
// detail stays open; the send under the cursor stays under it), when
// others changed the sends and the list shows the top page alone: a list
// paged down or to its end is not moved under the operator (the new sends
// are at the top, r reads them); nil while a load is under way.
func (p *historyPane) refresh() tea.Cmd {
	if p.loading || !p.top || len(p.entries) > historyPageSize {
		return nil
	}
	cmd := p.loadPage(pageSame)
	p.loading = false // quiet: its answer is a page like any (loaded), without the spinner
	return func() tea.Msg {
		msg := cmd()
		if page, ok := msg.(historyLoadedMsg); ok {
			page.Quiet = true
			return page
		}
		return msg
	}
}
