package console

import (
	"context"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
)

// probeMsg runs fn on the live root inside the program's loop (tests only).
type probeMsg struct{ fn func(m *root) }

// framesMsg asks for the frames drawn since the last framesMsg, as text.
type framesMsg struct{ ch chan<- []string }

// probed is the root as tests run it: a probeMsg or framesMsg is handled
// here, so that the production Update knows nothing of tests; every other
// message goes to the root. It keeps the text of every frame drawn.
type probed struct {
	*root
	frames *[]string
}

func newProbed(opts Options) probed {
	return probed{root: newRoot(context.Background(), opts), frames: new([]string)}
}

func (p probed) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case probeMsg:
		msg.fn(p.root)
		return p, nil
	case framesMsg:
		texts := make([]string, len(*p.frames))
		for i, f := range *p.frames {
			texts[i] = drawIn(f, colorprofile.NoTTY)
		}
		msg.ch <- texts
		*p.frames = nil
		return p, nil
	}
	_, cmd := p.root.Update(msg)
	return p, cmd
}

// View draws the frame and keeps it, unless frames is nil (bubbletea calls
// View in its event loop, as it calls Update).
func (p probed) View() tea.View {
	v := p.root.View()
	if p.frames != nil {
		*p.frames = append(*p.frames, v.Content)
	}
	return v
}
