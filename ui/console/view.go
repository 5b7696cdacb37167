package console

import (
	"charm.land/bubbles/v2/key"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/model"
)

// View draws the current screen, the status bar and the one-line key help,
// in the alternate screen and with the mouse unless the options say not to.
func (m *root) View() tea.View {
	v := tea.NewView(m.frame())
	v.AltScreen = !m.c.opts.NoAltScreen
	if !m.c.opts.NoMouse {
		v.MouseMode = tea.MouseModeCellMotion
	}
	return v
}

// frame is the screen's text. Under NO_COLOR it carries no colour at all,
// whatever a component's default style is (the program's ASCII profile
// would drop it too; the frame does not rely on it).
func (m *root) frame() string {
	if m.c.theme.Name == NoColorTheme.Name {
		return withoutColour(cleanFrame(m.view()))
	}
	return cleanFrame(m.view())
}

func (m *root) view() string {
	w, h := m.c.width, m.c.height
	if w == 0 || h == 0 {
		return "starting…"
	}
	if w < minWidth || h < minHeight {
		return tooSmall(w, h)
	}
	var body string
	switch m.screen {
	case screenMain:
		body = lipgloss.JoinHorizontal(lipgloss.Top, m.groups.View(), m.contacts.View())
	default:
		body = m.active().View()
	}
	msg := m.messageLines()
	msg = append(msg, make([]string, max(0, m.msgRows-len(msg)))...)[:m.msgRows] // as the panes were sized (fitMessage)
	body = block(body, w, h-2-len(msg))
	if m.modal != nil {
		body = overlay(body, m.modal.View(), w, h-2-len(msg))
	}
	for _, l := range msg {
		body += "\n" + l
	}
	return body + "\n" + m.statusBar() + "\n" + m.footer()
}

// tooSmall says the real size and what is needed, in short lines, the most
// important first and each cut to the width, so that even a 20×2 terminal
// shows its size whole.
func tooSmall(w, h int) string {
	lines := []string{
		fmt.Sprintf("%d×%d: too small", w, h),
		fmt.Sprintf("smsdesk needs at least %d×%d; this one is %d×%d.", minWidth, minHeight, w, h),
		"Enlarge the window (or zoom out) and the console will reflow.",
		"For scripts, use the commands: smsdesk --help",
	}
	lines = lines[:min(len(lines), h)]
	for i, l := range lines {
		lines[i] = strings.TrimRight(fit(l, w), " ")
	}
	return strings.Join(lines, "\n")
}

// rateText is the remaining request budget ("rate 57/60 per min", or the
// service's own, e.g. "rate 18/20 per 2 s"), or the wait in progress; the
// clock is told what was drawn.
func (m *root) rateText() string {
	if m.c.client() == nil {
		return "not signed in"
	}
	t := rateTextOf(m.c.client())
	m.clock.shown.Store(&t)
	return t
}

// rateTextOf is cl's rate budget as the status bar shows it.
func rateTextOf(cl *client.Client) string {
	rs := cl.RateStatus()
	if rs.Waiting > 0 {
		reason := rs.Reason
		if reason == "" {
			reason = "rate limit"
		}
		return fmt.Sprintf("waiting %d s (%s)", int(rs.Waiting.Seconds()+0.999), reason)
	}
	if rs.Limit <= 0 || rs.Window <= 0 {
		return "rate –"
	}
	per := "min"
	if rs.Window != time.Minute {
		per = strings.TrimPrefix(rs.Budget(), fmt.Sprintf("%d per ", rs.Limit))
	}
	return fmt.Sprintf("rate %d/%d per %s", max(rs.Remaining, 0), rs.Limit, per)
}

