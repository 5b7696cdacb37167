package console

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/smsdesk/smsdesk/model"
)

// confirm is a yes/no dialog whose default answer is no: enter on it, esc, n
// and ctrl+c all decline; only y (or tab to Yes and enter) accepts. A dialog
// that needs more than y (a repeat of an earlier send) asks for a word to
// be typed instead (need): y and enter alone leave it open, on No.
type confirm struct {
	c     *common
	title string
	body  string
	yes   bool // the highlighted answer; starts on No
	// need, when set, is what must be typed, then enter, for yes (the count
	// of pairs a repeat sends again); typed is what was typed so far, and
	// nudge says y or enter came without it.
	need, typed string
	nudge       bool
	onYes       func() tea.Cmd
	onNo        func() tea.Cmd // optional: what declining does besides closing
	// other is a third answer (a send's confirmation: t, send at a time
	// instead), with what it does; nil: none.
	other   *key.Binding
	onOther func() tea.Cmd
	w, h    int
	// pin is how many first lines of the body stay put (a summary); the
	// rest scrolls with ↑/↓ and pgup/pgdn when the dialog is taller than
	// the screen, so the buttons always show.
	pin    int
	offset int
}

// newConfirm cleans what it is given (title and body may hold the service's
// text or a file's): the title to one line, the body of everything a
// terminal would act on but its newlines and the styles' colours
// (cleanFrame). A body that shows names on lines of their own cleans each
// to one line (model.SanitizeLine) so that none can start a line of its own.
func newConfirm(c *common, title, body string, onYes func() tea.Cmd) *confirm {
	return &confirm{c: c, title: model.SanitizeLine(title), body: cleanFrame(body), onYes: onYes}
}

func (d *confirm) SetSize(w, h int) { d.w, d.h = w, h }
func (d *confirm) Focus() tea.Cmd   { return nil }
func (d *confirm) Blur()            {}
func (d *confirm) Editing() bool    { return false }
func (d *confirm) LeaveField()      {}

// ShortHelp lists the dialog's keys: when a count must be typed, y does
// not answer and tab does not move to Yes, and the footer does not say so.
func (d *confirm) ShortHelp() []key.Binding {
	k := d.c.keys
	keys := []key.Binding{k.Yes, k.No, k.Switch, k.Submit}
	if d.need != "" {
		keys = []key.Binding{k.TypeCount, k.YesTyped, k.No}
	}
	if d.other != nil {
		keys = append(keys, *d.other)
	}
	return keys
}

// FullHelp lists the dialog's keys.
func (d *confirm) FullHelp() [][]key.Binding { return [][]key.Binding{d.ShortHelp()} }

func (d *confirm) Update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	k := d.c.keys
	if d.need != "" {
		if cmd, done := d.typing(km); done {
			return cmd
		}
	}
	switch {
	case d.other != nil && key.Matches(km, *d.other):
		d.c.closeModal()
		return d.onOther()
	case key.Matches(km, k.Yes):
		return d.accept()
	case key.Matches(km, k.No):
		return d.decline()
	case key.Matches(km, k.Switch):
		d.yes = !d.yes
	case key.Matches(km, k.Down):
		d.scroll(1)
	case key.Matches(km, k.Up):
		d.scroll(-1)
	case key.Matches(km, k.PageDown):
		d.scroll(d.bodyRows())
	case key.Matches(km, k.PageUp):
		d.scroll(-d.bodyRows())
	case key.Matches(km, k.Submit):
		if d.yes {
			return d.accept()
		}
		return d.decline()
	}
	return nil
}

