package console

// The root's router for data messages: each goes by its type to the pane
// that owns it, focused or not (keys are routed in root.go's Update).

import tea "charm.land/bubbletea/v2"

// route hands a data message to the pane that owns it, focused or not.
func (m *root) route(msg any) tea.Cmd {
	switch msg := msg.(type) {
	case groupsLoadedMsg, contactCountMsg:
		return m.groups.Update(msg)
	case groupCreatedMsg:
		return m.stoppedAll(m.groups.Update(msg))
	case groupSelectedMsg:
		return m.contacts.Update(msg)
	case contactsLoadedMsg:
		cmd := m.contacts.Update(msg)
		return tea.Batch(cmd, m.composeWhenLoaded(msg))
	case contactsCachedMsg, contactsProgressMsg, importFileMsg, importPreviewMsg, importProgressMsg:
		return m.contacts.Update(msg)
	case contactAddedMsg, contactDeletedMsg:
		return m.stoppedAll(m.contacts.Update(msg))
	case optOutsMsg:
		// The contact table marks the list's numbers; the composer leaves
		// them out of its rows' totals, as the confirmation does.
		return tea.Batch(m.contacts.Update(msg), m.composer.Update(msg))
	case importDoneMsg:
		return m.stoppedAll(m.contacts.Update(msg))
	case exportDoneMsg:
		if msg.What == "results" {
			return m.results.Update(msg)
		}
		return m.contacts.Update(msg)
	case formReadMsg:
		if f, ok := m.modal.(*form); ok && f == msg.form {
			return f.readDone(msg)
		}
		return nil // the form was closed meanwhile
	case startSendMsg:
		return m.startSend(msg)
	case sendStartedMsg:
		return m.started(msg)
	case sendEventMsg, heldLookMsg:
		return m.results.Update(msg)
	case sendDoneMsg:
		m.c.work.end(msg.work) // sending and delivery polls are over
		cmd := m.results.Update(msg)
		if msg.Run == m.results.run {
			return m.stoppedAll(cmd) // the chunk in flight is journaled: quit when stopping
		}
		return cmd
	case historyLoadedMsg, historyDetailMsg, resumePreparedMsg, scheduleCancelledMsg:
		return m.history.Update(msg)
	case resumeSendMsg:
		return m.startResume(msg)
	case retryRunMsg:
		// The retry is a resume of the same send, from its journal, under
		// the same rules as R in the history.
		return m.retryRun(msg)
	case loggedInMsg:
		return m.loggedIn(msg)
	case composerMsg, sendPreparedMsg, scheduledMsg:
		return m.composer.Update(msg)
	}
	// Anything else (cursor blinks and the like) goes to the focused pane and
	// the modal.
	var cmds []tea.Cmd
	if m.modal != nil {
		cmds = append(cmds, m.modal.Update(msg))
	}
	cmds = append(cmds, m.active().Update(msg))
	return tea.Batch(cmds...)
}
