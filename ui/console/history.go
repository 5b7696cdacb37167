package console

import (
	"fmt"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// historyEntry is one past send as the history pane lists it.
type historyEntry struct {
	ID       string
	When     string
	Profile  string
	Sender   string
	Source   string
	Counts   model.StateCounts
	Total    int
	Status   string // app.SendStatus: complete, interrupted, stopped or running
	Err      string
	Operator string // who sent it on a served console ("" locally), or scheduled it
	// Waiting: a scheduled send waiting for its time (At); Runner is what
	// started a scheduled one (serve, scheduler, cron), Cancel why one
	// never started ("cancelled by sara", "missed: …").
	Waiting bool
	At      time.Time
	Runner  string
	Cancel  string
	Pending int            // messages it will send
	key     app.HistoryKey // its place in the history, for the next page
}

// historyPane lists past sends, the scheduled ones first then newest
// first, a page at a time from the ledger (history_load.go): the sends of
// this profile against its service, or with a every profile's; / filters
// them by id, sender, source, profile or who sent them.
type historyPane struct {
	c       *common
	w, h    int
	entries []historyEntry // the pages read: a window of the history
	top     bool           // entries start at the history's top
	end     bool           // entries end at the history's end
	count   int            // the sends listed in all (no filter), as last counted
	cursor  int
	offset  int // the first entry shown
	target  int // where the cursor goes once the page it asked for is read
	loading bool
	seq     int // the last load asked: only its answer is taken
	err     string
	all     bool // listing every profile's sends
	// filter is the / field; match the text the list is filtered by.
	filter textinput.Model
	match  string
	// refilter: the filter changed while a page was read; it is read
	// again once that answers (one read at a time, whatever the typing).
	refiltered bool

	detail *historyDetail // the send opened with enter, nil on the list
}

func newHistoryPane(c *common) *historyPane {
	f := textinput.New()
	f.Prompt = "/ "
	f.Placeholder = "id, sender, group or file, who sent it"
	steadyInput(&f, c.dark())
	return &historyPane{c: c, filter: f, count: -1}
}

func (p *historyPane) SetSize(w, h int) { p.w, p.h = w, h; p.clampView() }
func (p *historyPane) Focus() tea.Cmd   { return nil }
func (p *historyPane) Blur()            { p.filter.Blur() }
func (p *historyPane) Editing() bool    { return p.filter.Focused() }
func (p *historyPane) LeaveField()      { p.filter.Blur() }
func (p *historyPane) busy() bool       { return p.loading || p.detail != nil && p.detail.loading }

// ShortHelp lists the history screen's keys (the filter's while it is open).
func (p *historyPane) ShortHelp() []key.Binding {
	k := p.c.keys
	switch {
	case p.detail != nil:
		return p.detailHelp()
	case p.Editing():
		return []key.Binding{k.Submit, k.Back}
	}
	keys := []key.Binding{k.Up, k.Down, k.Enter, k.Filter, k.AllProfiles, k.GoBack} // r refreshes too (help, Lists)
	if len(p.entries) > 0 && p.entries[p.cursor].Waiting {
		keys = p.c.forRole(append(keys[:3:3], k.CancelScheduled.Binding, k.Filter, k.AllProfiles, k.GoBack), k.CancelScheduled)
	}
	return keys
}

// FullHelp lists the history screen's keys.
func (p *historyPane) FullHelp() [][]key.Binding { return [][]key.Binding{p.ShortHelp()} }

// Update handles the history's pages, a send's detail and the keys.
func (p *historyPane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case historyLoadedMsg:
		p.loaded(msg)
		if p.refiltered && !p.loading {
			p.refiltered = false
			return p.loadPage(pageTop)
		}
	case historyDetailMsg:
		return p.detailLoaded(msg)
	case resumePreparedMsg:
		return p.resumePrepared(msg)
	case resendPreparedMsg:
		return p.resendPrepared(msg)
	case scheduleCancelledMsg:
		return p.cancelled(msg)
	case tea.KeyPressMsg:
		switch {
		case p.detail != nil:
			return p.detailKey(msg)
		case p.filter.Focused():
			return p.filterKey(msg)
		}
		return p.key(msg)
	case tea.PasteMsg:
		if p.filter.Focused() {
			return p.filterKey(msg)
		}
	}
	return nil
}

