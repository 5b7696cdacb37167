package console

import (
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/model"
)

// contactRow is one contact with its display strings sanitised once, at load,
// and a lower-cased search key, so neither rendering nor filtering allocates.
type contactRow struct {
	contact model.Contact
	id      string
	name    string
	mobile  string
	search  string
}

func newContactRow(c model.Contact) contactRow {
	r := contactRow{contact: c, id: model.SanitizeLine(string(c.ID)),
		name: model.SanitizeLine(c.Name), mobile: model.SanitizeLine(c.Mobile)}
	// The key forgives Persian spelling (model.FoldSearch: ي/ی, ك/ک, alef
	// forms, ZWNJ, digits) and holds the number in both spellings, so that
	// "علی" finds "علي" and "+98912" finds "0912…".
	key := r.name + "\x00" + r.mobile + "\x00" + r.id
	if local, err := model.NormalizeMobile(c.Mobile, model.FormatLocal); err == nil && local != r.mobile {
		key += "\x00" + local
	}
	r.search = model.FoldSearch(key)
	return r
}

// contactsPane is the selected group's contact table. It renders only the
// visible rows and filters on each keystroke into an index slice, never in View.
type contactsPane struct {
	c       *common
	w, h    int
	focused bool

	group model.Group
	// optOuts are the opt-out list's entries for the contacts' numbers
	// (OptOutKeys) on it, as last looked up (optOutAt: by which look-up,
	// of optOutSeq asked; answers to those up to optOutsFrom, asked for
	// another group, are dropped); optOutsKnown once one has answered.
	optOuts      map[string][]model.OptOut
	optOutAt     map[string]int
	optOutSeq    int
	optOutsFrom  int
	optOutsKnown bool
	rows         []contactRow
	index        []int // rows shown, in order: all of them or the filter's matches
	scroll             // positions in index
	filter       textinput.Model
	query        string // the filter index was built for
	loadID       int
	loading      bool
	progress     client.ListProgress
	// The load in flight is the pane's: cancelled when another replaces it
	// (another group opened, r), so it makes no further request.
	cancelLoad func()
	loadStart  time.Time
	// cachedAt is when the rows shown were listed, while they come from the
	// cache and a refresh is on its way; zero once the rows are fresh.
	cachedAt time.Time
	working  string // an add, a delete or an import's check in flight, for group workingFor
	// workingFor is the group the work in flight is for: its line shows only
	// while that group is open.
	workingFor model.ID
	// imports are the imports adding rows, by group: each goes on when
	// another group is opened, its line shows over its own group only, and
	// esc there stops it.
	imports map[model.ID]*importRun
	// unfinished: summaries of imports that stopped early this session, for
	// the report printed when the console ends.
	unfinished []string
	note       string
	err        string
}

// importRun is an import adding rows: its work id, its progress line and
// when it began (its ETA).
type importRun struct {
	work        int
	text        string
	began       time.Time
	group, path string // for the exit report
	done, total int    // rows attempted so far, of total
}

func newContactsPane(c *common) *contactsPane {
	f := textinput.New()
	f.Prompt = "/ "
	f.Placeholder = "name or number"
	steadyInput(&f, c.dark())
	return &contactsPane{c: c, filter: f, imports: map[model.ID]*importRun{}}
}

func (p *contactsPane) SetSize(w, h int) { p.w, p.h = w, h; p.clamp() }
func (p *contactsPane) Focus() tea.Cmd   { p.focused = true; return nil }
func (p *contactsPane) Blur()            { p.focused = false; p.filter.Blur() }
func (p *contactsPane) Editing() bool    { return p.filter.Focused() }
func (p *contactsPane) LeaveField()      { p.filter.Blur() }
func (p *contactsPane) busy() bool {
	return p.loading || p.working != "" || len(p.imports) > 0
}

// FullHelp lists the contact table's keys.
func (p *contactsPane) FullHelp() [][]key.Binding { return [][]key.Binding{p.ShortHelp()} }

// ShortHelp lists the contact table's keys (the filter's while it is open).
func (p *contactsPane) ShortHelp() []key.Binding {
	k := p.c.keys
	if p.Editing() {
		return []key.Binding{k.Submit, k.Back}
	}
	if p.imports[p.group.ID] != nil && p.filter.Value() == "" {
		return p.c.forRole([]key.Binding{k.StopImport, k.Up, k.Down, k.Filter, k.NewContact.Binding, k.Delete.Binding, k.OptOut.Binding, k.Export.Binding, k.Refresh}, k.NewContact, k.Delete, k.OptOut, k.Export)
	}
	return p.c.forRole([]key.Binding{k.Up, k.Down, k.Filter, k.NewContact.Binding, k.Delete.Binding, k.Import.Binding, k.OptOut.Binding, k.Export.Binding, k.Refresh}, k.NewContact, k.Delete, k.Import, k.OptOut, k.Export)
}

