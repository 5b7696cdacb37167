package console

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// senderPick is the composer's choice of sender line: one of the profile's
// lines, or "other…", a line the operator types: added to the profile only
// when the operator says yes to that, or used for this send alone when the
// profile lists no lines (as with SMSDESK_BASE_URL and SMSDESK_API_KEY alone;
// the service decides).
type senderPick struct {
	lines  []string // the profile's lines (its Senders, else its one Sender)
	choice int      // index into lines; len(lines) is "other…"
	prev   int      // the choice before the field was focused (esc returns to it)
	input  textinput.Model
}

// senderMaxLen is the longest sender line the field takes (the service's limit).
const senderMaxLen = 64

func newSenderPick(dark bool) senderPick {
	in := textinput.New()
	in.Prompt = ""
	in.Placeholder = "e.g. 3000505"
	in.CharLimit = senderMaxLen
	in.SetWidth(24)
	steadyInput(&in, dark)
	return senderPick{input: in}
}

// reset chooses the profile's default line again; a line typed earlier in
// this session stays in the field for "other…".
func (s *senderPick) reset(prof app.Profile) {
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

// pickSender answers the sender key: a list of the profile's lines and
// "other…" to type one, chosen with enter (esc keeps the current line). With
// no lines listed it goes straight to the field.
func (p *composerPane) pickSender() tea.Cmd {
	p.editor.Blur()
	if len(p.senderPick.lines) == 0 {
		p.senderPick.prev = p.senderPick.choice
		p.senderPick.choice = 0
		p.note = "type the sender line for this send; enter uses it · esc keeps the previous one"
		return p.senderPick.input.Focus()
	}
	return p.c.showModal(newLinePicker(p.c, p.senderPick.lines, p.senderPick.choice, p.chooseLine))
}

// chooseLine applies the picker's choice: one of the profile's lines, or
// "other…" (i == len(lines)), which focuses the field to type a line.
func (p *composerPane) chooseLine(i int) tea.Cmd {
	if i >= len(p.senderPick.lines) {
		p.senderPick.prev = p.senderPick.choice
		p.senderPick.choice = len(p.senderPick.lines)
		p.senderPick.input.SetValue("")
		p.note = "type the new line; enter adds it to profile " + model.SanitizeLine(p.c.profile.Name) + " (asked first) · esc keeps the previous line"
		p.replan()
		return p.senderPick.input.Focus()
	}
	p.senderPick.choice = i
	p.note = "sender line: " + model.SanitizeLine(p.senderPick.line())
	p.replan()
	return nil
}

// askSender focuses the sender field because the send has no sender line.
func (p *composerPane) askSender() tea.Cmd {
	p.editor.Blur()
	p.senderPick.prev = p.senderPick.choice
	p.senderPick.choice = len(p.senderPick.lines)
	p.note = "✗ no sender line: type the line to send from above, then ctrl+s again"
	return p.senderPick.input.Focus()
}

// senderKey handles a key while the sender field has focus. esc (or ctrl+c)
// drops what was typed and keeps the line chosen before; enter uses a line
// the profile lists (or any line when it lists none) and asks before adding a
// new one to the profile: a line typed by accident never sends.
func (p *composerPane) senderKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, p.c.keys.LeaveField):
		p.senderPick.input.SetValue("")
		p.senderPick.choice = min(p.senderPick.prev, len(p.senderPick.lines))
		p.LeaveField()
		p.note = "sender line kept: " + orNone(model.SanitizeLine(p.senderPick.line()))
		p.replan()
		return nil
	case key.Matches(msg, p.c.keys.UseSender):
		return p.useTypedLine()
	}
	var cmd tea.Cmd
	p.senderPick.input, cmd = p.senderPick.input.Update(msg)
	return cmd
}

// useTypedLine takes the typed line: at once when the profile lists it or
// lists no lines (the service decides), else after the operator agrees to
// add it to the profile.
func (p *composerPane) useTypedLine() tea.Cmd {
	typed := strings.TrimSpace(p.senderPick.input.Value())
	lines := p.senderPick.lines
	switch {
	case typed == "":
		p.note = "✗ type a sender line, or esc to keep the previous one"
		return nil
	case len(lines) == 0:
		p.LeaveField()
		p.note = "sender line for this send: " + model.SanitizeLine(typed)
		p.replan()
		return nil
	}
	for i, l := range lines {
		if l == typed {
			p.senderPick.input.SetValue("")
			p.LeaveField()
			return p.chooseLine(i)
		}
	}
	prof := p.c.profile.Name
	if p.c.opts.SaveSenders == nil {
		p.note = fmt.Sprintf("✗ %s is not one of profile %s's lines; add it with: smsdesk --profile %s config set senders …",
			model.SanitizeLine(typed), model.SanitizeLine(prof), model.SanitizeLine(prof))
		return nil
	}
	body := fmt.Sprintf("%s is not one of profile %s's sender lines (%s).\n\nYes adds it to the profile (saved in its config) and uses it for this send.\nNo goes back to the field.",
		model.SanitizeLine(typed), model.SanitizeLine(prof), model.SanitizeLine(strings.Join(lines, ", ")))
	return p.c.showModal(newConfirm(p.c, "Add a sender line to the profile?", body, func() tea.Cmd {
		return p.addLine(typed)
	}))
}

// addLine saves a new sender line in the profile and chooses it.
func (p *composerPane) addLine(line string) tea.Cmd {
	lines := append(append([]string(nil), p.senderPick.lines...), line)
	if err := p.c.opts.SaveSenders(lines); err != nil {
		p.note = "✗ saving the line in the profile: " + errorLine(err)
		return nil
	}
	p.c.profile.Senders = lines
	p.senderPick.lines = lines
	p.senderPick.input.SetValue("")
	p.LeaveField()
	p.note = "✓ line " + model.SanitizeLine(line) + " added to profile " + model.SanitizeLine(p.c.profile.Name)
	return p.chooseLine(len(lines) - 1)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
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
