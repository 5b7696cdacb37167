package console

// The steps of the root's update for the messages it handles itself: a
// failure's note, a key press (or several pasted as one), the mouse, the
// spinner's tick and the stop.

import (
	"errors"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/client"
)

// noteFailure shows the error a failing message carries (logged in full),
// or clears the one shown when the message is a success that clears it; a
// key the service refused asks for another (the command returned).
func (m *root) noteFailure(msg tea.Msg) (reauth tea.Cmd) {
	f, ok := msg.(failing)
	if !ok {
		return nil
	}
	err := f.failure()
	if err == nil {
		if clearsError(msg) {
			m.lastErr, m.fullErr = "", "" // an error clears on the next success
		}
		return nil
	}
	m.lastErr = m.c.refusalLine(err) // a refusal with the console's hint
	m.fullErr = m.lastErr
	m.logNote("✗ " + m.fullErr) // in full: the status bar cuts it
	m.c.logger.Debug("operation failed", "error", m.lastErr)
	if errors.Is(err, client.ErrUnauthorized) {
		return m.unauthorized(err)
	}
	return nil
}

// keyPress routes a key press, or each of the keys a terminal sent as one
// press, unless it was typed while a gate is being asked.
func (m *root) keyPress(msg tea.KeyPressMsg) tea.Cmd {
	if m.typedWhileGating(msg) {
		return nil
	}
	if presses := splitPresses(msg, m.modal == nil && !m.active().Editing()); presses != nil {
		cmds := make([]tea.Cmd, len(presses))
		for i, p := range presses {
			cmds[i] = m.key(p)
		}
		return tea.Batch(cmds...)
	}
	return m.key(msg)
}

// mouse goes to the focused pane when no form or dialog is open.
func (m *root) mouse(msg tea.MouseMsg) tea.Cmd {
	if m.modal != nil {
		return nil
	}
	return m.active().Update(msg)
}

// spin turns the spinner while some pane has work in flight, and hides it
// when none has.
func (m *root) spin(msg spinner.TickMsg) tea.Cmd {
	if !m.busy() {
		m.c.spin = ""
		return nil
	}
	var cmd tea.Cmd
	m.spinner, cmd = m.spinner.Update(msg)
	m.c.spin = m.spinner.View()
	return cmd
}

// stop stops the sends after their chunk and quits; asked again while
// stopping, it quits now.
func (m *root) stop() tea.Cmd {
	if m.stopping {
		return m.quitNow()
	}
	return m.stopThenQuit()
}
