package console

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// confirm is a yes/no dialog whose default answer is no: enter on it, esc, n
// and ctrl+c all decline; only y (or tab to Yes and enter) accepts.
type confirm struct {
	c     *common
	title string
	body  string
	yes   bool // the highlighted answer; starts on No
	onYes func() tea.Cmd
	onNo  func() tea.Cmd // optional: what declining does besides closing
	w, h  int
}

func newConfirm(c *common, title, body string, onYes func() tea.Cmd) *confirm {
	return &confirm{c: c, title: title, body: body, onYes: onYes}
}

func (d *confirm) SetSize(w, h int) { d.w, d.h = w, h }
func (d *confirm) Focus() tea.Cmd   { return nil }
func (d *confirm) Blur()            {}
func (d *confirm) Editing() bool    { return false }
func (d *confirm) LeaveField()      {}

// ShortHelp lists the dialog's keys.
func (d *confirm) ShortHelp() []key.Binding {
	k := d.c.keys
	return []key.Binding{k.Yes, k.No, k.Switch, k.Submit}
}

// FullHelp lists the dialog's keys.
func (d *confirm) FullHelp() [][]key.Binding { return [][]key.Binding{d.ShortHelp()} }

func (d *confirm) Update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	k := d.c.keys
	switch {
	case key.Matches(km, k.Yes):
		return d.accept()
	case key.Matches(km, k.No):
		return d.decline()
	case key.Matches(km, k.Switch):
		d.yes = !d.yes
	case key.Matches(km, k.Submit):
		if d.yes {
			return d.accept()
		}
		return d.decline()
	}
	return nil
}

func (d *confirm) decline() tea.Cmd {
	d.c.closeModal()
	if d.onNo != nil {
		return d.onNo()
	}
	return nil
}

func (d *confirm) accept() tea.Cmd {
	d.c.closeModal()
	return d.onYes()
}

func (d *confirm) View() string {
	st := d.c.styles
	no, yes := "[ No ]", "  Yes  "
	if d.yes {
		no, yes = "  No  ", "[ Yes ]"
	}
	buttons := st.Title.Render(no) + "   " + yes
	if d.yes {
		buttons = no + "   " + st.Title.Render(yes)
	}
	lines := []string{st.Title.Render(d.title), ""}
	lines = append(lines, strings.Split(d.body, "\n")...)
	lines = append(lines, "", buttons, "", st.Muted.Render("y yes · n/esc no · enter chooses the highlighted answer"))
	return st.Modal.Render(strings.Join(lines, "\n"))
}
