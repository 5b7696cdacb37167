package console

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// Minimum terminal size the console draws at.
const (
	minWidth  = 80
	minHeight = 23 // an 80×24 terminal under tmux's status line
)

// root routes messages between panes. It holds no domain state of its own.
type root struct {
	c      *common
	cancel context.CancelFunc

	bidiSaves saveSeq

	viewer *viewerPane
	// log is the message log: every note and error shown this session,
	// with its time and full text (L opens it).
	log     []logEntry
	seen    []string // what logChanges saw last
	fullErr string   // the last failure in full (lastErr is cut for the status bar)
	// typedAhead are the keys typed while a gated key's answer is awaited
	// (gate.go).
	typedAhead []tea.KeyPressMsg

	screen screen
	// trail is the way back from the current screen: the screens it was
	// entered from, the main screen's first (navigate.go).
	trail []screen
	focus int // main screen: 0 groups, 1 contacts
	modal modal

	groups   *groupsPane
	contacts *contactsPane
	composer *composerPane
	results  *resultsPane
	history  *historyPane
	inbox    *inboxPane
	setup    *setupPane
	helpView *helpPane

	help    help.Model
	spinner spinner.Model
	note    string
	lastErr string
	// stopping is set when a quit waits for the send's chunk in flight.
	stopping bool
	// starting is the work id of a send being started (its Cmd has not
	// answered yet); 0 when none is.
	starting int
	// composeFor is the group c asked to compose over while its contacts
	// load; the composer opens when they have arrived.
	composeFor model.ID
	// composeOn is the screen c was pressed on: the composer opens over
	// it once the group has loaded, unless the operator has moved on.
	composeOn screen
	// trouble is the latest notice that the service could not be reached,
	// shown until troubleUntil (its retry, and a moment after).
	trouble      string
	troubleUntil time.Time
	// changes is this console's feed of what others change (changes.go):
	// nil when its session has no ledger to watch.
	changes *config.ChangeFeed
	// clock wakes the program when the clock alone changes the screen.
	clock clock
	// rulesLogged is the rules' last error put in the message log.
	rulesLogged string
	// msgRows are the lines a note above the status bar takes from the
	// body (statusbar.go).
	msgRows int
}

// retryMsg carries one of the client's retry notices.
type retryMsg struct {
	ev   client.RetryEvent
	next tea.Cmd
}

// listenRetries reads one retry notice per Cmd and re-issues itself.
func listenRetries(ch <-chan client.RetryEvent) tea.Cmd {
	var next tea.Cmd
	next = func() tea.Msg {
		ev, ok := <-ch
		if !ok {
			return nil
		}
		return retryMsg{ev: ev, next: next}
	}
	return next
}

