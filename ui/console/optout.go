package console

// The opt-out list in the contact table (issue 29): opted-out contacts are
// marked ⊘, and o on the selected contact puts it on the list (every line)
// or takes it off, after asking. The list is the ledger's, one for every
// profile and key on it; the table looks up the numbers of the contacts it
// has loaded, never reads the whole list (it may hold millions), and
// changes it through the application layer, which audits each change.

import (
	"context"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// optOutsMsg answers a look-up of numbers on the opt-out list (keys:
// OptOutKeys), and says what a change did (Said) or why it failed.
type optOutsMsg struct {
	For  optOutsAsker // the pane that asked
	Seq  int          // its look-up this answers
	Keys []string     // the numbers looked up
	List *model.OptOutList
	Said string
	Err  error
}

// optOutsAsker is a pane that looks numbers up on the opt-out list.
type optOutsAsker int

const (
	forContacts optOutsAsker = iota + 1 // the contact table, to mark its rows
	forComposer                         // the composer, to count as the confirmation will
)

func (m optOutsMsg) failure() error { return m.Err }

// background: a plain read of the list (no change said) is no answer to
// the operator, so it leaves the status bar's last error in place.
func (m optOutsMsg) background() bool { return m.Said == "" }

// lookupOptOuts looks numbers up on the opt-out list off the UI loop (by
// number: the list may hold millions, the pane shows a few); said, when
// set, is what a change did.
func lookupOptOuts(ctx context.Context, sess *app.Session, who optOutsAsker, seq int, numbers []string, said string, changeErr error) tea.Cmd {
	return func() tea.Msg {
		msg := optOutsMsg{For: who, Seq: seq, Said: said, Err: changeErr}
		for _, n := range numbers {
			if k, err := model.OptOutKey(n); err == nil {
				msg.Keys = append(msg.Keys, k)
			}
		}
		list, err := sess.LookupOptOuts(ctx, msg.Keys)
		if err != nil {
			if msg.Err == nil && !isNotSignedIn(err) {
				msg.Err = fmt.Errorf("reading the opt-out list: %w", err)
			}
			return msg
		}
		msg.List = list
		return msg
	}
}

func isNotSignedIn(err error) bool { return err == app.ErrNotSignedIn }

// lookupOptOuts looks up the numbers of the contacts loaded (nil: every
// row's) on the opt-out list; said, when set, is what a change did.
func (p *contactsPane) lookupOptOuts(contacts []model.Contact, said string, changeErr error) tea.Cmd {
	var numbers []string
	if contacts == nil {
		numbers = make([]string, len(p.rows))
		for i, r := range p.rows {
			numbers[i] = r.contact.Mobile
		}
	} else {
		numbers = make([]string, len(contacts))
		for i, c := range contacts {
			numbers[i] = c.Mobile
		}
	}
	p.optOutSeq++
	return lookupOptOuts(p.c.ctx, p.c.session, forContacts, p.optOutSeq, numbers, said, changeErr)
}

// optedOut says whether a contact's number is on the opt-out list: for the
// profile's sender line (or every line), "⊘"; for another line only, "◌"
// (a send from this line still goes to it); else "".
func (p *contactsPane) optedOut(mobile string) string {
	k, err := model.OptOutKey(mobile)
	if err != nil || len(p.optOuts[k]) == 0 {
		return ""
	}
	if _, blocked := model.NewOptOutList(p.optOuts[k]).Blocks(k, p.c.session.Profile.Sender); !blocked {
		return "◌"
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
	sess, ctx := p.c.session, p.c.ctx
	p.optOutSeq++
	seq := p.optOutSeq // the number as changed outweighs a look-up asked before
	if len(p.optOuts[k]) > 0 {
		return p.c.showModal(newConfirm(p.c, "Take off the opt-out list?",
			fmt.Sprintf("Take %s %s off the opt-out list?\nSends from every line, by every profile and key on the ledger, may go to it again. The change is recorded.", r.name, r.mobile),
			func() tea.Cmd {
				return func() tea.Msg {
					_, err := sess.RemoveOptOuts(ctx, []string{k}, "")
					return lookupOptOuts(ctx, sess, forContacts, seq, []string{k}, "✓ "+k+" taken off the opt-out list", err)()
				}
			}))
	}
	return p.c.showModal(newConfirm(p.c, "Opt out?",
		fmt.Sprintf("Put %s %s on the opt-out list?\nNo send from any line goes to it, by any profile, key or operator on the ledger. The change is recorded.", r.name, r.mobile),
		func() tea.Cmd {
			return func() tea.Msg {
				_, err := sess.AddOptOuts(ctx, []string{k}, "", "from the console")
				return lookupOptOuts(ctx, sess, forContacts, seq, []string{k}, "✓ "+k+" put on the opt-out list: not sent to", err)()
			}
		}))
}

// optOutsRead takes a look-up's answer: each number looked up holds what
// the latest look-up of it that has answered says (answers come in any
// order; one asked for another group's rows is dropped).
func (p *contactsPane) optOutsRead(msg optOutsMsg) tea.Cmd {
	if msg.For == forContacts && msg.List != nil && msg.Seq > p.optOutsFrom {
		if p.optOuts == nil {
			p.optOuts, p.optOutAt = map[string][]model.OptOut{}, map[string]int{}
		}
		entries := map[string][]model.OptOut{}
		for _, e := range msg.List.Entries() {
			entries[e.Mobile] = append(entries[e.Mobile], e)
		}
		for _, k := range msg.Keys {
			if p.optOutAt[k] > msg.Seq {
				continue // a later look-up of it has answered
			}
			p.optOutAt[k] = msg.Seq
			if es := entries[k]; len(es) > 0 {
				p.optOuts[k] = es
			} else {
				delete(p.optOuts, k)
			}
		}
		p.optOutsKnown = true
	}
	switch {
	case msg.Err != nil:
		return cmdOf(statusMsg{Err: msg.Err})
	case msg.Said != "":
		return cmdOf(statusMsg{Text: msg.Said})
	}
	return nil
}
