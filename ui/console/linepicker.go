package console

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/model"
)

// linePicker lists the profile's sender lines and "other…"; enter chooses,
// esc closes without a change.
type linePicker struct {
	c      *common
	h      int // the screen's height: the list shows a window of it that fits
	lines  []string
	cursor int // len(lines) is "other…"
	choose func(int) tea.Cmd
}

func newLinePicker(c *common, lines []string, current int, choose func(int) tea.Cmd) *linePicker {
	return &linePicker{c: c, lines: lines, cursor: min(current, len(lines)), choose: choose}
}

func (d *linePicker) SetSize(w, h int) { d.h = h }
func (d *linePicker) Focus() tea.Cmd   { return nil }
func (d *linePicker) Blur()            {}
func (d *linePicker) Editing() bool    { return false }
func (d *linePicker) LeaveField()      {}

// ShortHelp lists the picker's keys.
func (d *linePicker) ShortHelp() []key.Binding {
	k := d.c.keys
	return []key.Binding{k.Up, k.Down, k.Submit, k.CancelForm}
}

// FullHelp lists the picker's keys.
func (d *linePicker) FullHelp() [][]key.Binding { return [][]key.Binding{d.ShortHelp()} }

func (d *linePicker) Update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	k := d.c.keys
	switch {
	case key.Matches(km, k.Up):
		d.cursor = max(0, d.cursor-1)
	case key.Matches(km, k.Down):
		d.cursor = min(len(d.lines), d.cursor+1)
	case key.Matches(km, k.Submit):
		d.c.closeModal()
		return d.choose(d.cursor)
	case key.Matches(km, k.CancelForm):
		d.c.closeModal()
	}
	return nil
}

func (d *linePicker) View() string {
	st := d.c.styles
	lines := []string{st.Title.Render("Sender line"), ""}
	all := append(append([]string(nil), d.lines...), "other… (type a line; adding it to the profile is asked first)")
	from, to := d.window(len(all))
	for i := from; i < to; i++ {
		row := "  " + model.SanitizeLine(all[i])
		if i == d.cursor {
			row = st.Title.Render("› " + model.SanitizeLine(all[i]))
		}
		lines = append(lines, row)
	}
	if to-from < len(all) {
		lines = append(lines, st.Muted.Render(fmt.Sprintf("↕ %d-%d of %d", from+1, to, len(all))))
	}
	lines = append(lines, "", st.Muted.Render("↑/↓ move · enter chooses · esc keeps the current line"))
	return st.Modal.Render(strings.Join(lines, "\n"))
}

// window is the lines of n shown: all that fit the screen, around the
// cursor (an account with more lines than an 80×24 screen has rows
// pushed the picker's keys off it).
func (d *linePicker) window(n int) (from, to int) {
	rows := n
	if d.h > 0 {
		rows = max(1, d.h-screenRows-2-4-1) // the border; the title, its blank, the keys and theirs; the ↕ line
	}
	if n <= rows {
		return 0, n
	}
	from = max(0, min(d.cursor-rows/2, n-rows))
	return from, from + rows
}
