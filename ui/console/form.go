package console

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/model"
)

// field is one text field of a form.
type field struct {
	label    string
	input    textinput.Model
	validate func(string) error // nil accepts anything
	// filled: the field holds the answer the key that opened the form
	// filled in (an export's file name) and has not been edited: typed
	// characters are not added to it (prefill).
	filled bool
}

// form is a small modal of text fields: tab and shift+tab move between fields,
// enter submits, esc cancels. Validation errors are shown in place.
type form struct {
	c       *common
	w, h    int
	title   string
	hint    string
	fields  []field
	focus   int
	err     string
	submit  func(values []string) (tea.Cmd, error)
	focused bool
	// read, when set, is a submit that touches files: called in Update with
	// the values, it returns the work to run off the UI loop (a Cmd), whose
	// message is delivered when it succeeds; its error is shown in the form,
	// which stays open (see newFileForm).
	read    func(values []string) func() (tea.Msg, error)
	reading int // the submit being read (its number), 0 when none is
	reads   int // submits so far: a late answer is told from the current one
	// ignored is the text typed and not added to a filled-in answer.
	ignored string
}

// formReadMsg answers a file form's submit, read off the UI loop: the
// message to deliver, or the error to show in the form. It is tagged with
// the form and its submit's number: a form closed meanwhile (esc) ignores it.
type formReadMsg struct {
	form *form
	seq  int
	then tea.Msg
	err  error
}

// newForm builds a form; submit gets the trimmed values in field order and
// returns the work to start, or an error to show without closing the form.
func newForm(c *common, title, hint string, submit func([]string) (tea.Cmd, error), fields ...field) *form {
	for i := range fields {
		steadyInput(&fields[i].input, c.dark())
	}
	// The title and hint may name a group: cleaned here, where they are kept.
	return &form{c: c, title: model.SanitizeLine(title), hint: model.SanitizeLine(hint), fields: fields, submit: submit}
}

// newFileForm builds a form whose submit reads or checks files (read: the
// work, off the UI loop; it returns the message to deliver, or an error the
// form shows while it stays open, as a validation error).
func newFileForm(c *common, title, hint string, read func([]string) func() (tea.Msg, error), fields ...field) *form {
	f := newForm(c, title, hint, nil, fields...)
	f.read = read
	return f
}

// readDone takes a file form's answer: closes the form and delivers the
// message, or shows the error and stays open. An answer to an earlier
// submit is ignored.
func (f *form) readDone(msg formReadMsg) tea.Cmd {
	if msg.seq != f.reading {
		return nil
	}
	f.reading = 0
	if msg.err != nil {
		f.err = errorLine(f.c.shownErr(msg.err))
		return nil
	}
	f.c.closeModal()
	if msg.then == nil {
		return nil
	}
	return cmdOf(msg.then)
}

// prefill fills field i in with the answer the form offers (an export's
// file name): enter takes it, backspace, the arrows or ctrl+u edit it, and
// characters typed before any of those are not added to it. The key that
// opened the form may have been meant as text: typing "hello" on the
// results screen opened "Export results" on its e, and "llo" went into the
// file name ("…-results.csvllo"). A name is edited, not added to: nobody
// means "results.csvllo".
func (f *form) prefill(i int, value string) {
	f.fields[i].input.SetValue(value)
	f.fields[i].filled = true
}

// typedIntoFilled reports whether km is text typed into a filled-in
// answer not edited yet (and says so on the form): it is not added.
func (f *form) typedIntoFilled(km tea.KeyPressMsg) bool {
	fl := &f.fields[f.focus]
	if !fl.filled {
		return false
	}
	if km.Text == "" || km.Mod&^tea.ModShift != 0 {
		fl.filled = false // an editing key: from now on the field types
		f.ignored = ""
		return false
	}
	f.ignored += km.Text
	return true
}

// textField builds a field with a placeholder and a character limit.
func textField(label, placeholder string, limit int, validate func(string) error) field {
	ti := textinput.New()
	ti.Placeholder = placeholder
	ti.CharLimit = limit
	ti.Prompt = ""
	return field{label: label, input: ti, validate: validate}
}

func (f *form) SetSize(w, h int) {
	f.w, f.h = w, h
	for i := range f.fields {
		f.fields[i].input.SetWidth(f.inputWidth() - 1)
	}
}

func (f *form) inputWidth() int { return min(56, max(20, f.w-20)) }

func (f *form) Focus() tea.Cmd {
	f.focused = true
	return f.fields[f.focus].input.Focus()
}

func (f *form) Blur() {
	f.focused = false
	for i := range f.fields {
		f.fields[i].input.Blur()
	}
}

func (f *form) Editing() bool { return true }
func (f *form) LeaveField()   { f.Blur() }

// ShortHelp lists the form's keys: tab and shift+tab only when there is
// another field to move to.
func (f *form) ShortHelp() []key.Binding {
	k := f.c.keys
	if len(f.fields) < 2 {
		return []key.Binding{k.Submit, k.CancelForm}
	}
	return []key.Binding{k.Submit, k.NextField, k.PrevField, k.CancelForm}
}

// FullHelp lists the form's keys.
func (f *form) FullHelp() [][]key.Binding { return [][]key.Binding{f.ShortHelp()} }

