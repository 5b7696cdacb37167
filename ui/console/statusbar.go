package console

// The status bar: who and where (the profile, who is signed in, the
// service, the sender line), the rules (quiet hours now or within the
// hour), the rate budget, and on its right the last note, error or
// notice. Its words are never cut (issue 40 item 4: "quiet hours until
// 0…" at 80 columns, "as send 2026…; it runs wh…" after scheduling): the
// lesser parts give way whole (the rate, then the service, then the
// sender line), and a note that does not fit beside what stays is wrapped
// on up to three lines of its own above the bar, which the screen's body
// gives up while it shows.

import (
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/smsdesk/smsdesk/model"
)

// barRank orders the status bar's parts by what gives way first when the
// line is too narrow: the lowest first; barKept never does.
type barRank int

const (
	barRate   barRank = iota // the rate budget, last on the line
	barHost                  // the service's host
	barSender                // the sender line
	barRules                 // quiet hours, or rules that do not read
	barKept                  // the profile, and who is signed in
)

// barPart is one part of the status bar's left side.
type barPart struct {
	text string
	rank barRank
}

// messageMost is how many lines a note above the status bar may take.
const messageMost = 3

// statusParts are the left side's parts, in the order they are shown.
func (m *root) statusParts() []barPart {
	p := m.c.profile
	name := p.Name
	if name == "" {
		name = "default"
	}
	if m.c.opts.Demo && name != "demo" { // --demo's own profile is named demo: said once
		name += " (demo)"
	}
	parts := []barPart{{name, barKept}}
	if op := m.c.session.Current(); op != nil { // served (smsdesk serve): who is signed in, their role as last read
		parts = append(parts, barPart{op.Name + " (" + string(op.Role) + ")", barKept})
	}
	if host := m.c.host(); host != "" {
		parts = append(parts, barPart{host, barHost})
	}
	parts = append(parts, barPart{m.senderText(), barSender})
	if r := m.rulesText(); r != "" {
		parts = append(parts, barPart{r, barRules})
	}
	return append(parts, barPart{m.rateText(), barRate})
}

// senderText is the sender line as the bar says it.
func (m *root) senderText() string {
	sender := m.c.rules.Sender
	if m.screen == screenComposer {
		sender = m.composer.senderLine() // the profile's, or one typed for this send
	}
	if sender == "" {
		return "no sender line"
	}
	return "sender " + sender
}

// rulesText is what the rules say now: quiet hours now or within the hour
// (as the config file holds them: rules.go), or that they do not read.
func (m *root) rulesText() string {
	if m.c.rulesErr != "" {
		return "⚠ settings do not read (L)"
	}
	now := m.c.now()
	w := m.c.rules.QuietSoon(now)
	switch {
	case w == nil:
		return ""
	case now.Before(w.Start):
		return "quiet hours at " + w.StartText(now)
	}
	return "quiet hours until " + w.UntilText(now)
}

// statusRight is the bar's right side: the last error, a notice that the
// service could not be reached (while it holds), or the last note; and
// its style.
func (m *root) statusRight() (string, lipgloss.Style) {
	st := m.c.styles
	bad := st.StatusBar.Foreground(m.c.theme.Bad).Bold(true)
	switch {
	case m.trouble != "" && m.c.now().Before(m.troubleUntil):
		right := "⚠ " + m.trouble
		if m.screen == screenResults && m.results.running() {
			right += " · esc stops"
		}
		return model.SanitizeLine(right), bad
	case m.lastErr != "":
		return model.SanitizeLine("✗ " + m.lastErr), bad
	case m.screen == screenComposer && m.note == m.composer.note:
		return "", st.StatusBar // the composer says it whole under its totals (a send scheduled): not twice
	}
	return model.SanitizeLine(m.note), st.StatusBar
}

// barLine is parts joined as the bar shows them (the profile's, the
// operator's and the service's text cleaned here, where the line is made).
func barLine(parts []barPart) string {
	texts := make([]string, len(parts))
	for i, p := range parts {
		texts[i] = p.text
	}
	return displayText(model.SanitizeLine(" " + strings.Join(texts, " · ") + " "))
}

// giveWay drops parts, the lowest rank first and the later of a rank
// first, until the line is at most w cells or only parts ranked above
// floor are left.
func giveWay(parts []barPart, w int, floor barRank) []barPart {
	for cellWidth(barLine(parts)) > w {
		at := -1
		for i, p := range parts {
			if p.rank < floor && (at < 0 || p.rank <= parts[at].rank) {
				at = i
			}
		}
		if at < 0 {
			return parts
		}
		parts = append(parts[:at:at], parts[at+1:]...)
	}
	return parts
}

// noteAbove reports whether the right side's text does not fit on the
// bar beside the parts that never give way to it (who, and the rules):
// it is then wrapped above the bar.
func (m *root) noteAbove(parts []barPart, right string) bool {
	if right == "" {
		return false
	}
	kept := giveWay(parts, 0, barRules)
	return cellWidth(barLine(kept))+cellWidth("· "+right+" ") > m.c.width
}

// messageLines are the lines above the status bar: the right side's text
// wrapped, when it does not fit on the bar (none when it does). While a
// dialog is open it has the screen: such a note waits, whole, until it
// closes.
func (m *root) messageLines() []string {
	if m.modal != nil {
		return nil
	}
	right, rs := m.statusRight()
	if !m.noteAbove(m.statusParts(), right) {
		return nil
	}
	lines := wrapWords(right, m.c.width-2, messageMost, m.c.bidi)
	for i, l := range lines {
		lines[i] = rs.Render(fitView(" "+l+" ", m.c.width))
	}
	return lines
}

// statusBar is the bar's line: as many parts as fit, the lesser giving
// way whole, and the right side when it fits beside them.
func (m *root) statusBar() string {
	st := m.c.styles
	parts := m.statusParts()
	right, rs := m.statusRight()
	if m.noteAbove(parts, right) {
		right = "" // said above the bar, whole
	}
	if right == "" {
		left := barLine(giveWay(parts, m.c.width, barKept))
		return st.StatusBar.Render(fitView(left, m.c.width))
	}
	right = "· " + m.c.line(right) + " " // apart from the rate when it fills the line ("per min signed in" read as one); a note may quote a Persian name
	left := barLine(giveWay(parts, m.c.width-cellWidth(right), barKept))
	return st.StatusBar.Render(left) + rs.Render(fitRight(right, m.c.width-cellWidth(left)))
}