// typing handles the keys of a dialog that needs a word typed: digits and
// backspace edit it, enter accepts only when it is whole, y and enter
// without it only say what to type (the dialog stays, on No), tab does not
// move to Yes; n, esc and the scroll keys work as ever (done false).
func (d *confirm) typing(km tea.KeyPressMsg) (cmd tea.Cmd, done bool) {
	k := d.c.keys
	s := km.String()
	switch {
	case len(s) == 1 && s[0] >= '0' && s[0] <= '9':
		if len(d.typed) < len(d.need) {
			d.typed += s
		}
		return nil, true
	case s == "backspace":
		if d.typed != "" {
			d.typed = d.typed[:len(d.typed)-1]
		}
		return nil, true
	case key.Matches(km, k.Submit) && d.typed == d.need:
		return d.accept(), true
	case key.Matches(km, k.Yes), key.Matches(km, k.Submit):
		d.nudge, d.yes = true, false
		return nil, true
	case key.Matches(km, k.Switch):
		return nil, true
	}
	return nil, false
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

// screenRows are the screen's lines a dialog never covers: the status bar
// and the key line (a note above the bar is taken off h already).
const screenRows = 2

// bodyRows is how many body lines fit on the screen (pinned ones
// included): the screen less the dialog's border, its title and its
// answers (issue 40 item 5: the third answer, t, and a repeat's nudge were
// not counted, and the confirmation's bottom border fell off an 80×24 and
// a 100×30 screen).
func (d *confirm) bodyRows() int {
	if d.h <= 0 {
		return 1 << 20 // no size yet: all of it
	}
	return max(3, d.h-screenRows-2-len(d.head())-len(d.tail()))
}

// textWidth is the width the dialog's text is laid out in: a dialog never
// grows wider than the terminal (an import preview's reasons made it 100
// columns wide).
func (d *confirm) textWidth() int { return max(20, d.w-8) }

// head is the dialog's lines above its body: the title (laid out as the
// body is, on two lines at most: a long group name made the box wider
// than the screen), a blank line.
func (d *confirm) head() []string {
	title := []string{d.c.line(d.title)}
	if d.w > 0 {
		title = d.c.paragraphs(d.title, d.textWidth(), 0, nil)
		if len(title) > 2 {
			title = title[:2]
			title[1] = ansi.Truncate(title[1]+" …", d.textWidth(), "…")
		}
	}
	out := make([]string, 0, len(title)+1)
	for _, l := range title {
		out = append(out, d.c.styles.Title.Render(l))
	}
	return append(out, "")
}

// tail is the dialog's lines below its body: the answers and their keys.
func (d *confirm) tail() []string {
	st := d.c.styles
	no, yes := "[ No ]", "  Yes  "
	if d.yes {
		no, yes = "  No  ", "[ Yes ]"
	}
	buttons := st.Title.Render(no) + "   " + yes
	if d.yes {
		buttons = no + "   " + st.Title.Render(yes)
	}
	keys := "y yes · n/esc no · enter chooses the highlighted answer"
	if d.need != "" {
		buttons = st.Title.Render("[ No ]") + "   Yes: type " + d.need + " › " + d.typed + "_"
		keys = "type " + d.need + ", then enter: yes · n/esc no · y or enter alone: nothing"
	}
	lines := []string{"", buttons}
	if d.nudge && d.typed != d.need {
		lines = append(lines, st.Bad.Render("y alone does not send them again: type "+d.need+", then enter"))
	}
	lines = append(lines, "", st.Muted.Render(keys))
	if d.other != nil {
		lines = append(lines, st.Muted.Render(d.other.Help().Key+" "+d.other.Help().Desc))
	}
	return lines
}

// lines is the body laid out for the screen (paragraphs: wrapped, and
// right-to-left text in display order with bidi on): a dialog never grows
// wider than the terminal (an import preview's reasons made it 100 columns
// wide).
func (d *confirm) lines() []string { return d.layout(d.body) }

// layout lays text out as the dialog's body is: wrapped to the screen.
func (d *confirm) layout(text string) []string {
	w := 1 << 20 // no size yet: lines as they are
	if d.w > 0 {
		w = d.textWidth()
	}
	return d.c.paragraphs(text, w, 0, nil)
}

// pinned is how many laid-out lines the first pin lines of the body take.
func (d *confirm) pinned() int {
	if d.pin <= 0 {
		return 0
	}
	head := strings.SplitN(d.body, "\n", d.pin+1)
	head = head[:min(d.pin, len(head))]
	return len(d.layout(strings.Join(head, "\n")))
}

// pinnedShown is how many pinned lines stay put: all of them while a
// line of the rest and the line saying what is hidden still fit below;
// past that the rest of them scroll too (a repeat of many earlier sends
// pinned more lines than an 80×24 screen has).
func (d *confirm) pinnedShown() int { return max(0, min(d.pinned(), d.bodyRows()-2)) }

func (d *confirm) scroll(n int) {
	body, pin := d.lines(), d.pinnedShown()
	room := d.bodyRows() - pin - 1 // one line says what is hidden
	d.offset = max(0, min(d.offset+n, len(body)-pin-room))
}

// bodyLines is the part of the body that fits: the pinned lines, then a
// window of the rest at the scroll offset, with a line saying what is above
// or below.
func (d *confirm) bodyLines() []string {
	body := d.lines()
	if len(body) <= d.bodyRows() {
		return body
	}
	pin := min(d.pinnedShown(), len(body))
	rest := body[pin:]
	room := max(1, d.bodyRows()-pin-1)
	off := min(d.offset, max(0, len(rest)-room))
	end := min(len(rest), off+room)
	out := append(append([]string{}, body[:pin]...), rest[off:end]...)
	return append(out, d.c.styles.Muted.Render(fmt.Sprintf("↕ lines %d-%d of %d · ↑/↓ pgup/pgdn scroll", off+1, end, len(rest))))
}

func (d *confirm) View() string {
	lines := append(d.head(), d.bodyLines()...)
	lines = append(lines, d.tail()...)
	return d.c.styles.Modal.Render(strings.Join(lines, "\n"))
}
