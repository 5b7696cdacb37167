package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
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
	if k, ok := msg.(tea.KeyMsg); ok {
		switch k.Type {
		case tea.KeyEnter:
			m.done = true
			return m, tea.Quit
		case tea.KeyEsc, tea.KeyCtrlC:
			m.cancelled = true
			return m, tea.Quit
		}
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return m, cmd
}

func (m promptModel) View() string {
	if m.done || m.cancelled {
		return ""
	}
	return m.input.View() + "\n"
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