func newRoot(ctx context.Context, opts Options) *root {
	ctx, cancel := context.WithCancel(ctx)
	theme, styles := DarkTheme, (*Styles)(nil)
	switch {
	case opts.NoColor:
		theme, styles = NoColorTheme, noColorStyles()
	case opts.Theme == "light":
		theme = LightTheme
	}
	if styles == nil {
		styles = DefaultStyles(theme)
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	sess := opts.Session
	if sess == nil {
		sess = (&app.Engine{}).Session(nil)
	}
	if sess.Profile.Name == "" {
		sess.Profile.Name = "default"
	}
	c := &common{
		ctx: ctx, styles: styles, theme: theme, keys: DefaultKeyMap(), session: sess, profile: &sess.Profile, rules: sess.Profile,
		logger: logger, now: now, opts: &opts, bidi: opts.BidiVisual,
		work: &workList{}, writes: &owner{}, reads: &owner{},
	}
	// Four frames a second: each is a redraw over the link (MiniDot's own
	// twelve were a fifth of a running send's bytes).
	sp := spinner.New(spinner.WithSpinner(spinner.Spinner{Frames: spinner.MiniDot.Frames, FPS: time.Second / 4}))
	m := &root{c: c, cancel: cancel, help: help.New(), spinner: sp, note: opts.Note}
	m.clock.rules = app.RulesRead{Rules: sess.Profile} // no stamp: the first look reads the file
	m.help.Styles = help.DefaultStyles(c.dark())
	c.showModal, c.closeModal, c.switchTo, c.back, c.openViewer, c.log = m.showModal, m.closeModal, m.switchTo, m.back, m.openViewer, m.logNote
	m.groups = newGroupsPane(c)
	m.contacts = newContactsPane(c)
	m.composer = newComposerPane(c)
	m.results = newResultsPane(c)
	m.history = newHistoryPane(c)
	m.inbox = newInboxPane(c)
	m.setup = newSetupPane(c)
	m.helpView = newHelpPane(c, m.helpSections)
	m.viewer = newViewerPane(c)
	if c.client() == nil {
		m.screen = screenSetup
	}
	return m
}

// shutdown cancels everything still in flight and waits for the Cmds
// under way that read the ledger or the state directory, or ask the
// service (cancelled, they end soon), for the sends it started (each
// ends after its chunk in flight and closes its journal: nothing of the
// console's is written after it has gone), and for the state directory's
// writes.
func (m *root) shutdown() {
	m.c.work.endAll()
	m.cancel()
	if m.changes != nil {
		m.changes.Close()
	}
	m.c.reads.close()
	if m.c.session != nil {
		ctx, cancel := context.WithTimeout(context.Background(), sendsEndWait)
		_ = m.c.session.WaitSends(ctx) // past the bound the process's exit ends them: their outcomes are the journal's, as after a kill
		cancel()
	}
	m.c.writes.close()
}

// sendsEndWait bounds how long a console that ends waits for its sends'
// chunks in flight (a chunk's request has its own timeout; cancelled, a
// send ends at the chunk's answer).
const sendsEndWait = 30 * time.Second

// Init draws the first frame at once and starts loading the known groups.
func (m *root) Init() tea.Cmd {
	cmds := []tea.Cmd{m.readRules()} // the session may have opened on rules read long ago (smsdesk serve's start)
	// What others change is heard from now on: the reads Init starts come
	// after, so that none falls between them and the watch.
	if m.changes == nil {
		if feed, err := m.c.session.WatchChanges(); err == nil {
			m.changes = feed
			context.AfterFunc(m.c.ctx, feed.Close) // its owner is the console: it ends with it
			cmds = append(cmds, listenChanges(m.c.ctx, feed))
		}
	}
	if m.c.opts.Retries != nil {
		cmds = append(cmds, listenRetries(m.c.opts.Retries))
	}
	if m.screen == screenSetup {
		cmds = append(cmds, m.setup.Focus())
	} else {
		cmds = append(cmds, m.groups.Focus(), m.groups.load(), m.unfinishedSends())
	}
	return tea.Batch(cmds...)
}

// active returns the pane that gets keys on the current screen.
func (m *root) active() pane {
	switch m.screen {
	case screenComposer:
		return m.composer
	case screenResults:
		return m.results
	case screenHistory:
		return m.history
	case screenInbox:
		return m.inbox
	case screenHelp:
		return m.helpView
	case screenSetup:
		return m.setup
	case screenViewer:
		return m.viewer
	}
	if m.focus == 1 {
		return m.contacts
	}
	return m.groups
}

// Update routes one message: sizes to every pane, keys in a fixed order, data
// messages by type to their owner; then the clock is set for the screen's
// next change by itself.
func (m *root) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case rulesMsg:
		m.takeRules(msg.read)
		return m, m.rewake()
	case changesMsg:
		return m, tea.Batch(m.othersChanged(msg.changes), msg.next)
	}
	model, cmd := m.update(msg)
	m.fitMessage()
	return model, tea.Batch(cmd, m.rewake())
}

