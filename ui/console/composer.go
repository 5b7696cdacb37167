package console

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// composeSource says where the composer's rows come from.
type composeSource int

const (
	sourceTemplate composeSource = iota // the group's contacts and a template
	sourceCSV                           // a pairs CSV file
	sourceManual                        // rows typed (or edited) by hand
)

func (s composeSource) String() string {
	return [...]string{"template", "pairs CSV", "typed rows"}[s]
}

// livePlanLimit is the most rows re-planned on every keystroke in the message
// editor; larger sends re-plan when the operator leaves the editor.
const livePlanLimit = 5000

// composerPane builds a paired send: rows of (recipient, message) from a
// template over the group's contacts, a pairs CSV or typed rows; it shows each
// row's normalised recipient, preview, characters, encoding, parts and problems.
type composerPane struct {
	c       *common
	w, h    int
	focused bool

	group     model.Group
	contacts  []model.ContactRow
	source    composeSource
	csvPath   string
	csvLayout model.PairsLayout // how the file's columns were read
	sentKey   string            // draftKey of the draft last sent
	// scheduledAs is the send the draft last sent was scheduled as ("":
	// it was sent at once, and the results show what became of it).
	scheduledAs string
	editor      textarea.Model
	rows        []model.PairRow
	plan        *model.SendPlan
	stale       bool                      // the plan predates the editor's text
	tmplErr     string                    // why the template cannot be rendered
	senderPick  senderPick                // the profile's line or one typed for this send
	kinds       map[string]model.LineKind // the account's lines' kinds, as last read (composer_lines.go)
	kindsRead   bool                      // the latest read of them has answered
	// optOuts is the opt-out list's entries for the draft's recipients, as
	// its latest look-up (optOutSeq) answered: the rows on it are marked
	// and left out of the totals, as the send's confirmation, which looks
	// them up again, leaves them out (app.MarkOptedOut).
	optOuts   *model.OptOutList
	optOutSeq int
	// looking: the latest look-up has not answered; sendAfterLookup:
	// ctrl+s came meanwhile, and checks the plan once it has (a plan
	// checked while its marks may still change would be refused as
	// changed: the rows of a file just opened).
	looking, sendAfterLookup bool
	// later is the quiet hours a new send was refused at, while t offers
	// to send it later (composer_schedule.go); nil when it does not.
	later *app.QuietWindow
	scroll
	note string
	// reply is the inbox message the draft answers (inbox_reply.go); nil
	// for any other draft.
	reply *inboxReplyMsg
	// editing: the editor had the keys when the composer was left;
	// compose: the composer is being entered with c (composeNext).
	editing, compose bool
}

func newComposerPane(c *common) *composerPane {
	ed := textarea.New()
	ed.Placeholder = "Message — {name} and {mobile} are filled in per contact"
	ed.ShowLineNumbers = false
	ed.CharLimit = 0
	ed.MaxHeight = 0
	steadyArea(&ed, c.dark())
	ed.SetHeight(3)
	return &composerPane{c: c, editor: ed, senderPick: newSenderPick(c.dark())}
}

func (p *composerPane) SetSize(w, h int) {
	p.w, p.h = w, h
	p.editor.SetWidth(w - 4)
	p.clamp()
}

// Focus gives the composer the keys. Entered with c (compose), the
// message editor has them whenever the rows come from a template, empty or
// not: a draft opened again took "o" as the CSV picker when only an empty
// editor's keys were text (issue 35). Back from a look (help, the log, the
// history), the keys are where they were when it was left: the editor's,
// or the row keys after esc (back from the log, the editor had them and
// "?" typed a "?" into the template: issue 40). Rows from a file or typed
// by hand have no text to type into: their keys are the row keys.
func (p *composerPane) Focus() tea.Cmd {
	p.focused = true
	edit := p.editing
	if p.compose {
		edit, p.compose = true, false
	}
	if edit && p.source == sourceTemplate {
		return p.editor.Focus()
	}
	return nil
}

// Blur takes the keys away, remembering whether the editor had them.
func (p *composerPane) Blur() {
	p.focused, p.editing = false, p.editor.Focused()
	p.editor.Blur()
	p.senderPick.input.Blur()
}

// composeNext makes the next Focus put the keys in the message editor: the
// composer is entered to write (c).
func (p *composerPane) composeNext() { p.compose = true }

func (p *composerPane) busy() bool { return false }

// Editing reports whether the message editor or the sender field has focus.
func (p *composerPane) Editing() bool { return p.editor.Focused() || p.senderPick.input.Focused() }

// LeaveField leaves the message editor or the sender field and re-plans.
func (p *composerPane) LeaveField() {
	p.editor.Blur()
	p.senderPick.input.Blur()
	p.replan()
}

