package console

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/model"
)

// viewerPane shows one text in full, wrapped and scrollable: the message log,
// a result's or a history row's detail. Nothing the console cuts to fit a
// table or the status bar is out of reach: it is here, whole.
type viewerPane struct {
	c      *common
	w, h   int
	title  string
	text   []string // logical lines, already sanitised
	offset int
}

func newViewerPane(c *common) *viewerPane { return &viewerPane{c: c} }

func (p *viewerPane) SetSize(w, h int) { p.w, p.h = w, h }
func (p *viewerPane) Focus() tea.Cmd   { return nil }
func (p *viewerPane) Blur()            {}
func (p *viewerPane) Editing() bool    { return false }
func (p *viewerPane) LeaveField()      {}

// ShortHelp lists the viewer's keys.
func (p *viewerPane) ShortHelp() []key.Binding {
	k := p.c.keys
	return []key.Binding{k.Down, k.Up, k.PageDown, k.GoBack}
}

// FullHelp lists the viewer's keys.
func (p *viewerPane) FullHelp() [][]key.Binding { return [][]key.Binding{p.ShortHelp()} }

// wrapped is the text wrapped to the pane's width (in visual order when
// bidi is on).
func (p *viewerPane) wrapped() []string {
	iw := max(10, p.w-2)
	var out []string
	for _, l := range p.text {
		out = append(out, p.c.paragraphs(l, iw, iw, nil)...)
	}
	return out
}

func (p *viewerPane) Update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	if key.Matches(km, p.c.keys.GoBack) {
		return p.c.back()
	}
	p.offset, _ = scrollText(p.c.keys, km, p.offset, len(p.wrapped()), p.h-3)
	return nil
}

func (p *viewerPane) View() string {
	st := p.c.styles
	iw, ih := p.w-2, p.h-2
	lines := p.wrapped()
	room := ih - 1
	p.offset = max(0, min(p.offset, len(lines)-room))
	title := p.title
	if len(lines) > room {
		title += fmt.Sprintf(" · lines %d–%d of %d", p.offset+1, min(len(lines), p.offset+room), len(lines))
	}
	shown := lines[p.offset:min(len(lines), p.offset+room)]
	body := st.Title.Render(fit(title, iw)) + "\n" + strings.Join(shown, "\n")
	return st.PaneFocused.Render(block(body, iw, ih))
}

// openViewer shows title and text (each string one paragraph, sanitised
// here) on the viewer screen; esc comes back to the screen it was opened from.
func (m *root) openViewer(title string, text []string) tea.Cmd {
	v := m.viewer
	v.title, v.offset = model.SanitizeLine(title), 0
	v.text = v.text[:0]
	for _, t := range text {
		for _, l := range strings.Split(t, "\n") {
			v.text = append(v.text, model.SanitizeLine(l))
		}
	}
	return m.switchTo(screenViewer)
}

// logEntry is one line of the message log.
type logEntry struct {
	at   time.Time
	text string
}

// maxLogEntries bounds the message log (the oldest go first).
const maxLogEntries = 1000

// logNote records what the status bar or a pane said, with its time, unless
// it repeats the last entry.
func (m *root) logNote(text string) {
	text = strings.TrimSpace(text)
	if text == "" || (len(m.log) > 0 && m.log[len(m.log)-1].text == text) {
		return
	}
	m.log = append(m.log, logEntry{at: m.c.now(), text: text})
	if len(m.log) > maxLogEntries {
		m.log = m.log[len(m.log)-maxLogEntries:]
	}
}

// logChanges records every note and error that the status bar and the panes
// show now and did not show before: one place, after each message, so no
// note is missed wherever it was set.
func (m *root) logChanges() {
	shown := []string{m.note, m.lastErr, m.contacts.note, m.contacts.err, m.composer.note, m.results.err, m.results.note}
	if m.trouble != "" {
		shown = append(shown, m.trouble)
	}
	if len(m.seen) != len(shown) {
		m.seen = make([]string, len(shown))
	}
	for i, s := range shown {
		if s != m.seen[i] {
			m.seen[i] = s
			if s != "" && (i != 1 || m.fullErr == "") {
				m.logNote(s)
			}
		}
	}
}

// openLog shows the message log, newest last, scrolled to the end.
func (m *root) openLog() tea.Cmd {
	text := []string{}
	for _, e := range m.log {
		text = append(text, e.at.In(m.c.rules.Zone()).Format("15:04:05")+"  "+e.text) // the profile's zone, as every time shown
	}
	if len(text) == 0 {
		text = []string{"Nothing yet: notes and errors from this session are kept here with their time, in full."}
	}
	if running := m.c.work.lines(m.c.now()); len(running) > 0 {
		text = append(text, "", "Running now:")
		for _, l := range running {
			text = append(text, "  "+l)
		}
	}
	cmd := m.openViewer(fmt.Sprintf("Message log (%d)", len(m.log)), text)
	m.viewer.offset = 1 << 30
	return cmd
}
