package console

// The root's router for data messages: each goes by its type to the pane
// that owns it, focused or not (keys are routed in root.go's Update).

import tea "charm.land/bubbletea/v2"

// route hands a data message to the pane that owns it, focused or not.
func (m *root) route(msg any) tea.Cmd {
	if cmd, ok := m.routeLists(msg); ok {
		return cmd
	}
	if cmd, ok := m.routeSends(msg); ok {
		return cmd
	}
	switch msg := msg.(type) {
	case formReadMsg:
		if f, ok := m.modal.(*form); ok && f == msg.form {
			return f.readDone(msg)
		}
		return nil // the form was closed meanwhile
	case loggedInMsg:
		return m.loggedIn(msg)
	case composerMsg, sendPreparedMsg, scheduledMsg:
		return m.composer.Update(msg)
	case lineKindsMsg:
		m.composer.lineKindsRead(msg)
		return nil
	case inboxLoadedMsg:
		return m.inbox.Update(msg)
	case inboxReplyMsg:
		return m.replyTo(msg)
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

// routeLists hands the groups' and contacts' messages to their panes (the
// opt-outs to the composer too); ok is false for any other message.
func (m *root) routeLists(msg any) (cmd tea.Cmd, ok bool) {
	switch msg := msg.(type) {
	case groupsLoadedMsg, contactCountMsg:
		return m.groups.Update(msg), true
	case groupCreatedMsg:
		return m.stoppedAll(m.groups.Update(msg)), true
	case groupSelectedMsg:
		return m.contacts.Update(msg), true
	case contactsLoadedMsg:
		cmd := m.contacts.Update(msg)
		return tea.Batch(cmd, m.composeWhenLoaded(msg)), true
	case contactsCachedMsg, contactsProgressMsg, importFileMsg, importPreviewMsg, importProgressMsg:
		return m.contacts.Update(msg), true
	case contactAddedMsg, contactDeletedMsg, importDoneMsg:
		return m.stoppedAll(m.contacts.Update(msg)), true
	case optOutsMsg:
		// The contact table marks the list's numbers; the composer leaves
		// them out of its rows' totals, as the confirmation does.
		return tea.Batch(m.contacts.Update(msg), m.composer.Update(msg)), true
	case exportDoneMsg:
		if msg.What == "results" {
			return m.results.Update(msg), true
		}
		return m.contacts.Update(msg), true
	}
	return nil, false
}

// routeSends hands the sends' messages to the results and the history, and
// starts the sends asked for; ok is false for any other message.
func (m *root) routeSends(msg any) (cmd tea.Cmd, ok bool) {
	switch msg := msg.(type) {
	case startSendMsg:
		return m.startSend(msg), true
	case startWaitMsg:
		return m.startWaited(msg), true
	case sendStartedMsg:
		return m.started(msg), true
	case sendEventMsg, heldLookMsg:
		return m.results.Update(msg), true
	case sendDoneMsg:
		return m.sendDone(msg), true
	case historyLoadedMsg, historyDetailMsg, resumePreparedMsg, resendPreparedMsg, scheduleCancelledMsg:
		return m.history.Update(msg), true
	case resumeSendMsg:
		return m.startResume(msg), true
	case retryRunMsg:
		// The retry is a resume of the same send, from its journal, under
		// the same rules as R in the history.
		return m.retryRun(msg), true
	}
	return nil, false
}

// sendDone ends a send's work in the results; when it is the run shown and
// the console is stopping, it quits (the chunk in flight is journaled).
func (m *root) sendDone(msg sendDoneMsg) tea.Cmd {
	m.c.work.end(msg.work) // sending and delivery polls are over
	cmd := m.results.Update(msg)
	if msg.Run == m.results.run {
		return m.stoppedAll(cmd)
	}
	return cmd
}