func (m *root) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	reauth := m.noteFailure(msg)
	defer m.logChanges()
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
		return m, nil
	case tea.KeyPressMsg:
		return m, m.keyPress(msg)
	case tea.PasteMsg:
		return m, m.paste(msg)
	case tea.MouseMsg:
		return m, m.mouse(msg)
	case spinner.TickMsg:
		return m, m.spin(msg)
	case clockMsg:
		m.woke(msg)
		return m, nil
	case stopMsg:
		return m, m.stop()
	case retryMsg:
		m.trouble = msg.ev.String()
		m.troubleUntil = m.c.now().Add(msg.ev.Wait + 3*time.Second)
		return m, msg.next
	case statusMsg:
		if msg.Err == nil {
			m.note = msg.Text
		}
		return m, reauth
	case allowedMsg:
		return m, tea.Batch(m.gateAnswered(msg), reauth)
	}
	cmd := m.route(msg)
	return m, tea.Batch(cmd, reauth, m.startSpinner())
}

// showModal opens a form or dialog at once, so keys typed right after the key
// that asked for it land in it.
func (m *root) showModal(md modal) tea.Cmd {
	if m.modal != nil {
		m.modal.Blur()
	}
	m.modal = md
	m.modal.SetSize(m.c.width, m.c.height-m.msgRows)
	return m.modal.Focus()
}

// closeModal closes the open form or dialog.
func (m *root) closeModal() {
	if m.modal != nil {
		m.modal.Blur()
	}
	m.modal = nil
}

// startSpinner starts the spinner when some pane has work in flight.
func (m *root) startSpinner() tea.Cmd {
	if m.c.spin != "" || !m.busy() {
		return nil
	}
	m.c.spin = m.spinner.View()
	return m.spinner.Tick
}

// busy reports whether any pane has work in flight.
func (m *root) busy() bool {
	return m.groups.busy() || m.contacts.busy() || m.composer.busy() || m.results.busy() ||
		m.history.busy() || m.inbox.busy() || m.setup.busy()
}

func (m *root) resize(w, h int) {
	m.c.width, m.c.height = w, h
	m.help.SetWidth(w)
	bodyH := h - 2 - m.msgRows
	gw := groupsWidth(w)
	m.groups.SetSize(gw, bodyH)
	m.contacts.SetSize(w-gw, bodyH)
	for _, p := range []pane{m.composer, m.results, m.history, m.inbox, m.setup, m.helpView, m.viewer} {
		p.SetSize(w, bodyH)
	}
	if m.modal != nil {
		m.modal.SetSize(w, h-m.msgRows)
	}
}

// fitMessage gives the screen's body the lines a note above the status
// bar takes (none when it fits on the bar: statusbar.go), sizing the
// panes again when that changes.
func (m *root) fitMessage() {
	if m.c.width <= 0 || m.c.height <= 0 {
		return
	}
	if n := len(m.messageLines()); n != m.msgRows {
		m.msgRows = n
		m.resize(m.c.width, m.c.height)
	}
}

// groupsWidth is the groups pane's share of the main screen.
func groupsWidth(w int) int {
	gw := w * 3 / 10
	if gw < 28 {
		gw = 28
	}
	if gw > 44 {
		gw = 44
	}
	return gw
}

// paste hands pasted text whole to the form or text field that has focus;
// elsewhere it is dropped: pasted text is never read as keys (a "q" in it
// does not quit, a "y" does not answer a dialog).
func (m *root) paste(msg tea.PasteMsg) tea.Cmd {
	if m.modal != nil {
		return m.modal.Update(msg)
	}
	if p := m.active(); p.Editing() {
		return p.Update(msg)
	}
	return nil
}