// footer is the one-line key help of the focused pane plus the global keys.
// While a form, a dialog or a text field has focus it lists only their keys:
// the global ones type there instead.
func (m *root) footer() string {
	k := m.c.keys
	pane := m.active().ShortHelp()
	var keys []key.Binding
	switch {
	case m.modal != nil:
		return fitView(m.help.ShortHelpView(m.modal.ShortHelp()), m.c.width)
	case m.active().Editing():
		// A text field has every key: ? types a ?, so it is not offered.
		return fitView(m.help.ShortHelpView(pane), m.c.width)
	case m.screen == screenMain:
		// The pane's first keys, then compose and quit, then the rest.
		head := pane[:min(3, len(pane))]
		keys = append(append(append([]key.Binding{}, head...), k.Compose.Binding, k.Quit), pane[len(head):]...)
		keys = append(keys, k.NextPane, k.History, k.Inbox)
	case m.screen == screenHelp:
		// ? closes the help here: "? help" would say the opposite.
		return fitView(m.help.ShortHelpView(pane), m.c.width)
	case m.qGoesBack():
		keys = pane // q goes back here, as the pane's esc does: not "q quit"
	default:
		keys = append(append([]key.Binding{}, pane...), k.Quit)
	}
	return m.footerFit(m.c.forRole(keys, k.Compose))
}

// footerFit shows as many of keys as fit, most important first, and always
// ends with "? help": the way to every key is never cut off.
func (m *root) footerFit(keys []key.Binding) string {
	h := m.help
	h.SetWidth(0) // no truncation: keys are dropped whole instead
	tail := h.ShortHelpView([]key.Binding{m.c.keys.Help})
	sep := h.ShortSeparator
	for n := len(keys); n > 0; n-- {
		v := h.ShortHelpView(keys[:n]) + sep + tail
		if lipgloss.Width(v) <= m.c.width {
			return fitView(v, m.c.width)
		}
	}
	return fitView(tail, m.c.width)
}

// overlay centres box over the body.
func overlay(body, box string, w, h int) string {
	lines := strings.Split(body, "\n")
	boxLines := strings.Split(box, "\n")
	bw := lipgloss.Width(box)
	if bw > w {
		bw = w
	}
	top := (h - len(boxLines)) / 2
	if top < 0 {
		top = 0
	}
	left := (w - bw) / 2
	for i, bl := range boxLines {
		y := top + i
		if y >= len(lines) {
			break
		}
		l := lines[y]
		prefix := ansi.Truncate(l, left, "")
		prefix = fitView(prefix, left)
		rest := ansi.TruncateLeft(l, left+bw, "")
		lines[y] = prefix + fitView(bl, bw) + rest
	}
	return strings.Join(lines, "\n")
}

// errorLine renders an error for the status bar: one sanitised line.
func errorLine(err error) string {
	if err == nil {
		return ""
	}
	s := err.Error()
	var ae *client.APIError
	if errors.As(err, &ae) {
		if h := ae.Hint(); h != "" {
			s += " — " + h
		}
	}
	return model.SanitizeLine(s)
}

// sgr matches one Select Graphic Rendition sequence.
var sgr = regexp.MustCompile(`\x1b\[([0-9;]*)m`)

// withoutColour removes every colour from a frame's SGR sequences and keeps
// the attributes (bold, faint, underline, reverse): under NO_COLOR no colour
// reaches the terminal, whatever a component's default style is.
func withoutColour(frame string) string {
	if !strings.Contains(frame, "\x1b[") {
		return frame
	}
	return sgr.ReplaceAllStringFunc(frame, sgrWithoutColour)
}

// sgrWithoutColour is one SGR sequence with its colours left out: "" when
// nothing else is left.
func sgrWithoutColour(seq string) string {
	params := strings.Split(seq[2:len(seq)-1], ";")
	var keep []string
	for i := 0; i < len(params); i++ {
		switch p := params[i]; {
		case p == "38" || p == "48" || p == "58": // extended colour: 5;n or 2;r;g;b
			i += extendedColourLen(params[i+1:])
		case len(p) == 2 && (p[0] == '3' || p[0] == '4' || p[0] == '9'), len(p) == 3 && p[:2] == "10":
			// 30–39, 40–49, 90–97 and 100–107 are colours
		default:
			keep = append(keep, p)
		}
	}
	if len(keep) == 0 {
		return ""
	}
	return "\x1b[" + strings.Join(keep, ";") + "m"
}

// extendedColourLen is how many parameters after 38, 48 or 58 name its
// colour: 5;n (2) or 2;r;g;b (4); none when rest says neither.
func extendedColourLen(rest []string) int {
	if len(rest) == 0 {
		return 0
	}
	switch rest[0] {
	case "5":
		return 2
	case "2":
		return 4
	}
	return 0
}
