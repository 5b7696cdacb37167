package console

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/smsdesk/smsdesk/model"
)

// senderPick is the composer's choice of sender line: one of the profile's
// lines, or "other…", a line the operator types for this send (the only
// choice when the profile lists none, as with SMSDESK_BASE_URL and
// SMSDESK_API_KEY alone). The typed line is never written to the profile.
type senderPick struct {
	lines  []string // the profile's lines (its Senders, else its one Sender)
	choice int      // index into lines; len(lines) is "other…"
	input  textinput.Model
}

// senderMaxLen is the longest sender line the field takes (the service's limit).
const senderMaxLen = 64

func newSenderPick() senderPick {
	in := textinput.New()
	in.Prompt = ""
	in.Placeholder = "e.g. 3000505"
	in.CharLimit = senderMaxLen
	in.Width = 24
	in.Cursor.SetMode(cursor.CursorStatic)
	return senderPick{input: in}
}

// reset chooses the profile's default line again; a line typed earlier in
// this session stays in the field for "other…".
func (s *senderPick) reset(prof Profile) {
	s.lines = prof.Senders
	if len(s.lines) == 0 && strings.TrimSpace(prof.Sender) != "" {
		s.lines = []string{prof.Sender}
	}
	s.choice = 0
	for i, l := range s.lines {
		if l == prof.Sender {
			s.choice = i
		}
	}
	s.input.Blur()
}

// other reports whether the typed line is in use.
func (s *senderPick) other() bool { return s.choice >= len(s.lines) }

// line is the chosen sender line ("" when none is chosen or typed yet).
func (s *senderPick) line() string {
	if s.other() {
		return strings.TrimSpace(s.input.Value())
	}
	return s.lines[s.choice]
}

// next moves to the following choice, wrapping after "other…"; on "other…"
// it focuses the field.
func (s *senderPick) next() tea.Cmd {
	s.choice = (s.choice + 1) % (len(s.lines) + 1)
	if s.other() {
		return s.input.Focus()
	}
	return nil
}

// pickSender answers the sender key: the next of the profile's lines, then
// "other…" to type one; with no lines listed, straight to the field.
func (p *composerPane) pickSender() tea.Cmd {
	p.editor.Blur()
	cmd := p.senderPick.next()
	switch {
	case len(p.senderPick.lines) == 0:
		p.note = "type the sender line for this send; enter uses it"
	case p.senderPick.other():
		p.note = "other…: type the sender line for this send; enter uses it · s (outside the field) goes back to the profile's lines"
	default:
		p.note = fmt.Sprintf("sender line %d of %d: %s · s picks the next (then other… to type one)",
			p.senderPick.choice+1, len(p.senderPick.lines), model.SanitizeLine(p.senderPick.line()))
	}
	p.replan()
	return cmd
}

// askSender focuses the sender field because the send has no sender line.
func (p *composerPane) askSender() tea.Cmd {
	p.editor.Blur()
	p.senderPick.choice = len(p.senderPick.lines)
	p.note = "✗ no sender line: type the line to send from above, then ctrl+s again"
	return p.senderPick.input.Focus()
}

// senderKey handles a key while the sender field has focus: enter and esc
// leave it (the typed line stays chosen); anything else types.
func (p *composerPane) senderKey(msg tea.KeyMsg) tea.Cmd {
	if key.Matches(msg, p.c.keys.UseSender) || key.Matches(msg, p.c.keys.LeaveField) {
		p.LeaveField()
		if l := p.senderPick.line(); l != "" {
			p.note = "sender line for this send: " + model.SanitizeLine(l)
		}
		return nil
	}
	var cmd tea.Cmd
	p.senderPick.input, cmd = p.senderPick.input.Update(msg)
	return cmd
}

// senderHelp lists the sender field's keys.
func (p *composerPane) senderHelp() []key.Binding {
	return []key.Binding{p.c.keys.UseSender, p.c.keys.LeaveField, p.c.keys.Send}
}

// senderField draws the sender field line shown while it has focus.
func (p *composerPane) senderField(w int) string {
	st := p.c.styles
	iw := max(10, min(senderMaxLen/2, w-40))
	return fit(st.Label.Render("Sender line for this send: ")+"["+fit(p.senderPick.input.View(), iw)+"]"+
		st.Muted.Render(" enter uses it"), w)
}
