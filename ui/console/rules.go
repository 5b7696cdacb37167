package console

// The profile's rules as they are now (issue 40 item 3): a console served
// for days by smsdesk serve showed "quiet hours until 08:00" from serve's
// start after `config set quiet_hours 03:00-08:00` on the host, in old
// sessions and new, and its time form refused "+20m" against the old
// hours, while the send itself followed the new ones. The console reads
// the rules at its start and again whenever the config file changes (a
// stat a second, by the clock's wait, off the UI loop: never on a render),
// and every path that shows or checks them before the send's own question
// (the status bar, the clock, the composer's plan and counter, the time
// form) takes them from common.rules. The question and the start read
// them again themselves (app.PendingSend).

import (
	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// rulesMsg carries the profile's rules as read off the UI loop.
type rulesMsg struct{ read app.RulesRead }

// readRules reads the rules as they are now, off the UI loop.
func (m *root) readRules() tea.Cmd {
	sess, last := m.c.session, m.c.rules
	return func() tea.Msg { return rulesMsg{read: sess.ReadRules(last)} }
}

// rulesChanged looks, off the UI loop, whether the config file changed
// since read was made, and reads the rules again when it has (nil when it
// has not, or sess is nil: the process's watch tells of it instead).
func rulesChanged(sess *app.Session, read app.RulesRead) *app.RulesRead {
	if sess == nil || !sess.RulesChanged(read) {
		return nil
	}
	r := sess.ReadRules(read.Rules)
	return &r
}

// takeRules puts the rules read in place: the status bar and the clock
// follow them, and the composer plans its rows again when what it plans
// with changed (the suffix, the number rules).
func (m *root) takeRules(r app.RulesRead) {
	m.clock.rules = r
	was := m.c.rules
	m.c.rules = r.Rules
	m.c.rulesErr = ""
	if r.Err != nil {
		m.c.rulesErr = model.SanitizeLine(r.Err.Error())
		if m.c.rulesErr != m.rulesLogged {
			m.logNote("✗ " + m.c.rulesErr)
		}
	}
	m.rulesLogged = m.c.rulesErr
	if was.Suffix != r.Rules.Suffix || was.NumberFormat != r.Rules.NumberFormat || was.AllowInternational != r.Rules.AllowInternational {
		m.composer.replan()
	}
}
