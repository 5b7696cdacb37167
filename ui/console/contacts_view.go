package console

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/model"
)

// View draws the visible slice of the table; its cost does not grow with the
// number of contacts.
func (p *contactsPane) View() string {
	st := p.c.styles
	iw, ih := p.w-2, p.h-2
	lines := make([]string, 0, ih)
	lines = append(lines, st.Title.Render(p.c.text(p.title(), iw)))
	if p.filter.Focused() || p.filter.Value() != "" {
		p.filter.SetWidth(max(1, iw-4))
		lines = append(lines, fitView(p.filter.View(), iw))
	} else {
		lines = append(lines, st.Muted.Render(fit("/ filter by name or number", iw)))
	}
	idw, mw := 10, 15
	nw := iw - idw - mw - 3
	lines = append(lines, st.Header.Render(" "+fit("ID", idw)+" "+fit("NAME", nw)+" "+fit("MOBILE", mw)))
	if l := p.emptyText(); l != "" {
		lines = append(lines, st.Muted.Render(p.c.text(l, iw)))
	}
	end := min(len(p.index), p.offset+p.visibleRows())
	for pos := p.offset; pos < end; pos++ {
		r := &p.rows[p.index[pos]]
		mark := " "
		if pos == p.cursor {
			mark = "›"
		}
		mobile := r.mobile
		if m := p.optedOut(r.contact.Mobile); m != "" {
			mobile = m + " " + mobile // on the opt-out list: ⊘ not sent to from this line, ◌ from another line only
		}
		row := mark + fit(r.id, idw) + " " + p.c.text(r.name, nw) + " " + fit(mobile, mw)
		if pos == p.cursor && p.focused {
			row = st.Selected.Render(row)
		} else if pos == p.cursor {
			row = st.Accent.Render(row)
		}
		lines = append(lines, row)
	}
	for len(lines) < ih-1 {
		lines = append(lines, "")
	}
	if l := p.footLine(iw); l != "" {
		lines = append(lines, l)
	}
	style := st.Pane
	if p.focused {
		style = st.PaneBeside
	}
	return style.Render(block(strings.Join(lines, "\n"), iw, ih))
}

// emptyText says why the table shows no rows ("" when it shows some, or
// when an error below it says why).
func (p *contactsPane) emptyText() string {
	switch {
	case p.group.ID.IsZero():
		return "No group open: pick one in the groups pane and press enter."
	case p.loading && len(p.rows) == 0:
		return p.loadingText()
	case p.err != "":
		return "" // shown below the table
	case len(p.rows) == 0:
		return "This group has no contacts. n: add one · i: import a CSV"
	case len(p.index) == 0:
		return "No contact matches the filter. esc clears it."
	}
	return ""
}

// footLine is the line under the table: an error, the work in flight, or
// a note ("" for none).
func (p *contactsPane) footLine(iw int) string {
	st := p.c.styles
	switch {
	case p.err != "":
		return st.Error.Render(p.c.text("✗ "+p.err, iw))
	case p.workingText() != "":
		return st.Muted.Render(p.c.text(p.c.spin+" "+p.workingText(), iw))
	case p.loading && len(p.rows) > 0:
		return st.Muted.Render(p.c.text(p.c.spin+" "+p.loadingText(), iw))
	case p.note != "":
		return st.Good.Render(p.c.text(p.note, iw))
	}
	return ""
}

func (p *contactsPane) title() string {
	if p.group.ID.IsZero() {
		return "Contacts"
	}
	// The count is in parentheses, as in "Groups (4)"; the group's id is
	// named as one ("group 1": in parentheses it read as a count). The
	// group's name comes last: with bidi visual a Persian name reorders on
	// its own, and the id and count stay on the Latin side (in the middle
	// they were pulled into the name's run: "Contacts · 8 · (1) نارهت …").
	t := "Contacts"
	switch {
	case p.loading:
		t += " " + p.c.spin
	case len(p.index) != len(p.rows):
		t += fmt.Sprintf(" (%s of %s)", thousands(len(p.index)), thousands(len(p.rows)))
	default:
		t += " (" + thousands(len(p.rows)) + ")"
	}
	byID := "group " + string(p.group.ID)
	if groupText(p.group) == byID {
		return t + " · " + byID // tracked by id alone, named "group 1": said once
	}
	return t + " · " + byID + " · " + p.group.Name
}

// confirmDelete asks before deleting the selected contact; the default is no.
func (p *contactsPane) confirmDelete() tea.Cmd {
	r, ok := p.selected()
	if !ok {
		return nil
	}
	return p.c.gate(p.c.keys.Delete.Action, func() tea.Cmd { return p.askDelete(r) })
}