// ShortHelp lists the composer's keys (the editor's while it has focus).
func (p *composerPane) ShortHelp() []key.Binding {
	k := p.c.keys
	if p.senderPick.input.Focused() {
		return p.senderHelp()
	}
	if p.Editing() {
		return []key.Binding{k.Send, k.LeaveField}
	}
	// Most important first: the footer drops keys from the end to fit.
	keys := []key.Binding{k.Send, k.Template, k.LoadCSV, k.Sender, k.AddRow, k.EditRow, k.RemoveRow, k.GoBack}
	if p.later != nil { // the way on from a quiet-hours refusal, first
		keys = append([]key.Binding{p.laterKey()}, keys...)
	}
	return keys
}

// FullHelp lists the composer's keys.
func (p *composerPane) FullHelp() [][]key.Binding { return [][]key.Binding{p.ShortHelp()} }

// Reset starts a new send over a group's contacts (template source).
func (p *composerPane) Reset(g model.Group, contacts []model.Contact) {
	p.group = g
	p.contacts = app.ContactRows(contacts)
	p.source = sourceTemplate
	p.csvPath, p.note, p.tmplErr = "", "", ""
	p.csvLayout = model.PairsLayout{}
	p.cursor, p.offset = 0, 0
	p.senderPick.reset(*p.c.profile)
	p.editor.Reset()
	p.rows, p.later, p.reply = nil, nil, nil
	p.replan()
}

// hasDraft reports whether the composer holds anything the operator wrote
// or loaded: a template, rows, a file.
func (p *composerPane) hasDraft() bool {
	return p.editor.Value() != "" || len(p.rows) > 0 && p.source != sourceTemplate
}

// draftKey is the draft as it stands (its source, file, template and rows),
// to tell a draft that was sent from one written since.
func (p *composerPane) draftKey() string {
	return fmt.Sprintf("%d\x00%s\x00%s\x00%v", p.source, p.csvPath, p.editor.Value(), p.rows)
}

// markSent records the draft as sent: quitting does not ask about it.
// scheduled says it was scheduled as that send ("" sent now).
func (p *composerPane) markSent(scheduled string) { p.sentKey, p.scheduledAs = p.draftKey(), scheduled }

// unsentDraft reports whether the composer holds a draft that was not sent
// as it stands: quitting would lose it.
func (p *composerPane) unsentDraft() bool { return p.hasDraft() && p.draftKey() != p.sentKey }

// refreshContacts puts a group's contacts as they are now under the draft
// (its template and sender stay).
func (p *composerPane) refreshContacts(contacts []model.Contact) {
	p.contacts = app.ContactRows(contacts)
	p.replan()
}

// senderLine is the chosen sender line: one of the profile's, or the one
// typed for this send.
func (p *composerPane) senderLine() string { return p.senderPick.line() }

// replan renders the template (in template mode) and rebuilds the plan.
func (p *composerPane) replan() {
	p.stale = false
	if p.source == sourceTemplate {
		p.tmplErr = ""
		p.rows = nil
		if text := p.editor.Value(); text != "" {
			t, err := model.ParseTemplate(text)
			if err == nil {
				p.rows, err = model.PairsFromTemplate(t, p.contacts)
			}
			if err != nil {
				p.tmplErr = errorLine(err)
			}
		}
	}
	rules := p.c.rules.ForLineKind(p.kinds[p.senderLine()]) // a service line's suffix, as the send will have it
	p.plan, _ = app.MarkOptedOut(p.c.session.PlanIn(rules, p.senderLine(), p.rows), p.optOuts)
	p.clamp()
}

// lookupOptOuts looks the draft's recipients up on the opt-out list (the
// group's contacts and the rows: a file's or typed ones may be anyone),
// by number, never the whole list; its answer plans again. An answer to
// an earlier look-up is dropped: it may not know the rows now.
func (p *composerPane) lookupOptOuts() tea.Cmd {
	numbers := make([]string, 0, len(p.contacts)+len(p.rows))
	for _, c := range p.contacts {
		numbers = append(numbers, c.Mobile)
	}
	for _, r := range p.rows {
		numbers = append(numbers, r.Recipient)
	}
	p.optOutSeq++
	p.looking = true
	return tea.Batch(owned(p.c.reads, lookupOptOuts(p.c.ctx, p.c.session, forComposer, p.optOutSeq, numbers, "", nil)), p.readLineKinds())
}

// optOutsRead plans again with the opt-out list as read. A list that
// marks the same rows keeps the plan as it was: a check it is under (ctrl+s)
// is not told "the plan changed" by a read that changed nothing.
func (p *composerPane) optOutsRead(l *model.OptOutList) {
	p.optOuts = l
	old, stale := p.plan, p.stale
	p.replan()
	if old != nil && !stale && sameOptedOut(old, p.plan) {
		p.plan = old
	}
}

// sameOptedOut reports whether two plans have the same items marked opted out.
func sameOptedOut(a, b *model.SendPlan) bool {
	if len(a.Items) != len(b.Items) {
		return false
	}
	for i := range a.Items {
		if a.Items[i].OptedOut != b.Items[i].OptedOut {
			return false
		}
	}
	return true
}

