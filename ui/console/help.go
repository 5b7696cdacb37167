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
func (p *helpPane) busy() bool             { return false }
func (p *helpPane) Update(tea.Msg) tea.Cmd { return nil }

// ShortHelp lists the help screen's keys.
func (p *helpPane) ShortHelp() []key.Binding {
	return []key.Binding{key.NewBinding(key.WithKeys("?", "esc", "q"), key.WithHelp("?/q", "close help"))}
}

// FullHelp lists the help screen's keys.
func (p *helpPane) FullHelp() [][]key.Binding { return [][]key.Binding{p.ShortHelp()} }

// columns lays the key groups out side by side, as many as fit the width,
// and wraps the rest below: no binding is ever cut off (bubbles' FullHelpView
// drops whole columns past its width).
func (p *helpPane) columns(groups [][]key.Binding) string {
	h := p.help
	h.Width = 0
	const gap = "    "
	var rows, row []string
	used := 0
	for _, g := range groups {
		col := h.FullHelpView([][]key.Binding{g})
		w := lipgloss.Width(col)
		if len(row) > 0 && used+len(gap)+w > p.w-4 {
			rows = append(rows, lipgloss.JoinHorizontal(lipgloss.Top, row...))
			row, used = nil, 0
		}
		if len(row) > 0 {
			row = append(row, gap)
			used += len(gap)
		}
		row = append(row, col)
		used += w
	}
	if len(row) > 0 {
		rows = append(rows, lipgloss.JoinHorizontal(lipgloss.Top, row...))
	}
	return strings.Join(rows, "\n\n")
}

func (p *helpPane) View() string {
	st := p.c.styles
	body := lipgloss.JoinVertical(lipgloss.Left,
		st.Title.Render("smsdesk keys"),
		"",
		p.columns(p.keys()),
		"",
		st.Muted.Render("Forms: tab/shift+tab move between fields, enter submits, esc cancels."),
		st.Muted.Render("In a text field every key types; ctrl+c first leaves the field."),
		st.Muted.Render("Confirmations default to No: only y (or tab to Yes, then enter) sends."),
	)
	return st.PaneFocused.Render(block(body, p.w-2, p.h-2))
}