// askDelete is confirmDelete once the operator's role allows it.
func (p *contactsPane) askDelete(r contactRow) tea.Cmd {
	sess, gid, id := p.c.session, p.group.ID, r.contact.ID
	return p.c.showModal(newConfirm(p.c, "Delete contact?",
		fmt.Sprintf("Delete %s %s (id %s) from the service?\nThis cannot be undone.", r.name, r.mobile, r.id),
		func() tea.Cmd {
			p.setWorking("deleting " + r.mobile + "…")
			ctx, work := p.c.startWork(workDelete, r.mobile+" (id "+r.id+") from "+p.group.Name)
			return func() tea.Msg {
				err := sess.DeleteContact(ctx, gid, id)
				if err != nil {
					err = fmt.Errorf("deleting contact %s: %w", id, err)
				}
				return contactDeletedMsg{GroupID: gid, ContactID: id, Err: err, work: work}
			}
		}))
}

// settled ends the add or delete in flight for group gid: its work and its
// line, even when another group is shown now (the line stayed for good when
// the operator came back). shown says the answer is for the table shown; ok
// that it succeeded (a failure is shown in the pane, or on the status bar).
func (p *contactsPane) settled(work int, gid model.ID, err error) (shown, ok bool) {
	p.c.work.end(work)
	if gid == p.workingFor {
		p.setWorking("")
	}
	shown = gid == p.group.ID
	if shown {
		p.err = ""
		if err != nil {
			p.err = errorLine(err)
		}
	}
	return shown, err == nil
}

func (p *contactsPane) deleted(msg contactDeletedMsg) tea.Cmd {
	shown, ok := p.settled(msg.work, msg.GroupID, msg.Err)
	if !ok {
		return nil
	}
	gone := msg.ContactID
	cache := p.updateCache(msg.GroupID, func(cs []model.Contact) []model.Contact {
		return slices.DeleteFunc(cs, func(c model.Contact) bool { return c.ID == gone })
	})
	if !shown { // another group is shown: say it
		return tea.Batch(cmdOf(statusMsg{Text: "deleted contact " + gone.String() + " from group " + msg.GroupID.String()}), cache)
	}
	said := "✓ deleted contact " + gone.String() + " from " + p.group.Name
	for i := range p.rows {
		if p.rows[i].contact.ID == msg.ContactID {
			p.note = "deleted " + p.rows[i].mobile
			said = "✓ deleted " + p.rows[i].mobile + " from " + p.group.Name
			p.rows = append(p.rows[:i], p.rows[i+1:]...)
			break
		}
	}
	p.query = "\x00"
	p.applyFilter()
	// The status bar says it too (and the message log keeps it).
	return tea.Batch(cmdOf(contactCountMsg{GroupID: p.group.ID, Count: len(p.rows), Final: true}), cache, cmdOf(statusMsg{Text: said}))
}

// addContact is the new-contact form's submit.
func (p *contactsPane) addContact(mobile, name string) tea.Cmd {
	sess, gid := p.c.session, p.group.ID
	p.setWorking("adding " + mobile + "…")
	ctx, work := p.c.startWork(workAdd, mobile+" to "+p.group.Name)
	return func() tea.Msg {
		c, err := sess.AddContact(ctx, gid, mobile, name)
		if err != nil {
			return contactAddedMsg{GroupID: gid, Err: fmt.Errorf("adding %s: %w", mobile, err), work: work}
		}
		if c.Mobile == "" {
			c.Mobile = mobile
		}
		if c.Name == "" {
			c.Name = name
		}
		return contactAddedMsg{GroupID: gid, Contact: c, work: work}
	}
}

func (p *contactsPane) added(msg contactAddedMsg) tea.Cmd {
	shown, ok := p.settled(msg.work, msg.GroupID, msg.Err)
	if !ok {
		return nil
	}
	c := msg.Contact
	cache := p.updateCache(msg.GroupID, func(cs []model.Contact) []model.Contact { return append(cs, c) })
	if !shown { // another group is shown: say it
		return tea.Batch(cmdOf(statusMsg{Text: "added " + c.Mobile + " to group " + msg.GroupID.String()}), cache)
	}
	p.rows = append(p.rows, newContactRow(msg.Contact))
	p.note = "added " + p.rows[len(p.rows)-1].mobile
	p.query = "\x00"
	p.applyFilter()
	// Select the new contact when it is shown.
	for pos, i := range p.index {
		if i == len(p.rows)-1 {
			p.cursor = pos
			p.clamp()
		}
	}
	said := "✓ added " + p.rows[len(p.rows)-1].mobile + " to " + p.group.Name
	return tea.Batch(cmdOf(contactCountMsg{GroupID: p.group.ID, Count: len(p.rows), Final: true}), cache, cmdOf(statusMsg{Text: said}))
}
