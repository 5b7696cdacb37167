package serve

import (
	"context"
	"io"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// Terminal is one operator's SSH session as a console sees it: who signed
// in, their session of the application layer, and the terminal they sit
// at (its size, TERM, environment and colour profile, each their own: one
// operator's NO_COLOR or light terminal does not change another's).
type Terminal struct {
	Operator model.Operator
	App      *app.Session
	Input    io.Reader
	Output   io.Writer
	// Environ is the client's environment as sent (ssh SendEnv/SetEnv) with
	// TERM from the pty request: what bidi auto, NO_COLOR and the colour
	// profile are decided from.
	Environ       []string
	Term          string // sanitised
	Width, Height int
	ColorProfile  colorprofile.Profile
}

// Getenv reads the terminal's environment ("" when unset).
func (t Terminal) Getenv(key string) string {
	v := ""
	for _, kv := range t.Environ {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val // the last one wins, as in a shell
		}
	}
	return v
}

// Console is one operator's console on one terminal: the model a
// tea.Program runs (the console's *Model).
type Console interface {
	tea.Model
	// ExitReport says what became of a send or import when the program has
	// ended ("" when nothing).
	ExitReport() string
	// Close ends the console's background work; called when the program
	// has ended.
	Close()
}

// ConsoleFactory builds a console for a terminal, and the options of the
// program that draws it there (console.New). Its background work runs
// under ctx, which ends when the session does.
type ConsoleFactory func(ctx context.Context, t Terminal) (Console, []tea.ProgramOption)

// profileOf is the colour profile of a client's terminal, from its TERM
// and environment (NO_COLOR, COLORTERM), as the client reported them.
func profileOf(environ []string) colorprofile.Profile {
	return colorprofile.Env(environ)
}
