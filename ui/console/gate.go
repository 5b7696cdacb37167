package console

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/ui/app"
)

// A served operator's role is read from the operators file as it is now
// for every gated key (app.Session.Allow stats and parses the file): off
// the UI loop, in a Cmd, never in Update. The key's own work (a form, a
// question) then runs in Update on the answer. Keys typed meanwhile wait
// for it and land where they would have had the file been read at once:
// in the form the key opens ("e" then enter exports), or, the key refused,
// where the operator was ("t", refused, then tab moves to the contacts).
// ctrl+c never waits.

// allowedMsg answers a gated key: whether the operator may take its action
// now (Err: the refusal naming the role it needs, or that they are no
// longer an operator), and what the key does when they may.
type allowedMsg struct {
	Action app.Action
	Err    error
	then   func() tea.Cmd
	gate   int // which key press asked: a later one supersedes it
}

func (m allowedMsg) failure() error { return m.Err }

// gate answers a key whose action the operator's role decides: then runs
// (in Update) once the operators file, read in a Cmd, allows action a. At
// this machine's own terminal (no operator) everything is allowed and
// nothing is read: then runs at once.
func (c *common) gate(a app.Action, then func() tea.Cmd) tea.Cmd {
	sess := c.session
	if sess == nil || sess.Operator == nil {
		return then()
	}
	c.gates++
	c.gating = true
	id := c.gates
	return owned(c.reads, func() tea.Msg { return allowedMsg{Action: a, Err: sess.Allow(a), then: then, gate: id} })
}

// gateAnswered runs a gated key's work when its answer allows it (a
// refusal is on the status bar: Update's failing), then the keys typed
// while it was read. A superseded answer does nothing.
func (m *root) gateAnswered(msg allowedMsg) tea.Cmd {
	if msg.gate != m.c.gates {
		return nil
	}
	m.c.gating = false
	ahead := m.typedAhead
	m.typedAhead = nil
	var cmds []tea.Cmd
	if msg.Err == nil {
		cmds = append(cmds, msg.then())
	}
	for _, k := range ahead {
		_, cmd := m.Update(k)
		cmds = append(cmds, cmd)
	}
	return tea.Batch(cmds...)
}

// typedWhileGating keeps a key typed while a gated key's answer is awaited
// (true); ctrl+c is never kept.
func (m *root) typedWhileGating(msg tea.KeyPressMsg) bool {
	if !m.c.gating || key.Matches(msg, m.c.keys.ForceQuit) {
		return false
	}
	m.typedAhead = append(m.typedAhead, msg)
	return true
}
