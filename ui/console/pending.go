package console

import (
	"context"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/smsdesk/smsdesk/client"

	"github.com/smsdesk/smsdesk/model"
)

// placeholder panes, replaced step by step.
type placeholder struct {
	c    *common
	w, h int
	text string
}

func (p *placeholder) SetSize(w, h int)          { p.w, p.h = w, h }
func (p *placeholder) Focus() tea.Cmd            { return nil }
func (p *placeholder) Blur()                     {}
func (p *placeholder) Editing() bool             { return false }
func (p *placeholder) LeaveField()               {}
func (p *placeholder) busy() bool                { return false }
func (p *placeholder) Update(tea.Msg) tea.Cmd    { return nil }
func (p *placeholder) ShortHelp() []key.Binding  { return nil }
func (p *placeholder) FullHelp() [][]key.Binding { return nil }
func (p *placeholder) View() string              { return block(p.text, p.w, p.h) }

type composerPane struct{ placeholder }

func newComposerPane(c *common) *composerPane {
	return &composerPane{placeholder{c: c, text: "composer: coming"}}
}
func (p *composerPane) Reset(model.Group, []model.Contact) {}

type resultsPane struct{ placeholder }

func newResultsPane(c *common) *resultsPane {
	return &resultsPane{placeholder{c: c, text: "results: coming"}}
}
func (p *resultsPane) running() bool { return false }
func (p *resultsPane) cancelSend()   {}

type historyPane struct{ placeholder }

func newHistoryPane(c *common) *historyPane {
	return &historyPane{placeholder{c: c, text: "history: coming"}}
}
func (p *historyPane) load() tea.Cmd { return nil }

type setupPane struct{ placeholder }

func newSetupPane(c *common) *setupPane {
	return &setupPane{placeholder{c: c, text: "setup: coming"}}
}

// LoginFunc verifies a key and stores it exactly as `smsdesk login` does, and
// returns a client for it.
type LoginFunc func(ctx context.Context, baseURL, key string, insecureStorage bool) (*client.Client, error)

// HistorySource lists past sends for the history pane.
type HistorySource interface{}
