package console

import (
	"errors"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// groupsPane lists the profile's known groups: name, id and contact count.
type groupsPane struct {
	c       *common
	w, h    int
	focused bool
	groups  []model.Group
	counts  map[model.ID]int
	scroll
	loading bool
	working string // "creating group…" while a create is in flight
	err     string
}

func newGroupsPane(c *common) *groupsPane {
	return &groupsPane{c: c, counts: map[model.ID]int{}}
}

func (p *groupsPane) SetSize(w, h int)          { p.w, p.h = w, h }
func (p *groupsPane) Focus() tea.Cmd            { p.focused = true; return nil }
func (p *groupsPane) Blur()                     { p.focused = false }
func (p *groupsPane) Editing() bool             { return false }
func (p *groupsPane) LeaveField()               {}
func (p *groupsPane) busy() bool                { return p.loading || p.working != "" }
func (p *groupsPane) visibleRows() int          { return max(1, p.h-4) }
func (p *groupsPane) FullHelp() [][]key.Binding { return [][]key.Binding{p.ShortHelp()} }

// ShortHelp lists the groups pane's keys.
func (p *groupsPane) ShortHelp() []key.Binding {
	k := p.c.keys
	return p.c.forRole([]key.Binding{k.Up, k.Down, k.Enter, k.NewGroup.Binding, k.Track.Binding, k.Untrack.Binding, k.Refresh}, k.NewGroup, k.Track, k.Untrack)
}

// selected returns the group under the cursor.
func (p *groupsPane) selected() (model.Group, bool) {
	if p.cursor < 0 || p.cursor >= len(p.groups) {
		return model.Group{}, false
	}
	return p.groups[p.cursor], true
}

// load reads the known groups (the session's groups file).
func (p *groupsPane) load() tea.Cmd {
	p.loading = true
	return loadGroups(p.c.session)
}

// loadGroups reads the session's known groups with their remembered
// contact counts.
func loadGroups(sess *app.Session) tea.Cmd {
	return func() tea.Msg {
		known, err := sess.KnownGroups()
		if err != nil {
			return groupsLoadedMsg{Err: fmt.Errorf("reading known groups: %w", err)}
		}
		msg := groupsLoadedMsg{Groups: make([]model.Group, len(known)), Counts: make(map[model.ID]int, len(known))}
		for i, k := range known {
			msg.Groups[i] = k.Group
			if k.Contacts >= 0 {
				msg.Counts[k.ID] = k.Contacts
			}
		}
		return msg
	}
}

// Update handles the pane's keys and its data messages.
func (p *groupsPane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case groupsLoadedMsg:
		return p.loaded(msg)
	case groupCreatedMsg:
		return p.created(msg)
	case contactCountMsg:
		p.counts[msg.GroupID] = msg.Count
		if !msg.Final {
			return nil
		}
		return p.saveCount(msg.GroupID, msg.Count)
	case tea.MouseWheelMsg:
		p.move(wheelStep(msg))
		return nil
	case tea.KeyPressMsg:
		return p.key(msg)
	}
	return nil
}

// loaded shows the groups listed, keeping the counts this session has
// seen, and opens the first when the list was empty.
func (p *groupsPane) loaded(msg groupsLoadedMsg) tea.Cmd {
	p.loading = false
	if msg.Err != nil {
		p.err = errorLine(msg.Err)
		return nil
	}
	p.err = ""
	first := len(p.groups) == 0
	p.groups = msg.Groups
	for id, n := range msg.Counts {
		if _, seen := p.counts[id]; !seen {
			p.counts[id] = n // a count from this session is newer
		}
	}
	p.clamp()
	if first && len(p.groups) > 0 {
		return p.open()
	}
	return nil
}

// created opens a group made or tracked, asks again about a duplicate name,
// or says why it was not.
func (p *groupsPane) created(msg groupCreatedMsg) tea.Cmd {
	p.c.work.end(msg.work)
	p.working = ""
	var r *app.Refusal
	switch {
	case errors.As(msg.Err, &r) && r.Rule == app.RuleDuplicate:
		p.err = ""
		return p.askDuplicate(msg.Asked, r)
	case msg.Err != nil:
		p.err = p.c.refusalLine(msg.Err)
		return nil
	}
	p.err = ""
	p.add(msg.Group)
	verb := "created"
	if msg.Track {
		verb = "tracking"
	}
	return tea.Batch(p.open(), cmdOf(statusMsg{Text: verb + " " + groupText(msg.Group)}))
}

