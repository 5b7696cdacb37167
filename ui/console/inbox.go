package console

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// The inbox (issue 42 §4): what recipients wrote to the account's lines,
// newest first, as the webhook receiver filed it (smsdesk serve
// --webhook-addr, smsdesk webhook), live through the change feed. Each
// message says what it did to its line's opt-out list and which send it
// answers. R replies to the one under the cursor: a paired send of one,
// to the number that wrote, from the line it wrote to, through the
// composer and its confirmation like any other send (inbox_reply.go).

// inboxLimit is how many of the newest messages the pane reads.
const inboxLimit = 500

// inboxPane lists the inbox.
type inboxPane struct {
	c       *common
	w, h    int
	rows    []app.InboxMessage
	loading bool
	again   bool // others changed the inbox while it was read: read it once more
	seq     int  // the last read asked: only its answer is taken
	err     string
	scroll
}

// inboxLoadedMsg answers reading the inbox.
type inboxLoadedMsg struct {
	Seq  int
	Rows []app.InboxMessage
	Err  error
}

func (m inboxLoadedMsg) failure() error { return m.Err }

func newInboxPane(c *common) *inboxPane { return &inboxPane{c: c} }

func (p *inboxPane) SetSize(w, h int) { p.w, p.h = w, h; p.clamp(len(p.rows), p.visible()) }
func (p *inboxPane) Focus() tea.Cmd   { return nil }
func (p *inboxPane) Blur()            {}
func (p *inboxPane) Editing() bool    { return false }
func (p *inboxPane) LeaveField()      {}
func (p *inboxPane) busy() bool       { return p.loading }

// ShortHelp lists the inbox's keys, the reply first (offered to a role
// that may send).
func (p *inboxPane) ShortHelp() []key.Binding {
	k := p.c.keys
	keys := []key.Binding{k.Reply.Binding, k.Enter, k.Up, k.Down, k.GoBack}
	if len(p.rows) == 0 {
		keys = []key.Binding{k.GoBack}
	}
	return p.c.forRole(keys, k.Reply)
}

// FullHelp lists the inbox's keys.
func (p *inboxPane) FullHelp() [][]key.Binding { return [][]key.Binding{p.ShortHelp()} }

// load reads the newest messages, with the spinner.
func (p *inboxPane) load() tea.Cmd {
	p.loading, p.again = true, false
	p.seq++
	seq, sess, ctx := p.seq, p.c.session, p.c.ctx
	return owned(p.c.reads, func() tea.Msg {
		rows, err := sess.Inbox(ctx, app.InboxQuery{Limit: inboxLimit})
		return inboxLoadedMsg{Seq: seq, Rows: rows, Err: err}
	})
}

// refresh reads the inbox again because others changed it (a reply filed
// by the receiver): quietly, the message under the cursor kept under it;
// once more after a read under way, which may not have seen the change.
func (p *inboxPane) refresh() tea.Cmd {
	if p.loading {
		p.again = true
		return nil
	}
	return p.load()
}

// loaded takes the answer to the latest read.
func (p *inboxPane) loaded(msg inboxLoadedMsg) tea.Cmd {
	if msg.Seq != p.seq {
		return nil
	}
	p.loading = false
	if msg.Err != nil {
		p.err = p.c.refusalLine(msg.Err)
	} else {
		p.err = ""
		was := ""
		if p.cursor < len(p.rows) {
			was = p.rows[p.cursor].MessageID
		}
		p.rows = msg.Rows
		for i, r := range p.rows {
			if r.MessageID == was && was != "" {
				p.cursor = i
			}
		}
		p.clamp(len(p.rows), p.visible())
	}
	if p.again {
		return p.load()
	}
	return nil
}

// Update handles the inbox's reads and keys.
func (p *inboxPane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case inboxLoadedMsg:
		return p.loaded(msg)
	case tea.KeyPressMsg:
		return p.key(msg)
	}
	return nil
}

func (p *inboxPane) key(msg tea.KeyPressMsg) tea.Cmd {
	k := p.c.keys
	if p.pageKey(k, msg, len(p.rows), p.visible()) {
		return nil
	}
	switch {
	case key.Matches(msg, k.Back):
		return p.c.back()
	case key.Matches(msg, k.Refresh):
		return p.refresh()
	case p.cursor >= len(p.rows):
		return nil
	case key.Matches(msg, k.Reply.Binding):
		r := p.rows[p.cursor]
		return p.c.gate(k.Reply.Action, func() tea.Cmd {
			return cmdOf(inboxReplyMsg{To: r.Sender, Line: r.Line, MessageID: r.MessageID, Action: r.Action})
		})
	case key.Matches(msg, k.Enter):
		r := p.rows[p.cursor]
		return p.c.openViewer("Message from "+r.Sender, p.wholeMessage(r))
	}
	return nil
}

// wholeMessage is one message in full, for the viewer.
func (p *inboxPane) wholeMessage(r app.InboxMessage) []string {
	send := r.SendID
	if send == "" {
		send = "none: no send from this line reached this number before it"
	}
	return []string{
		"From:        " + r.Sender,
		"To line:     " + r.Line,
		"Received:    " + r.ReceivedAt.Format("2006-01-02 15:04:05 MST"),
		"Did:         " + actionWords(r.Action, r.Line),
		"Answers:     send " + send,
		"Message id:  " + r.MessageID,
		"",
		model.Sanitize(r.Message),
	}
}

// actionWord is what a message did to the opt-out list, in a word.
func actionWord(a model.ReplyAction) string {
	switch a {
	case model.ReplyOptOut:
		return "opted out"
	case model.ReplyOptIn:
		return "opted in"
	}
	return "—"
}

// actionWords is what a message did, in a sentence.
func actionWords(a model.ReplyAction, line string) string {
	switch a {
	case model.ReplyOptOut:
		return fmt.Sprintf("put its sender on line %s's opt-out list (a reply «۱۱»)", line)
	case model.ReplyOptIn:
		return fmt.Sprintf("took its sender off line %s's opt-out list (a reply «۱۲»)", line)
	}
	return "nothing (any reply but «۱۱» and «۱۲» is kept, and changes nothing)"
}