// values returns every field's trimmed text.
func (f *form) values() []string {
	v := make([]string, len(f.fields))
	for i := range f.fields {
		v[i] = strings.TrimSpace(f.fields[i].input.Value())
	}
	return v
}

func (f *form) Update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		var cmd tea.Cmd
		f.fields[f.focus].input, cmd = f.fields[f.focus].input.Update(msg)
		return cmd
	}
	k := f.c.keys
	switch {
	case key.Matches(km, k.CancelForm):
		f.c.closeModal()
		return nil
	case key.Matches(km, k.NextField):
		return f.moveFocus(1)
	case key.Matches(km, k.PrevField):
		return f.moveFocus(-1)
	case key.Matches(km, k.Submit):
		return f.trySubmit()
	case f.typedIntoFilled(km):
		return nil
	}
	var cmd tea.Cmd
	f.fields[f.focus].input, cmd = f.fields[f.focus].input.Update(km)
	return cmd
}

func (f *form) moveFocus(d int) tea.Cmd {
	f.fields[f.focus].input.Blur()
	f.focus = (f.focus + d + len(f.fields)) % len(f.fields)
	return f.fields[f.focus].input.Focus()
}

// trySubmit validates every field (moving to the first bad one) and submits.
func (f *form) trySubmit() tea.Cmd {
	vals := f.values()
	for i, fl := range f.fields {
		if fl.validate == nil {
			continue
		}
		if err := fl.validate(vals[i]); err != nil {
			f.err = fl.label + ": " + errorLine(err)
			f.fields[f.focus].input.Blur()
			f.focus = i
			return f.fields[i].input.Focus()
		}
	}
	if f.read != nil {
		if f.reading != 0 {
			return nil // the file is being read: one submit at a time
		}
		f.reads++
		f.reading, f.err = f.reads, ""
		work, seq := f.read(vals), f.reads
		return func() tea.Msg {
			then, err := work()
			return formReadMsg{form: f, seq: seq, then: then, err: err}
		}
	}
	cmd, err := f.submit(vals)
	if err != nil {
		f.err = errorLine(err)
		return nil
	}
	f.c.closeModal()
	return cmd
}

// keyLine is a dialog's own line of keys, from the bindings the footer
// shows: "enter submit · esc cancel form".
func keyLine(keys []key.Binding) string {
	parts := make([]string, len(keys))
	for i, b := range keys {
		parts[i] = b.Help().Key + " " + b.Help().Desc
	}
	return strings.Join(parts, " · ")
}

// formErrLines is how many lines a form's error may take.
const formErrLines = 4

func (f *form) View() string {
	st := f.c.styles
	iw := f.inputWidth()
	lw := 0
	for _, fl := range f.fields {
		lw = max(lw, len(fl.label))
	}
	title := f.c.paragraphs(f.title, lw+iw+4, 0, nil) // a long title made the form wider than the screen
	var lines []string
	for _, l := range title[:min(len(title), 2)] {
		lines = append(lines, st.Title.Render(l))
	}
	lines = append(lines, "")
	for i, fl := range f.fields {
		marker := "  "
		if i == f.focus {
			marker = "› "
		}
		lines = append(lines, marker+st.Label.Render(fit(fl.label, lw))+" ["+fitView(fl.input.View(), iw)+"]")
	}
	tail := f.tail(lw + iw + 4)
	if hint := f.hintLines(lw+iw+4, len(lines)+lipgloss.Height(strings.Join(tail, "\n"))); len(hint) > 0 {
		// Wrapped to the fields' width: a long hint made the form wider
		// than the screen.
		lines = append(lines, "", st.Muted.Render(strings.Join(hint, "\n")))
	}
	return st.Modal.Render(strings.Join(append(lines, tail...), "\n"))
}

// tail is the form's lines below its fields and hint, w cells wide: what
// it is doing, what it did with a key, its error, its keys.
func (f *form) tail(w int) []string {
	st := f.c.styles
	var lines []string
	if f.reading != 0 {
		lines = append(lines, "", st.Muted.Render("reading… "+f.c.spin))
	}
	if f.ignored != "" {
		said := fmt.Sprintf("%q not typed: the name is filled in. enter uses it; backspace, ←/→ or ctrl+u edit it.",
			model.SanitizeLine(f.ignored))
		lines = append(lines, "", st.Warn.Width(w).Render(said))
	}
	if f.err != "" {
		// Wrapped, not cut: the error often ends with what to do.
		errLines := f.c.paragraphs("✗ "+f.err, w, 0, nil)
		lines = append(lines, "", st.Error.Render(strings.Join(errLines[:min(len(errLines), formErrLines)], "\n")))
	}
	return append(lines, "", st.Muted.Render(keyLine(f.ShortHelp())))
}

// hintLines is the form's hint laid out in w cells, in the lines the
// screen leaves beside the form's other lines (others): the hint gives
// way, line by line, so that the fields, an error and the keys always
// show on a small screen (issue 40 item 5: every dialog fits at 80×24).
func (f *form) hintLines(w, others int) []string {
	if f.hint == "" {
		return nil
	}
	lines := f.c.paragraphs(f.hint, w, 0, nil)
	if f.h <= 0 {
		return lines
	}
	room := f.h - screenRows - 2 - others - 1 // the border, the blank line above the hint
	return lines[:max(0, min(len(lines), room))]
}