func (p *groupsPane) key(msg tea.KeyPressMsg) tea.Cmd {
	k := p.c.keys
	switch {
	case key.Matches(msg, k.Up):
		p.move(-1)
	case key.Matches(msg, k.Down):
		p.move(1)
	case key.Matches(msg, k.Top):
		p.move(-len(p.groups))
	case key.Matches(msg, k.Bottom):
		p.move(len(p.groups))
	case key.Matches(msg, k.Enter):
		return p.open()
	case key.Matches(msg, k.NewGroup.Binding):
		return p.c.gate(k.NewGroup.Action, func() tea.Cmd { return p.c.showModal(newGroupForm(p.c, p)) })
	case key.Matches(msg, k.Track.Binding):
		return p.c.gate(k.Track.Action, func() tea.Cmd { return p.c.showModal(trackGroupForm(p.c, p)) })
	case key.Matches(msg, k.Untrack.Binding):
		return p.untrack()
	case key.Matches(msg, k.Refresh):
		return tea.Batch(p.load(), p.open())
	}
	return nil
}

func (p *groupsPane) move(d int) {
	p.cursor += d
	p.clamp()
}

func (p *groupsPane) clamp() { p.scroll.clamp(len(p.groups), p.visibleRows()) }

// open shows the selected group's contacts.
func (p *groupsPane) open() tea.Cmd {
	g, ok := p.selected()
	if !ok {
		return nil
	}
	return cmdOf(groupSelectedMsg{Group: g})
}

// add puts a group in the list (once) and selects it.
func (p *groupsPane) add(g model.Group) {
	for i, have := range p.groups {
		if have.ID == g.ID {
			p.groups[i] = g
			p.cursor = i
			p.clamp()
			return
		}
	}
	p.groups = append(p.groups, g)
	p.cursor = len(p.groups) - 1
	p.clamp()
}

// untrack forgets the selected group (the service keeps it).
func (p *groupsPane) untrack() tea.Cmd {
	g, ok := p.selected()
	if !ok {
		return nil
	}
	return p.c.gate(p.c.keys.Untrack.Action, func() tea.Cmd { return p.askUntrack(g) })
}

// askUntrack is untrack once the operator's role allows it.
func (p *groupsPane) askUntrack(g model.Group) tea.Cmd {
	sess, ctx := p.c.session, p.c.ctx
	return p.c.showModal(newConfirm(p.c, "Untrack group?",
		fmt.Sprintf("Forget group %s (%s) on this machine?\nThe service keeps the group and its contacts; `t` tracks it again.",
			model.SanitizeLine(g.Name), g.ID),
		func() tea.Cmd {
			return func() tea.Msg {
				if _, err := sess.UntrackGroup(ctx, g.ID); err != nil {
					return groupsLoadedMsg{Err: fmt.Errorf("untracking group %s: %w", g.ID, err)}
				}
				return loadGroups(sess)()
			}
		}))
}

// createGroup is the new-group form's submit: a tea.Cmd asking the
// application layer, which checks the group's rules, then calls the service.
func (p *groupsPane) createGroup(asked app.NewGroup) tea.Cmd {
	sess := p.c.session
	p.working = "creating group…"
	ctx, work := p.c.startWork(workCreate, asked.Name)
	return func() tea.Msg {
		g, err := sess.CreateGroup(ctx, asked)
		var lost *app.NotRemembered
		switch {
		case errors.As(err, &lost):
			return groupCreatedMsg{Group: g, Err: fmt.Errorf("%w (%s tracks it by id)", err, p.c.keys.Track.Help().Key), work: work}
		case err != nil:
			return groupCreatedMsg{Asked: asked, Err: fmt.Errorf("creating group %q: %w", asked.Name, err), work: work}
		}
		return groupCreatedMsg{Group: g, work: work}
	}
}

