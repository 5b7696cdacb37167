package console

import (
	"github.com/charmbracelet/lipgloss"
)

// Theme is the palette the console draws with. It is chosen before the program
// starts (see Options.Theme) so nothing ever asks the terminal for its colours.
type Theme struct {
	Name    string
	Text    lipgloss.Color
	Muted   lipgloss.Color
	Accent  lipgloss.Color
	Border  lipgloss.Color
	Focus   lipgloss.Color
	Good    lipgloss.Color
	Bad     lipgloss.Color
	Warn    lipgloss.Color
	BarText lipgloss.Color
	BarBack lipgloss.Color
}

// DarkTheme suits terminals with a dark background (the default).
var DarkTheme = Theme{
	Name: "dark", Text: "252", Muted: "245", Accent: "81", Border: "240", Focus: "212",
	Good: "78", Bad: "203", Warn: "221", BarText: "252", BarBack: "236",
}

// LightTheme suits terminals with a light background.
var LightTheme = Theme{
	Name: "light", Text: "235", Muted: "242", Accent: "25", Border: "250", Focus: "162",
	Good: "28", Bad: "160", Warn: "130", BarText: "235", BarBack: "254",
}

// NoColorTheme is for NO_COLOR: no colour at all. Focus, selection, the
// cursor and errors are shown with attributes instead (thick borders, reverse,
// bold, underline, faint), which NO_COLOR allows.
var NoColorTheme = Theme{Name: "no-color"}

// Styles holds every lipgloss style the console uses, built once from a Theme.
type Styles struct {
	Pane        lipgloss.Style
	PaneFocused lipgloss.Style
	Title       lipgloss.Style
	Header      lipgloss.Style
	Selected    lipgloss.Style
	Muted       lipgloss.Style
	Good        lipgloss.Style
	Bad         lipgloss.Style
	Warn        lipgloss.Style
	Accent      lipgloss.Style
	StatusBar   lipgloss.Style
	StatusKey   lipgloss.Style
	Modal       lipgloss.Style
	Label       lipgloss.Style
	Error       lipgloss.Style
	Plain       lipgloss.Style // no colour: layout only (wrapping text)
}

// DefaultStyles builds the console's styles from a theme.
func DefaultStyles(t Theme) *Styles {
	border := lipgloss.RoundedBorder()
	base := lipgloss.NewStyle().Foreground(t.Text)
	return &Styles{
		Plain:       lipgloss.NewStyle(),
		Pane:        lipgloss.NewStyle().Border(border).BorderForeground(t.Border),
		PaneFocused: lipgloss.NewStyle().Border(border).BorderForeground(t.Focus),
		Title:       base.Bold(true).Foreground(t.Accent),
		Header:      base.Bold(true).Foreground(t.Muted),
		Selected:    base.Reverse(true),
		Muted:       lipgloss.NewStyle().Foreground(t.Muted),
		Good:        lipgloss.NewStyle().Foreground(t.Good),
		Bad:         lipgloss.NewStyle().Foreground(t.Bad),
		Warn:        lipgloss.NewStyle().Foreground(t.Warn),
		Accent:      lipgloss.NewStyle().Foreground(t.Accent),
		StatusBar:   lipgloss.NewStyle().Foreground(t.BarText).Background(t.BarBack),
		StatusKey:   lipgloss.NewStyle().Foreground(t.Accent).Background(t.BarBack).Bold(true),
		Modal:       lipgloss.NewStyle().Border(lipgloss.DoubleBorder()).BorderForeground(t.Focus).Padding(0, 1),
		Label:       lipgloss.NewStyle().Foreground(t.Muted),
		Error:       lipgloss.NewStyle().Foreground(t.Bad).Bold(true),
	}
}

// noColorStyles are DefaultStyles for NoColorTheme: attributes only.
func noColorStyles() *Styles {
	plain := lipgloss.NewStyle()
	return &Styles{
		Plain:       plain,
		Pane:        plain.Border(lipgloss.RoundedBorder()),
		PaneFocused: plain.Border(lipgloss.ThickBorder()).Bold(true), // focus without colour
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
