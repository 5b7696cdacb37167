package console

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/aymanbagabas/go-osc52/v2"
)

// Terminal niceties: ctrl+l redraws, ctrl+z suspends, y copies with OSC 52.

// copier is a pane with something to copy under its cursor: what it is
// ("number", "group id", …) and the text.
type copier interface {
	copyText() (what, text string, ok bool)
}

func (p *groupsPane) copyText() (string, string, bool) {
	g, ok := p.selected()
	return "group id", string(g.ID), ok
}

func (p *contactsPane) copyText() (string, string, bool) {
	r, ok := p.selected()
	return "number", r.contact.Mobile, ok
}

func (p *resultsPane) copyText() (string, string, bool) {
	if p.cursor >= len(p.shown) {
		return "", "", false
	}
	return "number", p.results[p.shown[p.cursor]].Recipient, true
}

func (p *composerPane) copyText() (string, string, bool) {
	if p.plan == nil || p.cursor >= len(p.plan.Items) {
		return "", "", false
	}
	return "message", p.plan.Items[p.cursor].Message, true
}

func (p *historyPane) copyText() (string, string, bool) {
	if p.detail != nil {
		if d := p.detail; d.state != nil && d.cursor < len(d.state.Items) {
			return "number", d.state.Items[d.cursor].Recipient, true
		}
		return "", "", false
	}
	if p.cursor >= len(p.entries) {
		return "", "", false
	}
	return "send id", p.entries[p.cursor].ID, true
}

// copySelected copies what is under the cursor to the clipboard of the
// terminal the operator sits at, over SSH too: an OSC 52 sequence, which the
// terminal (or tmux, with set-clipboard on) turns into a clipboard write.
func (m *root) copySelected() tea.Cmd {
	c, ok := m.active().(copier)
	if !ok {
		return nil
	}
	what, text, ok := c.copyText()
	if !ok || text == "" {
		m.note = "nothing to copy here"
		return nil
	}
	seqs := []osc52.Sequence{osc52.New(text)}
	how := "OSC 52: the terminal must allow clipboard writes"
	switch m.c.opts.Multiplexer {
	case "tmux":
		// tmux takes the plain sequence itself with set-clipboard on (and
		// hands it to the terminal outside); the wrapped one goes straight
		// through with allow-passthrough on. Either setting is enough; with
		// both, the clipboard is written twice with the same text.
		seqs = append(seqs, osc52.New(text).Tmux())
		how = "OSC 52: in tmux, set -g set-clipboard on"
	case "screen":
		seqs = []osc52.Sequence{osc52.New(text).Screen()}
	}
	var b strings.Builder
	for _, seq := range seqs {
		b.WriteString(seq.String())
	}
	m.note = "copied " + what + " " + preview(text, 40) + " (" + how + ")"
	// Through the program's output, in order with the frames: to this
	// console's own terminal (an SSH session's, when served).
	return tea.Raw(b.String())
}

// preview is s cut to n runes with an ellipsis.
func preview(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// suspend stops the console like a shell job (ctrl+z; fg brings it back),
// except while a send runs: a stopped process cannot finish its chunk.
func (m *root) suspend() tea.Cmd {
	if m.results.running() || m.starting != 0 {
		m.note = "not suspended while a send runs: stop it (esc) or wait for it"
		return nil
	}
	return tea.Suspend
}