// askDuplicate is the console's answer to a new group named as a known
// one (the CLI's is --allow-duplicate): the application layer's reason,
// then whether to create it all the same; the default is No.
func (p *groupsPane) askDuplicate(asked app.NewGroup, r *app.Refusal) tea.Cmd {
	body := r.Reason + ".\n\nThe service cannot list groups: a second group of that name is told apart by its id only.\n" +
		"y creates it all the same; the default is No."
	return p.c.showModal(newConfirm(p.c, "Create another group named "+r.Name+"?", body, func() tea.Cmd {
		asked.AllowDuplicate = true
		return p.createGroup(asked)
	}))
}

// trackGroup remembers a group made elsewhere, once the service says it
// has it.
func (p *groupsPane) trackGroup(id model.ID, name string) tea.Cmd {
	sess := p.c.session
	p.working = "checking group " + id.String() + "…"
	ctx, work := p.c.startWork(workTrack, id.String())
	return func() tea.Msg {
		g, err := sess.TrackGroup(ctx, id, name)
		if err != nil {
			return groupCreatedMsg{Err: fmt.Errorf("tracking group %s: %w", id, err), work: work}
		}
		return groupCreatedMsg{Group: g, Track: true, work: work}
	}
}

// View draws the pane inside its border.
func (p *groupsPane) View() string {
	st := p.c.styles
	iw, ih := p.w-2, p.h-2
	title := fmt.Sprintf("Groups (%d)", len(p.groups))
	if p.busy() {
		title += " " + p.c.spin
	}
	idw, cw := 8, 7
	nw := iw - idw - cw - 3
	lines := []string{
		st.Title.Render(p.c.text(title, iw)),
		st.Header.Render(" " + fit("NAME", nw) + " " + fit("ID", idw) + " " + fitRight("COUNT", cw)),
	}
	switch {
	case p.err != "":
		lines = append(lines, st.Error.Render(p.c.text(p.err, iw)))
	case p.working != "":
		lines = append(lines, st.Muted.Render(p.c.text(p.working, iw)))
	case len(p.groups) == 0 && !p.loading:
		lines = append(lines, st.Muted.Render(fit("No known groups.", iw)),
			st.Muted.Render(fit("n: create one · t: track by id", iw)))
	}
	end := min(len(p.groups), p.offset+ih-len(lines))
	for i := p.offset; i < end; i++ {
		g := p.groups[i]
		count := "–"
		if n, ok := p.counts[g.ID]; ok {
			count = thousands(n)
		}
		mark := " "
		if i == p.cursor {
			mark = "›"
		}
		row := mark + p.c.text(g.Name, nw) + " " + fit(string(g.ID), idw) + " " + fitRight(count, cw)
		if i == p.cursor {
			row = st.Selected.Render(row)
		}
		lines = append(lines, row)
	}
	return p.frame(strings.Join(lines, "\n"), iw, ih)
}

// saveCount remembers a group's contact count in the profile's groups
// file, off the UI goroutine.
func (p *groupsPane) saveCount(id model.ID, n int) tea.Cmd {
	sess, writes := p.c.session, p.c.writes
	return func() tea.Msg {
		var err error
		// A cache, as the contacts' is: waited for at the console's end, not
		// made after it (it landed in a served session's state directory as
		// a test removed it).
		writes.do(func() { err = sess.RememberContacts(id, n) })
		if err != nil {
			return statusMsg{Err: fmt.Errorf("remembering the contact count of group %s: %w", id, err)}
		}
		return nil
	}
}

// frame draws the pane's border, highlighted while focused.
func (p *groupsPane) frame(body string, iw, ih int) string {
	style := p.c.styles.Pane
	if p.focused {
		style = p.c.styles.PaneBeside
	}
	return style.Render(block(body, iw, ih))
}

// groupText names a group for the status bar as the layer names a send's
// source: "group Newsletter (4)", or "group 1" for one tracked by id alone,
// whose name is "group 1" (it read "group group 1 (1)").
func groupText(g model.Group) string { return app.GroupSource(g.ID, g.Name).Name }
