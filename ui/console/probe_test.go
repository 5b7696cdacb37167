package console

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"
)

// probeMsg runs fn on the live root inside the program's loop (tests only).
type probeMsg struct{ fn func(m *root) }

// probed is the root as tests run it: a probeMsg is handled here, so that the
// production Update knows nothing of tests; every other message goes to the root.
type probed struct{ *root }

func newProbed(opts Options) probed { return probed{newRoot(context.Background(), opts)} }

func (p probed) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if pm, ok := msg.(probeMsg); ok {
		pm.fn(p.root)
		return p, nil
	}
	_, cmd := p.root.Update(msg)
	return p, cmd
}
