package console

// The account's opt-out list in the contact table (issue 29): opted-out
// contacts are marked ⊘, and o on the selected contact puts it on the list
// (every line) or takes it off, after asking. The list is read and changed
// through the application layer, which audits each change.

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// optOutsMsg carries the account's opt-out list as read (keys: OptOutKeys),
// and what a change did (Said) or why it failed.
type optOutsMsg struct {
	OptedOut map[string]bool   // on the list for any line
	List     *model.OptOutList // for the lines each holds for
	Said     string
	Err      error
}

func (m optOutsMsg) failure() error { return m.Err }

// background: a plain read of the list (no change said) is no answer to
// the operator, so it leaves the status bar's last error in place.
func (m optOutsMsg) background() bool { return m.Said == "" }

// loadOptOuts reads the account's opt-out list off the UI loop; said, when
// set, is what a change did.
func loadOptOuts(sess *app.Session, said string, changeErr error) tea.Cmd {
	return func() tea.Msg {
		msg := optOutsMsg{Said: said, Err: changeErr}
		list, err := sess.OptOuts()
		if err != nil {
			if msg.Err == nil && !isNotSignedIn(err) {
				msg.Err = fmt.Errorf("reading the opt-out list: %w", err)
			}
			return msg
		}
		msg.OptedOut = make(map[string]bool, len(list))
		for _, o := range list {
			msg.OptedOut[o.Mobile] = true
		}
		msg.List = model.NewOptOutList(list)
		return msg
	}
}

func isNotSignedIn(err error) bool { return err == app.ErrNotSignedIn }

// optedOut says whether a contact's number is on the opt-out list: for the
// profile's sender line (or every line), "⊘"; for another line only, "◌"
// (a send from this line still goes to it); else "".
func (p *contactsPane) optedOut(mobile string) string {
	k, err := model.OptOutKey(mobile)
	switch {
	case err != nil || !p.optOuts[k]:
		return ""
	case p.optOutList != nil:
		if _, blocked := p.optOutList.Blocks(k, p.c.session.Profile.Sender); !blocked {
			return "◌"
		}
	}
	return "⊘"
}

// confirmOptOut asks before putting the selected contact on the opt-out list
// (every line), or taking it off; the default is No.
func (p *contactsPane) confirmOptOut() tea.Cmd {
	r, ok := p.selected()
	if !ok {
		return nil
	}
	return p.c.gate(p.c.keys.OptOut.Action, func() tea.Cmd { return p.askOptOut(r) })
}

// askOptOut is confirmOptOut once the operator's role allows it.
func (p *contactsPane) askOptOut(r contactRow) tea.Cmd {
	k, err := model.OptOutKey(r.contact.Mobile)
	if err != nil {
		return cmdOf(statusMsg{Err: fmt.Errorf("%s is not a number the opt-out list takes: %w", r.mobile, err)})
	}
	sess := p.c.session
	if p.optOuts[k] {
		return p.c.showModal(newConfirm(p.c, "Take off the opt-out list?",
			fmt.Sprintf("Take %s %s off the account's opt-out list?\nSends from every line of this account may go to it again. The change is recorded.", r.name, r.mobile),
			func() tea.Cmd {
				return func() tea.Msg {
					_, err := sess.RemoveOptOuts([]string{k}, "")
					return loadOptOuts(sess, "✓ "+k+" taken off the opt-out list", err)()
				}
			}))
	}
	return p.c.showModal(newConfirm(p.c, "Opt out?",
		fmt.Sprintf("Put %s %s on the account's opt-out list?\nNo send from any line of this account goes to it, from any profile or operator. The change is recorded.", r.name, r.mobile),
		func() tea.Cmd {
			return func() tea.Msg {
				_, err := sess.AddOptOuts([]string{k}, "", "from the console")
				return loadOptOuts(sess, "✓ "+k+" put on the opt-out list: not sent to", err)()
			}
		}))
}

// optOutsRead takes the list as read.
func (p *contactsPane) optOutsRead(msg optOutsMsg) tea.Cmd {
	if msg.OptedOut != nil {
		p.optOuts, p.optOutList = msg.OptedOut, msg.List
	}
	switch {
	case msg.Err != nil:
		return cmdOf(statusMsg{Err: msg.Err})
	case msg.Said != "":
		return cmdOf(statusMsg{Text: msg.Said})
	}
	return nil
}