// key handles the list's keys: the cursor (reading the next page when it
// goes past the sends read), enter, R, x, a, r, / and esc.
func (p *historyPane) key(msg tea.KeyPressMsg) tea.Cmd {
	k := p.c.keys
	if cmd, ok := p.moveKey(msg); ok {
		return cmd
	}
	switch {
	case key.Matches(msg, k.Enter) && len(p.entries) > 0:
		return p.open(p.entries[p.cursor].ID)
	case key.Matches(msg, k.Resume.Binding) && len(p.entries) > 0:
		// R on the list: open the send, then ask as R in its detail does.
		cmd := p.open(p.entries[p.cursor].ID)
		p.detail.resumeWhenLoaded = true
		return cmd
	case key.Matches(msg, k.CancelScheduled.Binding) && len(p.entries) > 0:
		return p.askCancel(p.entries[p.cursor])
	case key.Matches(msg, k.AllProfiles):
		p.all, p.count = !p.all, -1
		return p.loadPage(pageTop)
	case key.Matches(msg, k.Refresh):
		return p.load()
	case key.Matches(msg, k.Filter):
		return p.filter.Focus()
	case key.Matches(msg, k.Back) && p.match != "":
		p.filter.SetValue("")
		return p.refilter()
	case key.Matches(msg, k.Back):
		return p.c.back()
	}
	return nil
}

// moveKey moves the cursor for ↑/↓, pgup/pgdn, g and G, reading the page
// it goes to when that page is not read yet; ok reports whether msg was
// one of them.
func (p *historyPane) moveKey(msg tea.KeyPressMsg) (cmd tea.Cmd, ok bool) {
	k := p.c.keys
	switch {
	case key.Matches(msg, k.Up):
		return p.moveTo(p.cursor - 1), true
	case key.Matches(msg, k.Down):
		return p.moveTo(p.cursor + 1), true
	case key.Matches(msg, k.PageUp):
		return p.moveTo(p.cursor - p.rows()), true
	case key.Matches(msg, k.PageDown):
		return p.moveTo(p.cursor + p.rows()), true
	case key.Matches(msg, k.Top) && p.top:
		return p.moveTo(0), true
	case key.Matches(msg, k.Top):
		return p.loadPage(pageTop), true
	case key.Matches(msg, k.Bottom) && p.end:
		return p.moveTo(len(p.entries) - 1), true
	case key.Matches(msg, k.Bottom):
		return p.loadPage(pageEnd), true // the oldest, at once: a page from the end
	}
	return nil, false
}

// moveTo puts the cursor on entry i; past the sends read, on the last (or
// first) of them, and the next page is read, the cursor going on to i
// once it is.
func (p *historyPane) moveTo(i int) tea.Cmd {
	var cmd tea.Cmd
	switch {
	case i >= len(p.entries) && !p.end && !p.loading:
		p.target = i
		cmd = p.loadPage(pageDown)
	case i < 0 && !p.top && !p.loading:
		p.target = i
		cmd = p.loadPage(pageUp)
	}
	p.cursor = max(0, min(i, len(p.entries)-1))
	p.clampView()
	return cmd
}

// rows is how many sends the list shows at once.
func (p *historyPane) rows() int {
	head := 3 // the title, the filter's line, the columns
	if p.err != "" {
		head++
	}
	return max(1, p.h-2-head)
}

// clampView keeps the cursor's row on the screen.
func (p *historyPane) clampView() {
	n := p.rows()
	p.offset = max(0, min(p.offset, p.cursor, len(p.entries)-1))
	if p.cursor >= p.offset+n {
		p.offset = p.cursor - n + 1
	}
}

// filterKey handles the / field: every key types, each change reads the
// list again by it; enter keeps it and leaves the field, esc clears it.
func (p *historyPane) filterKey(msg tea.Msg) tea.Cmd {
	k := p.c.keys
	if km, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(km, k.Back):
			p.filter.SetValue("")
			p.filter.Blur()
			return p.refilter()
		case key.Matches(km, k.Submit):
			p.filter.Blur()
			return nil
		}
	}
	var cmd tea.Cmd
	p.filter, cmd = p.filter.Update(msg)
	return tea.Batch(cmd, p.refilter())
}

// refilter reads the list's top again when the filter's text changed.
func (p *historyPane) refilter() tea.Cmd {
	match := model.SanitizeLine(p.filter.Value())
	if match == p.match {
		return nil
	}
	p.match = match
	if p.loading {
		p.refiltered = true // read once the page being read answers
		return nil
	}
	return p.loadPage(pageTop)
}

// by is the BY column of a served console's history (app.ByText).
func (e historyEntry) by() string { return app.ByText(e.Operator, e.Runner) }

// outcome is what became of the send, in words: its status, then the
// outcomes its recipients had (none left out but those none had), so that
// the column says it whole at 80 columns where it can ("complete · 297
// accepted, 3 opted out": it said "complete · 300 it…").
func (e historyEntry) outcome(now time.Time) string {
	switch {
	case e.Err != "":
		return "unreadable: " + e.Err
	case e.Waiting:
		return fmt.Sprintf("scheduled · %s · %s", model.DueText(e.At, now), model.Counted(e.Pending, "message"))
	case e.Cancel != "":
		return fmt.Sprintf("%s · %s, none sent", e.Cancel, model.Counted(e.Pending, "message")) // as while it waited: the opted out were never to go
	}
	return e.Status + " · " + outcomeCounts(e.Counts, nil)
}
