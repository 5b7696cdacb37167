package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
)

// errPromptCancelled is returned when the operator leaves a prompt with esc or ctrl+c.
var errPromptCancelled = errors.New("cancelled")

// promptModel is a one-line prompt; with secret set, what is typed is masked.
type promptModel struct {
	input     textinput.Model
	done      bool
	cancelled bool
}

func (m promptModel) Init() tea.Cmd { return textinput.Blink }

func (m promptModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch k.String() {
		case "enter":
			m.done = true
			return m, tea.Quit
		case "esc", "ctrl+c":
			m.cancelled = true
			return m, tea.Quit
		}
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return m, cmd
}

func (m promptModel) View() tea.View {
	if m.done || m.cancelled {
		return tea.NewView("")
	}
	return tea.NewView(m.input.View() + "\n")
}

// prompt asks for one line on the terminal. A secret prompt echoes bullets, never
// the text, and the text never reaches the terminal's scrollback.
func prompt(ctx context.Context, in io.Reader, out io.Writer, label string, secret bool) (string, error) {
	ti := textinput.New()
	ti.Prompt = label
	ti.CharLimit = 512
	if secret {
		ti.EchoMode = textinput.EchoPassword
		ti.EchoCharacter = '•'
	}
	ti.Focus()
	p := tea.NewProgram(promptModel{input: ti}, tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(out))
	final, err := p.Run()
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", label, err)
	}
	m := final.(promptModel)
	if m.cancelled {
		return "", errPromptCancelled
	}
	return m.input.Value(), nil
}
