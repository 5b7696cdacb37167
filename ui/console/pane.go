package console

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// pane is one part of the console: it owns its state, draws itself at the size
// it is given, and names its own help keys (soft-serve's component shape).
type pane interface {
	Update(msg tea.Msg) tea.Cmd
	View() string
	SetSize(width, height int)
	Focus() tea.Cmd
	Blur()
	// Editing reports whether a text field has focus: keys then go to the pane
	// before any global key.
	Editing() bool
	// LeaveField takes focus out of the text field (ctrl+c in a field).
	LeaveField()
	ShortHelp() []key.Binding
	FullHelp() [][]key.Binding
}

// modal is a form or dialog drawn over the current screen. It gets every key
// while open; ctrl+c closes it.
type modal interface {
	pane
}

// screen is one of the console's full-screen views.
type screen int

const (
	screenMain screen = iota
	screenComposer
	screenResults
	screenHistory
	screenHelp
	screenSetup
	screenViewer // one text in full: the message log, a row's detail
	screenInbox  // what recipients wrote back (inbox.go)
)
