package console

import (
	"image/color"

	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/textinput"
	"charm.land/lipgloss/v2"
)

// Theme is the palette the console draws with. It is chosen before the program
// starts (see Options.Theme) so nothing ever asks the terminal for its colours.
type Theme struct {
	Name    string
	Text    color.Color
	Muted   color.Color
	Accent  color.Color
	Border  color.Color
	Focus   color.Color
	Good    color.Color
	Bad     color.Color
	Warn    color.Color
	BarText color.Color
	BarBack color.Color
}

// DarkTheme suits terminals with a dark background (the default).
var DarkTheme = Theme{
	Name: "dark", Text: lipgloss.Color("252"), Muted: lipgloss.Color("245"), Accent: lipgloss.Color("81"), Border: lipgloss.Color("240"), Focus: lipgloss.Color("212"),
	Good: lipgloss.Color("78"), Bad: lipgloss.Color("203"), Warn: lipgloss.Color("221"), BarText: lipgloss.Color("252"), BarBack: lipgloss.Color("236"),
}

// LightTheme suits terminals with a light background.
var LightTheme = Theme{
	Name: "light", Text: lipgloss.Color("235"), Muted: lipgloss.Color("242"), Accent: lipgloss.Color("25"), Border: lipgloss.Color("250"), Focus: lipgloss.Color("162"),
	Good: lipgloss.Color("28"), Bad: lipgloss.Color("160"), Warn: lipgloss.Color("130"), BarText: lipgloss.Color("235"), BarBack: lipgloss.Color("254"),
}

// NoColorTheme is for NO_COLOR: no colour at all. Focus, selection, the
// cursor and errors are shown with attributes instead (thick borders, reverse,
// bold, underline, faint), which NO_COLOR allows.
var NoColorTheme = Theme{Name: "no-color"}

// Styles holds every lipgloss style the console uses, built once from a Theme.
type Styles struct {
	Pane        lipgloss.Style
	PaneFocused lipgloss.Style
	// PaneBeside is the focused one of two panes side by side: its top and
	// bottom edges in the focus colour, its sides as an unfocused pane's.
	// Tab between them then redraws four lines, not every row: a row whose
	// both ends change is rewritten whole by bubbletea's renderer.
	PaneBeside lipgloss.Style
	Title      lipgloss.Style
	Header     lipgloss.Style
	Selected   lipgloss.Style
	Muted      lipgloss.Style
	Good       lipgloss.Style
	Bad        lipgloss.Style
	Warn       lipgloss.Style
	Accent     lipgloss.Style
	StatusBar  lipgloss.Style
	StatusKey  lipgloss.Style
	Modal      lipgloss.Style
	Label      lipgloss.Style
	Error      lipgloss.Style
	Plain      lipgloss.Style // no colour: layout only (wrapping text)
}

// DefaultStyles builds the console's styles from a theme.
func DefaultStyles(t Theme) *Styles {
	border := lipgloss.RoundedBorder()
	base := lipgloss.NewStyle().Foreground(t.Text)
	return &Styles{
		Plain:       lipgloss.NewStyle(),
		Pane:        lipgloss.NewStyle().Border(border).BorderForeground(t.Border),
		PaneFocused: lipgloss.NewStyle().Border(border).BorderForeground(t.Focus),
		PaneBeside: lipgloss.NewStyle().Border(border).BorderForeground(t.Focus).
			BorderLeftForeground(t.Border).BorderRightForeground(t.Border),
		Title:     base.Bold(true).Foreground(t.Accent),
		Header:    base.Bold(true).Foreground(t.Muted),
		Selected:  base.Reverse(true),
		Muted:     lipgloss.NewStyle().Foreground(t.Muted),
		Good:      lipgloss.NewStyle().Foreground(t.Good),
		Bad:       lipgloss.NewStyle().Foreground(t.Bad),
		Warn:      lipgloss.NewStyle().Foreground(t.Warn),
		Accent:    lipgloss.NewStyle().Foreground(t.Accent),
		StatusBar: lipgloss.NewStyle().Foreground(t.BarText).Background(t.BarBack),
		StatusKey: lipgloss.NewStyle().Foreground(t.Accent).Background(t.BarBack).Bold(true),
		Modal:     lipgloss.NewStyle().Border(lipgloss.DoubleBorder()).BorderForeground(t.Focus).Padding(0, 1),
		Label:     lipgloss.NewStyle().Foreground(t.Muted),
		Error:     lipgloss.NewStyle().Foreground(t.Bad).Bold(true),
	}
}

// besideBorder is the focused one of two panes side by side without
// colour (PaneBeside): heavy top and bottom edges, the sides light as an
// unfocused pane's, so that tab between them rewrites four lines, not every
// row (a thick border all round cost 3,095 B a tab, issue 28).
var besideBorder = lipgloss.Border{
	Top: "━", Bottom: "━", Left: "│", Right: "│",
	TopLeft: "┍", TopRight: "┑", BottomLeft: "┕", BottomRight: "┙",
}

// noColorStyles are DefaultStyles for NoColorTheme: attributes only.
func noColorStyles() *Styles {
	plain := lipgloss.NewStyle()
	return &Styles{
		Plain:       plain,
		Pane:        plain.Border(lipgloss.RoundedBorder()),
		PaneFocused: plain.Border(lipgloss.ThickBorder()).Bold(true), // focus without colour
		PaneBeside:  plain.Border(besideBorder),
		Title:       plain.Bold(true),
		Header:      plain.Bold(true).Underline(true),
		Selected:    plain.Reverse(true),
		Muted:       plain.Faint(true),
		Good:        plain,
		Bad:         plain.Bold(true),
		Warn:        plain.Bold(true),
		Accent:      plain.Bold(true),
		StatusBar:   plain.Reverse(true),
		StatusKey:   plain.Reverse(true).Bold(true),
		Modal:       plain.Border(lipgloss.DoubleBorder()).Padding(0, 1),
		Label:       plain.Faint(true),
		Error:       plain.Bold(true).Underline(true),
	}
}

// steadyInput gives a text input the bubbles styles for the theme's
// background and the console's cursor: drawn in the frame and steady. A blinking cursor is a redraw twice a second, bytes over a
// slow link for nothing.
func steadyInput(in *textinput.Model, dark bool) {
	s := textinput.DefaultStyles(dark)
	s.Cursor.Blink = false
	in.SetStyles(s)
}

// steadyArea is steadyInput for the composer's editor.
func steadyArea(ed *textarea.Model, dark bool) {
	s := textarea.DefaultStyles(dark)
	s.Cursor.Blink = false
	ed.SetStyles(s)
}

// barColour is the progress bar's one colour: the theme's "good", or none
// under NO_COLOR (the bar's blocks show the progress without it).
func barColour(t Theme) color.Color {
	if t.Good == nil {
		return lipgloss.NoColor{}
	}
	return t.Good
}
