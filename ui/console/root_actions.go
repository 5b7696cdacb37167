package console

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/model"
)

// The root's own actions beyond routing: the bidi switch, and quitting
// without leaving a chunk unknown.

// toggleBidi switches right-to-left text between logical order (for
// terminals that reorder it) and smsdesk's visual order, and saves the choice.
func (m *root) toggleBidi() tea.Cmd {
	m.c.bidi = !m.c.bidi
	mode, text := "off", "right-to-left text as written (bidi = off: for terminals that reorder it, like Konsole and GNOME Terminal)"
	if m.c.bidi {
		mode, text = "visual", "right-to-left text reordered by smsdesk (bidi = visual: for Windows Terminal, PuTTY, kitty, Alacritty, tmux)"
	}
	m.note = text
	save := m.c.opts.SaveBidi
	if save == nil {
		return nil
	}
	// Saves run as Cmds, in any order: a save older than one already
	// written is skipped, so quick presses end with the last choice stored.
	seq := m.bidiSaves.asked.Add(1)
	return owned(m.c.writes, func() tea.Msg {
		m.bidiSaves.mu.Lock()
		defer m.bidiSaves.mu.Unlock()
		if seq < m.bidiSaves.written {
			return nil
		}
		m.bidiSaves.written = seq
		if err := save(mode); err != nil {
			return statusMsg{Text: "bidi = " + mode + " for this session; not saved: " + err.Error()}
		}
		return nil
	})
}

// saveSeq orders saves that run as Cmds (see toggleBidi).
type saveSeq struct {
	asked   atomic.Int64
	mu      sync.Mutex
	written int64
}

// cycleFocus moves focus between the groups pane and the contacts table.
func (m *root) cycleFocus() tea.Cmd {
	m.active().Blur()
	m.focus = 1 - m.focus
	return m.active().Focus()
}

// quit ends the program, asking first only while a send is running.
func (m *root) quit() tea.Cmd {
	if m.stopping {
		return m.quitNow() // asked twice: the chunk in flight is then unknown
	}
	switch {
	case m.results.running():
		return m.c.showModal(newConfirm(m.c, "Quit while sending?",
			"A send is running. Quitting stops it after the chunk in flight,\nwhich is waited for and recorded; every outcome is kept in history.",
			m.stopThenQuit))
	case m.contacts.importing():
		return m.c.showModal(newConfirm(m.c, "Quit while importing?",
			"An import is running "+m.contacts.importsLine()+".\nQuitting stops it after the row in flight; importing the file again\nadds the rest (the rows already added are skipped).",
			m.stopThenQuit))
	case m.composer.unsentDraft() && m.starting == 0:
		// A message typed or loaded and not sent is not thrown away
		// without a word: the default is to stay (c opens it again).
		dlg := newConfirm(m.c, "Quit and lose the draft?",
			fmt.Sprintf("The composer holds a message not sent yet (%s).\nQuitting throws it away. The default is No: stay, and c opens the draft.",
				model.SanitizeLine(m.composer.planSource().Name)),
			m.stopThenQuit)
		return m.c.showModal(dlg)
	case m.c.work.has(oneRequest...), m.starting != 0:
		// One request, or a send starting (it is stopped before its first
		// chunk once started): waited for, not asked about.
		return m.stopThenQuit()
	}
	return m.quitNow()
}

// oneRequest is work that is a single change to the service: a quit waits
// for its answer rather than leave its outcome unknown.
var oneRequest = []workKind{workAdd, workDelete, workCreate}

// stopThenQuit stops the send before its next chunk and quits when the chunk
// in flight has its outcome journaled (sendDoneMsg): quitting at once used to
// leave that chunk unknown every time.
func (m *root) stopThenQuit() tea.Cmd {
	if !m.changing() {
		return m.quitNow()
	}
	m.stopping = true
	m.results.cancelSend()
	m.contacts.stopImports()
	m.note = "stopping after the request in flight, then quitting… (ctrl+c again quits at once)"
	return nil
}

// stoppedAll quits once a quit that waited (stopping) has nothing left in
// flight: the send's chunk is journaled and every import's row is answered.
func (m *root) stoppedAll(cmd tea.Cmd) tea.Cmd {
	if m.stopping && !m.changing() {
		return m.quitNow()
	}
	return cmd
}

// changing reports whether anything that changes the service is in flight:
// a send (or its start), an import, or one add, delete or group create.
func (m *root) changing() bool {
	return m.results.running() || m.starting != 0 || m.contacts.importing() || m.c.work.has(oneRequest...)
}

// quitNow ends the program.
func (m *root) quitNow() tea.Cmd {
	m.cancel()
	return tea.Quit
}

// stopMsg is a signal (SIGTERM, SIGHUP, SIGINT from outside) or a hang-up
// asking the console to end: like q → yes (see Stop).
type stopMsg struct{}

// ExitReport says, after the program ended, what became of a send that was
// running or stopped this session (its id, counts and how to continue) and of
// imports that did not finish. "" when there is nothing to say.
func (m *root) ExitReport() string {
	var lines []string
	if s := m.sendReport(); s != "" {
		lines = append(lines, s)
	}
	for _, u := range m.contacts.unfinished {
		lines = append(lines, "smsdesk: "+u)
	}
	for _, imp := range m.contacts.imports { // still running when the console ended
		lines = append(lines, fmt.Sprintf("smsdesk: import into %s interrupted after %d of %d rows (file %s); importing the file again adds the rest",
			model.SanitizeLine(imp.group), imp.done, imp.total, model.SanitizeLine(imp.path)))
	}
	return strings.Join(lines, "\n")
}

// sendReport is ExitReport's part about the session's last send.
func (m *root) sendReport() string {
	p := m.results
	if p.jobID == "" || p.summary == nil {
		return ""
	}
	c := p.summary.Counts
	if c.NotSent+c.Failed+c.Unknown == 0 && !p.summary.Interrupted {
		return ""
	}
	s := fmt.Sprintf("smsdesk: send %s: %d accepted, %d rejected, %d failed, %d unknown, %d not sent of %d",
		model.SanitizeLine(p.jobID), c.Accepted, c.Rejected, c.Failed, c.Unknown, c.NotSent, c.Total)
	if c.NotSent+c.Failed > 0 {
		s += "\nTo continue: smsdesk send-pair --resume " + model.SanitizeLine(p.jobID)
	}
	if c.Unknown > 0 {
		s += "\nCheck the unknown ones first: smsdesk history show " + model.SanitizeLine(p.jobID)
	}
	return s
}