// allContacts returns the loaded contacts (for the composer).
func (p *contactsPane) allContacts() []model.Contact {
	out := make([]model.Contact, len(p.rows))
	for i, r := range p.rows {
		out[i] = r.contact
	}
	return out
}

// visibleRows is how many table rows fit.
func (p *contactsPane) visibleRows() int {
	n := p.h - 2 - 3 // border, title, filter line, header
	if p.note != "" || p.err != "" || p.workingText() != "" || p.loading && len(p.rows) > 0 {
		n--
	}
	return max(1, n)
}

// Update handles keys, the filter field and the pane's data messages.
func (p *contactsPane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case groupSelectedMsg:
		return p.open(msg.Group)
	case contactsCachedMsg:
		return p.cached(msg)
	case contactsProgressMsg:
		return p.page(msg)
	case contactsLoadedMsg:
		return p.loaded(msg)
	case contactAddedMsg:
		return p.added(msg)
	case contactDeletedMsg:
		return p.deleted(msg)
	case importFileMsg:
		return p.startImport(msg)
	case optOutsMsg:
		return p.optOutsRead(msg)
	case importPreviewMsg, importProgressMsg, importDoneMsg:
		return p.importUpdate(msg)
	case exportDoneMsg:
		return p.exported(msg)
	case tea.MouseWheelMsg:
		p.move(3 * wheelStep(msg))
		return nil
	case tea.KeyPressMsg:
		if p.filter.Focused() {
			return p.filterKey(msg)
		}
		return p.key(msg)
	case tea.PasteMsg:
		return p.paste(msg)
	}
	return nil
}

// wheelStep is the way a wheel turns: -1 up, 1 down, 0 for any other button.
func wheelStep(msg tea.MouseWheelMsg) int {
	switch msg.Button {
	case tea.MouseWheelUp:
		return -1
	case tea.MouseWheelDown:
		return 1
	}
	return 0
}

// paste types pasted text into the filter when it has focus.
func (p *contactsPane) paste(msg tea.PasteMsg) tea.Cmd {
	if !p.filter.Focused() {
		return nil
	}
	var cmd tea.Cmd
	p.filter, cmd = p.filter.Update(msg)
	p.applyFilter()
	return cmd
}

// setContacts replaces the table's rows, keeping the filter.
func (p *contactsPane) setContacts(cs []model.Contact) {
	p.rows = make([]contactRow, len(cs))
	for i, c := range cs {
		p.rows[i] = newContactRow(c)
	}
	p.query = "\x00" // force a full rebuild
	p.applyFilter()
}

// applyFilter rebuilds the index for the filter's text. When the new text
// extends the old one it narrows the previous matches instead of rescanning.
func (p *contactsPane) applyFilter() {
	q := model.FoldNumberQuery(p.filter.Value())
	if q == p.query {
		return
	}
	narrow := p.query != "\x00" && strings.HasPrefix(q, p.query) && p.index != nil
	p.query = q
	switch {
	case q == "":
		p.index = make([]int, len(p.rows))
		for i := range p.index {
			p.index[i] = i
		}
	case narrow:
		kept := p.index[:0]
		for _, i := range p.index {
			if strings.Contains(p.rows[i].search, q) {
				kept = append(kept, i)
			}
		}
		p.index = kept
	default:
		idx := make([]int, 0, len(p.rows)/4)
		for i := range p.rows {
			if strings.Contains(p.rows[i].search, q) {
				idx = append(idx, i)
			}
		}
		p.index = idx
	}
	p.clamp()
}

func (p *contactsPane) filterKey(msg tea.KeyPressMsg) tea.Cmd {
	k := p.c.keys
	switch {
	case key.Matches(msg, k.Back):
		p.filter.SetValue("")
		p.filter.Blur()
		p.applyFilter()
		return nil
	case key.Matches(msg, k.Submit):
		p.filter.Blur()
		return nil
	}
	var cmd tea.Cmd
	p.filter, cmd = p.filter.Update(msg)
	p.applyFilter()
	return cmd
}

