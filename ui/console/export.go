package console

// CSV exports: the open group's contacts and a send's results, each to a
// new 0600 file that is never overwritten, through the session
// (app.Session.ExportContacts and ExportResults: role, audit).

import (
	"fmt"

	tea "charm.land/bubbletea/v2"
)

// exported shows a contacts export's outcome in the pane.
func (p *contactsPane) exported(msg exportDoneMsg) tea.Cmd {
	if msg.Err != nil {
		p.err = errorLine(p.c.shownErr(msg.Err))
		return nil
	}
	p.err = ""
	p.note = fmt.Sprintf("exported %d contacts to %s", msg.Rows, p.c.shownPath(msg.Path))
	return cmdOf(statusMsg{Text: p.note})
}