// toManual turns the current rows into hand-edited rows (after an edit, a
// template no longer applies).
func (p *composerPane) toManual() {
	if p.source == sourceManual {
		return
	}
	if p.source == sourceTemplate {
		p.note = "rows edited by hand: the template no longer applies"
		p.editor.Blur()
	}
	p.source = sourceManual
}

func (p *composerPane) clamp() { p.scroll.clamp(p.planLen(), p.tableRows()) }

// planLen is the number of planned rows.
func (p *composerPane) planLen() int {
	if p.plan == nil {
		return 0
	}
	return len(p.plan.Items)
}

// tableRows is how many plan rows fit between the head (the editor and
// its counter) and the foot (the totals and a note).
func (p *composerPane) tableRows() int {
	iw := p.w - 2
	return max(1, min(p.h-2-12, p.h-2-p.headRows(iw)-len(p.foot(iw))))
}

// Update handles the editor, the row keys and the composer's messages.
func (p *composerPane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case composerMsg:
		return p.apply(msg)
	case sendPreparedMsg:
		return p.askToSend(msg)
	case scheduledMsg:
		return p.scheduled(msg)
	case optOutsMsg:
		return p.optOutsAnswered(msg)
	case tea.KeyPressMsg:
		return p.press(msg)
	case tea.PasteMsg:
		if p.editor.Focused() {
			return p.edit(msg)
		}
	}
	var cmd tea.Cmd
	switch {
	case p.editor.Focused():
		p.editor, cmd = p.editor.Update(msg)
	case p.senderPick.input.Focused():
		p.senderPick.input, cmd = p.senderPick.input.Update(msg)
	}
	return cmd
}

// optOutsAnswered takes the answer to the latest look-up of the draft's
// recipients on the opt-out list (an earlier one's is dropped), and checks
// the plan a ctrl+s waited for it with.
func (p *composerPane) optOutsAnswered(msg optOutsMsg) tea.Cmd {
	if msg.For != forComposer || msg.Seq != p.optOutSeq {
		return nil
	}
	p.looking = false
	if msg.List != nil {
		p.optOutsRead(msg.List)
	}
	if p.sendAfterLookup {
		p.sendAfterLookup = false
		return p.confirmSend()
	}
	return nil
}

// press routes a key: ctrl+s wherever the focus is, then the sender field
// or the editor when one has it, else the row keys.
func (p *composerPane) press(msg tea.KeyPressMsg) tea.Cmd {
	k := p.c.keys
	switch {
	case key.Matches(msg, k.Send):
		return p.confirmSend()
	case p.senderPick.input.Focused():
		return p.senderKey(msg)
	case p.editor.Focused() && key.Matches(msg, k.LeaveField):
		p.LeaveField()
		return nil
	case p.editor.Focused():
		return p.edit(msg)
	}
	return p.key(msg)
}

// edit hands a key or a paste to the message editor and plans the send
// again (or marks the plan stale on a big group).
func (p *composerPane) edit(msg tea.Msg) tea.Cmd {
	p.later = nil // another draft: ctrl+s asks of it again
	var cmd tea.Cmd
	p.editor, cmd = p.editor.Update(msg)
	if len(p.contacts) <= livePlanLimit {
		p.replan()
	} else {
		p.stale = true
	}
	return cmd
}

func (p *composerPane) key(msg tea.KeyPressMsg) tea.Cmd {
	k := p.c.keys
	if p.scroll.pageKey(k, msg, p.planLen(), p.tableRows()) {
		return nil
	}
	switch {
	case key.Matches(msg, k.Template):
		if p.source != sourceTemplate {
			p.source, p.reply = sourceTemplate, nil
			p.note = p.templateOver()
		}
		return p.editor.Focus()
	case key.Matches(msg, k.LoadCSV):
		return p.c.showModal(pairsFileForm(p.c))
	case key.Matches(msg, k.Sender):
		return p.pickSender()
	case p.later != nil && key.Matches(msg, k.SendAt):
		return p.sendLater()
	case key.Matches(msg, k.Back):
		return p.c.back()
	}
	return p.rowKey(msg)
}

// rowKey is a key of the rows: add one, edit or remove the one under the
// cursor.
func (p *composerPane) rowKey(msg tea.KeyPressMsg) tea.Cmd {
	k := p.c.keys
	switch {
	case key.Matches(msg, k.AddRow):
		p.reply = nil // rows typed by hand, no longer a reply of one
		return p.c.showModal(rowForm(p.c, -1, model.PairRow{}))
	case key.Matches(msg, k.EditRow):
		if p.plan != nil && p.cursor < len(p.plan.Items) {
			return p.c.showModal(rowForm(p.c, p.cursor, p.rows[p.cursor]))
		}
	case key.Matches(msg, k.RemoveRow):
		if p.plan != nil && p.cursor < len(p.rows) {
			p.toManual()
			p.rows = append(p.rows[:p.cursor:p.cursor], p.rows[p.cursor+1:]...)
			p.replan()
		}
	}
	return nil
}