// key handles a key on the table: the cursor's moves, the filter, and what
// may be done to the open group.
func (p *contactsPane) key(msg tea.KeyPressMsg) tea.Cmd {
	if d, ok := cursorMove(p.c.keys, msg, p.visibleRows(), len(p.index)); ok {
		p.move(d)
		return nil
	}
	k := p.c.keys
	switch {
	case key.Matches(msg, k.Filter):
		return p.filter.Focus()
	case key.Matches(msg, k.StopImport) && p.filter.Value() == "" && p.imports[p.group.ID] != nil:
		p.stopImport()
	case key.Matches(msg, k.Back):
		if p.filter.Value() != "" {
			p.filter.SetValue("")
			p.applyFilter()
		}
	case key.Matches(msg, k.Refresh):
		if !p.group.ID.IsZero() {
			return p.refresh()
		}
	case key.Matches(msg, k.NewContact.Binding):
		return p.newContact()
	case key.Matches(msg, k.Delete.Binding):
		return p.confirmDelete()
	case key.Matches(msg, k.OptOut.Binding):
		return p.confirmOptOut()
	case key.Matches(msg, k.Import.Binding):
		return p.importKey()
	case key.Matches(msg, k.Export.Binding):
		return p.exportKey()
	}
	return nil
}

// cursorMove is how far a key moves a list's cursor over n rows, page of
// them in view, and whether it is a key that moves it.
func cursorMove(k *KeyMap, msg tea.KeyPressMsg, page, n int) (int, bool) {
	for _, m := range []struct {
		b  key.Binding
		by int
	}{{k.Up, -1}, {k.Down, 1}, {k.PageUp, -page}, {k.PageDown, page}, {k.Top, -n}, {k.Bottom, n}} {
		if key.Matches(msg, m.b) {
			return m.by, true
		}
	}
	return 0, false
}

// newContact opens the form for a contact in the open group.
func (p *contactsPane) newContact() tea.Cmd {
	if p.group.ID.IsZero() {
		return cmdOf(statusMsg{Text: "open a group first (enter in the groups pane)"})
	}
	k := p.c.keys
	return p.c.gate(k.NewContact.Action, func() tea.Cmd { return p.c.showModal(newContactForm(p.c, p)) })
}

// importKey opens the import form for the open group, unless one runs into it.
func (p *contactsPane) importKey() tea.Cmd {
	if p.group.ID.IsZero() {
		return cmdOf(statusMsg{Text: "open a group first (enter in the groups pane)"})
	}
	if p.imports[p.group.ID] != nil {
		return cmdOf(statusMsg{Text: "an import into this group is running: wait for it, or esc stops it"})
	}
	k := p.c.keys
	return p.c.gate(k.Import.Action, func() tea.Cmd { return p.c.showModal(importForm(p.c, p)) })
}

// exportKey opens the export form, unless the table is empty.
func (p *contactsPane) exportKey() tea.Cmd {
	if len(p.rows) == 0 {
		return cmdOf(statusMsg{Text: "nothing to export: the table is empty"})
	}
	k := p.c.keys
	return p.c.gate(k.Export.Action, func() tea.Cmd { return p.c.showModal(exportForm(p.c, p)) })
}

func (p *contactsPane) move(d int) {
	p.cursor += d
	p.clamp()
}

// clamp keeps the cursor on a row and in view.
// The table never scrolls past its last row.
func (p *contactsPane) clamp() {
	rows := p.visibleRows()
	p.scroll.clamp(len(p.index), rows)
	if p.offset > max(0, len(p.index)-rows) {
		p.offset = max(0, len(p.index)-rows)
	}
}

// selected returns the contact under the cursor.
func (p *contactsPane) selected() (contactRow, bool) {
	if p.cursor < 0 || p.cursor >= len(p.index) {
		return contactRow{}, false
	}
	return p.rows[p.index[p.cursor]], true
}

// setWorking says what the open group's work in flight is ("" when none).
func (p *contactsPane) setWorking(text string) {
	p.working, p.workingFor = text, p.group.ID
	if text == "" {
		p.workingFor = ""
	}
}

// workingText is the work line for the group shown, if its work is in flight.
func (p *contactsPane) workingText() string {
	if imp := p.imports[p.group.ID]; imp != nil {
		return imp.text
	}
	if p.workingFor != p.group.ID {
		return ""
	}
	return p.working
}
