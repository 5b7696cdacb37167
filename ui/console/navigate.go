package console

import (
	"slices"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// Moving between screens. The main screen is the root; every other screen
// is entered from one and esc (q on the help, the history and the viewer)
// goes back to it: the trail is the way back. c and h work from every
// screen, as help lists them under "Everywhere": from a send's results, h
// shows the history and esc comes back to the results; c composes and esc
// comes back too. Help and the viewer are looks, not places: leaving one
// for another screen does not come back to it. A screen already on the
// trail is gone back to, not entered again: no way back loops.

// switchTo enters screen s from the current one, remembering the way back.
func (m *root) switchTo(s screen) tea.Cmd {
	if s == m.screen {
		return nil
	}
	switch i := slices.Index(m.trail, s); {
	case s == screenMain:
		m.trail = nil
	case i >= 0:
		m.trail = m.trail[:i]
	case m.screen != screenHelp && m.screen != screenViewer:
		m.trail = append(m.trail, m.screen)
	}
	return m.show(s)
}

// replaceWith shows screen s in the current one's place: the way back is
// the current screen's (a send started from the composer or the history
// shows its results; esc goes where the composer's esc went).
func (m *root) replaceWith(s screen) tea.Cmd {
	if s == m.screen {
		return nil
	}
	if i := slices.Index(m.trail, s); i >= 0 {
		m.trail = m.trail[:i]
	}
	return m.show(s)
}

// back goes back to the screen the current one was entered from (the main
// screen when none).
func (m *root) back() tea.Cmd {
	to := screenMain
	if n := len(m.trail); n > 0 {
		to, m.trail = m.trail[n-1], m.trail[:n-1]
	}
	return m.show(to)
}

// show makes s the current screen: the one left loses focus, s gets it
// (the history reads its first page).
func (m *root) show(s screen) tea.Cmd {
	if s == m.screen {
		return nil
	}
	m.active().Blur()
	m.screen = s
	var cmd tea.Cmd
	switch s {
	case screenHistory:
		cmd = m.history.load()
	case screenInbox:
		cmd = m.inbox.load()
	}
	return tea.Batch(m.active().Focus(), cmd)
}

// qGoesBack reports whether q leaves the current screen rather than the
// console: the looks (help, the viewer), the history and the inbox.
func (m *root) qGoesBack() bool {
	return m.screen == screenHelp || m.screen == screenHistory || m.screen == screenViewer || m.screen == screenInbox
}

// screenKey handles the keys that move between screens, from any screen
// but the setup: q (back, or quit), ? (help, or back from it), esc on the
// help, c and h. It reports whether msg was one of them.
func (m *root) screenKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := m.c.keys
	switch {
	case key.Matches(msg, k.Quit) && m.qGoesBack():
		return m.back(), true
	case key.Matches(msg, k.Quit):
		return m.quit(), true
	case key.Matches(msg, k.Help) && m.screen == screenHelp, key.Matches(msg, k.Back) && m.screen == screenHelp:
		return m.back(), true
	case key.Matches(msg, k.Help):
		return m.switchTo(screenHelp), true
	case m.screen == screenSetup:
		return nil, false // no service yet: nothing to compose or list
	case key.Matches(msg, k.Compose.Binding):
		m.composeOn = m.screen
		return m.c.gate(k.Compose.Action, m.openComposer), true // a viewer does not compose: nothing to send
	case key.Matches(msg, k.History) && m.screen != screenHistory:
		return m.switchTo(screenHistory), true
	case key.Matches(msg, k.Inbox) && m.screen != screenInbox:
		return m.switchTo(screenInbox), true
	}
	return nil, false
}

// toolKey handles the keys that work alike on every screen: right-to-left
// order, the message log, copy, redraw and suspend.
func (m *root) toolKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := m.c.keys
	switch {
	case key.Matches(msg, k.Bidi):
		return m.toggleBidi(), true
	case key.Matches(msg, k.Log) && m.screen != screenViewer:
		return m.openLog(), true
	case key.Matches(msg, k.Copy):
		return m.copySelected(), true
	case key.Matches(msg, k.Redraw):
		return tea.ClearScreen, true
	case key.Matches(msg, k.Suspend):
		return m.suspend(), true
	}
	return nil, false
}
