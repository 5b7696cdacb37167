package console

import (
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

// helpPane is the `?` screen: the full key map, rendered from the same
// key.Binding definitions the footer uses.
type helpPane struct {
	c    *common
	w, h int
	keys func() [][]key.Binding
	help help.Model
}

func newHelpPane(c *common, keys func() [][]key.Binding) *helpPane {
	h := help.New()
	h.ShowAll = true
	return &helpPane{c: c, keys: keys, help: h}
}

func (p *helpPane) SetSize(w, h int)       { p.w, p.h = w, h; p.help.Width = w - 4 }
func (p *helpPane) Focus() tea.Cmd         { return nil }
func (p *helpPane) Blur()                  {}
func (p *helpPane) Editing() bool          { return false }
func (p *helpPane) LeaveField()            {}
func (p *helpPane) Update(tea.Msg) tea.Cmd { return nil }

// ShortHelp lists the help screen's keys.
func (p *helpPane) ShortHelp() []key.Binding {
	return []key.Binding{p.c.keys.CloseHelp}
}

// FullHelp lists the help screen's keys.
func (p *helpPane) FullHelp() [][]key.Binding { return [][]key.Binding{p.ShortHelp()} }

// helpNotes explain what the key map alone does not say.
func helpNotes() []string {
	return []string{
		"In a text field every key types; ctrl+c first leaves the field.",
		"Confirmations default to No: only y (or tab to Yes, then enter) sends.",
	}
}

// helpGap separates help columns.
const helpGap = "    "

// keyRows lays the key groups out side by side, as many as fit the width,
// and wraps the rest into further rows: no binding is ever cut off (bubbles'
// FullHelpView drops whole columns past its width).
func (p *helpPane) keyRows(groups [][]key.Binding) []string {
	h := p.help
	h.Width = 0
	var rows, row []string
	used := 0
	for _, g := range groups {
		col := h.FullHelpView([][]key.Binding{g})
		w := lipgloss.Width(col)
		if len(row) > 0 && used+len(helpGap)+w > p.w-4 {
			rows = append(rows, lipgloss.JoinHorizontal(lipgloss.Top, row...))
			row, used = nil, 0
		}
		if len(row) > 0 {
			row = append(row, helpGap)
			used += len(helpGap)
		}
		row = append(row, col)
		used += w
	}
	if len(row) > 0 {
		rows = append(rows, lipgloss.JoinHorizontal(lipgloss.Top, row...))
	}
	return rows
}

// notesBlock wraps the notes to w cells, one note after another.
func (p *helpPane) notesBlock(w int) string {
	wrap := p.c.styles.Muted.Width(w)
	notes := helpNotes()
	for i, n := range notes {
		notes[i] = wrap.Render(n)
	}
	return strings.Join(notes, "\n")
}

// View draws the key map with the notes below it when they fit there, else
// beside the last row of keys (at 80×24 they would be cut off below). Keys
// come first: if nothing fits, the notes are what is cut.
func (p *helpPane) View() string {
	st := p.c.styles
	iw, ih := p.w-2, p.h-2
	rows := p.keyRows(p.keys())
	keys := strings.Join(rows, "\n\n")
	head := st.Title.Render("smsdesk keys") + "\n\n"
	below := p.notesBlock(iw)
	body := head + keys + "\n\n" + below
	if lipgloss.Height(body) > ih && len(rows) > 0 {
		last := rows[len(rows)-1]
		if room := iw - lipgloss.Width(last) - len(helpGap); room >= 20 {
			rows[len(rows)-1] = lipgloss.JoinHorizontal(lipgloss.Top, last, helpGap, p.notesBlock(room))
			if beside := head + strings.Join(rows, "\n\n"); lipgloss.Height(beside) <= ih {
				body = beside
			}
		}
	}
	return st.PaneFocused.Render(block(body, iw, ih))
}