// key routes a key: an open modal or a focused text field first, then the
// keys that work on every screen, then the focused pane.
func (m *root) key(msg tea.KeyPressMsg) tea.Cmd {
	k := m.c.keys
	if m.modal != nil {
		if key.Matches(msg, k.ForceQuit) {
			m.modal.Blur()
			m.modal = nil
			return nil
		}
		return m.modal.Update(msg)
	}
	p := m.active()
	if p.Editing() {
		if key.Matches(msg, k.ForceQuit) { // ctrl+c leaves the field first
			p.LeaveField()
			return nil
		}
		return p.Update(msg)
	}
	if key.Matches(msg, k.ForceQuit) {
		return m.quit()
	}
	if cmd, ok := m.screenKey(msg); ok {
		return cmd
	}
	if cmd, ok := m.toolKey(msg); ok {
		return cmd
	}
	if m.screen == screenMain && (key.Matches(msg, k.NextPane) || key.Matches(msg, k.PrevPane)) {
		return m.cycleFocus()
	}
	return p.Update(msg)
}

// openComposer starts a composer on the highlighted group's contacts. When
// that group is not the one loaded in the contacts pane (the cursor moved
// without enter), or its contacts are still loading, it opens the group first
// and composes once every contact has arrived: composing over the group shown
// beside the cursor, not the one under it, would send to the wrong people.
func (m *root) openComposer() tea.Cmd {
	g, ok := m.groups.selected()
	if ok && (g.ID != m.contacts.group.ID || m.contacts.loading) {
		m.composeFor = g.ID
		m.note = "loading " + g.Name + " to compose over it…"
		if g.ID != m.contacts.group.ID {
			return m.groups.open()
		}
		return nil
	}
	m.composeFor = ""
	g, contacts := m.contacts.group, m.contacts.allContacts()
	// The opt-out list as it stands for the draft's recipients, for the
	// composer's rows and totals (looked up off the UI loop, once the draft
	// is set; the composer plans again when it comes).
	load := func() tea.Cmd { return m.composer.lookupOptOuts() }
	enter := func() tea.Cmd { return tea.Batch(load(), m.enterComposer()) }
	switch {
	case m.composer.hasDraft() && !m.composer.unsentDraft():
		// The draft went (sent, or scheduled): c starts a new message, its
		// editor taking the keys. The text sent is in the history (h); in
		// the editor again it would take typed text after it, and ctrl+s
		// would offer the same messages to the same people once more.
		went := m.lastSendText()
		m.composer.Reset(g, contacts)
		m.composer.note = "a new message: " + went
	case !m.composer.hasDraft():
		m.composer.Reset(g, contacts)
	case m.composer.group.ID == g.ID:
		// Leaving the composer keeps the draft: c opens it again, over
		// the group's contacts as they are now.
		m.composer.refreshContacts(contacts)
	default:
		// A draft over another group (or a file, or typed rows) is not
		// thrown away without a word.
		dlg := newConfirm(m.c, "Replace the draft?",
			fmt.Sprintf("The composer holds a draft over %s.\nStart a new message over %s and throw the draft away?\nThe default is No: the draft opens again.",
				model.SanitizeLine(m.composer.planSource().Name), model.SanitizeLine(g.Name)),
			func() tea.Cmd { m.composer.Reset(g, contacts); return enter() })
		dlg.onNo = enter
		return m.showModal(dlg)
	}
	return enter()
}

// enterComposer shows the composer, its message editor taking the keys (c
// is pressed to write; on the composer itself too).
func (m *root) enterComposer() tea.Cmd {
	m.composer.composeNext()
	if m.screen == screenComposer {
		return m.composer.Focus()
	}
	return m.switchTo(screenComposer)
}

// composeWhenLoaded opens the composer c asked for once its group's contacts
// have all arrived (or drops the request when the load failed or the operator
// moved on).
func (m *root) composeWhenLoaded(msg contactsLoadedMsg) tea.Cmd {
	if m.composeFor == "" || msg.GroupID != m.composeFor || m.contacts.loading {
		return nil
	}
	g, ok := m.groups.selected()
	if msg.Err != nil || m.screen != m.composeOn || m.modal != nil || !ok || g.ID != m.composeFor {
		m.composeFor = ""
		return nil
	}
	m.note = ""
	return m.openComposer()
}

// helpSections is what the `?` screen lists: every key, by where it works.
func (m *root) helpSections() []HelpSection { return m.c.keys.Sections() }
