package console

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// helpPane is the `?` screen: every key binding, under a heading for where it
// works, rendered from the same key.Binding definitions the footer uses. The
// sections flow into as many columns as the width allows; what does not fit
// the height scrolls (↑/↓, pgup/pgdn), so no binding is ever out of reach.
type helpPane struct {
	c        *common
	w, h     int
	sections func() []HelpSection
	offset   int // first line shown
	lines    int // lines of the laid-out content at the current size
}

func newHelpPane(c *common, sections func() []HelpSection) *helpPane {
	return &helpPane{c: c, sections: sections}
}

func (p *helpPane) SetSize(w, h int) { p.w, p.h = w, h; p.offset = 0 }
func (p *helpPane) Focus() tea.Cmd   { p.offset = 0; return nil }
func (p *helpPane) Blur()            {}
func (p *helpPane) Editing() bool    { return false }
func (p *helpPane) LeaveField()      {}

// Update scrolls when the content is taller than the screen.
func (p *helpPane) Update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	p.offset, _ = scrollText(p.c.keys, km, p.offset, p.lines, p.h-2)
	return nil
}

// scrolls reports whether the content is taller than the screen.
func (p *helpPane) scrolls() bool { return p.lines > p.h-2 }

// ShortHelp lists the help screen's keys.
func (p *helpPane) ShortHelp() []key.Binding {
	if p.scrolls() {
		return []key.Binding{p.c.keys.Down, p.c.keys.Up, p.c.keys.CloseHelp}
	}
	return []key.Binding{p.c.keys.CloseHelp}
}

// FullHelp lists the help screen's keys.
func (p *helpPane) FullHelp() [][]key.Binding { return [][]key.Binding{p.ShortHelp()} }

// helpNotes explain what the key map alone does not say.
func helpNotes(bidiVisual bool) []string {
	bidi := "Right-to-left text is shown as written, for terminals that reorder it (Konsole, GNOME Terminal); B reorders it (tmux, kitty, PuTTY, Windows Terminal)."
	if bidiVisual {
		bidi = "Right-to-left text is reordered by smsdesk, for terminals that do not (tmux, kitty, PuTTY, Windows Terminal); B shows it as written (Konsole, GNOME Terminal)."
	}
	return []string{
		"In a text field every key types; ctrl+c first leaves the field.",
		"Confirmations default to No: only y (or tab to Yes, then enter) sends.",
		bidi,
	}
}

// helpGap separates help columns.
const helpGap = "  "

// sectionBlock renders one section: its heading, then "key  description"
// lines with the keys in a column.
func (p *helpPane) sectionBlock(s HelpSection) []string {
	st := p.c.styles
	kw := 0
	for _, b := range s.Bindings {
		kw = max(kw, cellWidth(b.Help().Key))
	}
	out := []string{st.Header.Render(s.Title)}
	for _, b := range s.Bindings {
		h := b.Help()
		out = append(out, st.Accent.Render(fit(h.Key, kw))+" "+h.Desc)
	}
	return out
}

// layout flows the sections into columns no taller than height (a section is
// never split), and reports the columns' total width.
func (p *helpPane) layout(height int) ([][]string, int) {
	var cols [][]string
	var col []string
	for _, s := range p.sections() {
		b := p.sectionBlock(s)
		if len(col) > 0 && len(col)+1+len(b) > height {
			cols, col = append(cols, col), nil
		}
		if len(col) > 0 {
			col = append(col, "")
		}
		col = append(col, b...)
	}
	if len(col) > 0 {
		cols = append(cols, col)
	}
	total := 0
	for i, c := range cols {
		if i > 0 {
			total += len(helpGap)
		}
		total += lipgloss.Width(strings.Join(c, "\n"))
	}
	return cols, total
}

// content lays the keys out in the fewest lines that fit the width, with the
// notes below them.
func (p *helpPane) content(iw, ih int) []string {
	st := p.c.styles
	head := []string{st.Title.Render("smsdesk keys"), ""}
	notes := strings.Split(st.Muted.Width(iw).Render(strings.Join(helpNotes(p.c.bidi), "\n")), "\n")
	room := max(4, ih-len(head)-1-len(notes))
	var cols [][]string
	for h := room; ; h++ {
		c, w := p.layout(h)
		if w <= iw || len(c) <= 1 {
			cols = c
			break
		}
	}
	blocks := make([]string, 0, 2*len(cols))
	for i, c := range cols {
		if i > 0 {
			blocks = append(blocks, helpGap)
		}
		blocks = append(blocks, strings.Join(c, "\n"))
	}
	keys := strings.Split(lipgloss.JoinHorizontal(lipgloss.Top, blocks...), "\n")
	out := append(head, keys...)
	out = append(out, "")
	return append(out, notes...)
}

// View draws the part of the content that fits, from the scroll offset.
func (p *helpPane) View() string {
	iw, ih := p.w-2, p.h-2
	lines := p.content(iw, ih)
	p.lines = len(lines)
	p.offset = max(0, min(p.offset, len(lines)-ih))
	shown := lines[p.offset:]
	if len(shown) > ih {
		shown = shown[:ih]
		more := p.c.styles.Muted.Render("↓ more (pgdn)")
		shown[ih-1] = more
	}
	return p.c.styles.PaneFocused.Render(block(strings.Join(shown, "\n"), iw, ih))
}
