package console

import (
	"fmt"
	"strings"
	"sync"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/smsdesk/smsdesk/client/dispatch"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// historyEntry is one past send as the history pane lists it.
type historyEntry struct {
	ID       string
	When     string
	Sender   string
	Source   string
	Counts   model.StateCounts
	Total    int
	Complete bool
	Running  bool
	Err      string
}

// historyLoadedMsg answers reading the send history.
type historyLoadedMsg struct {
	Entries []historyEntry
	Err     error
}

func (m historyLoadedMsg) failure() error { return m.Err }

// historyPane lists past sends, newest first: from the journals in the state
// directory, or (demo) the sends of this session.
type historyPane struct {
	c       *common
	w, h    int
	entries []historyEntry
	cursor  int
	loading bool
	err     string

	mu      sync.Mutex
	session []*dispatch.Run // demo mode: this session's runs
	sources map[string]string

	detail *historyDetail // the send opened with enter, nil on the list
}

func newHistoryPane(c *common) *historyPane {
	return &historyPane{c: c, sources: map[string]string{}}
}

func (p *historyPane) SetSize(w, h int) { p.w, p.h = w, h }
func (p *historyPane) Focus() tea.Cmd   { return nil }
func (p *historyPane) Blur()            {}
func (p *historyPane) Editing() bool    { return false }
func (p *historyPane) LeaveField()      {}
func (p *historyPane) busy() bool       { return p.loading || p.detail != nil && p.detail.loading }

// ShortHelp lists the history screen's keys.
func (p *historyPane) ShortHelp() []key.Binding {
	k := p.c.keys
	if p.detail != nil {
		return []key.Binding{k.Up, k.Down, k.Resume, k.GoBack}
	}
	return []key.Binding{k.Up, k.Down, k.Enter, k.Refresh, k.GoBack}
}

// FullHelp lists the history screen's keys.
func (p *historyPane) FullHelp() [][]key.Binding { return [][]key.Binding{p.ShortHelp()} }

// remember keeps a run of this session (the only history in demo mode).
func (p *historyPane) remember(run *dispatch.Run, source string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.session = append(p.session, run)
	p.sources[run.Job().ID] = source
}

// load reads the history off the render path.
func (p *historyPane) load() tea.Cmd {
	p.loading = true
	p.detail = nil
	paths := p.c.opts.Paths
	if paths == nil {
		p.mu.Lock()
		runs := append([]*dispatch.Run(nil), p.session...)
		p.mu.Unlock()
		return func() tea.Msg {
			var out []historyEntry
			for i := len(runs) - 1; i >= 0; i-- {
				out = append(out, p.sessionEntry(runs[i]))
			}
			return historyLoadedMsg{Entries: out}
		}
	}
	return func() tea.Msg {
		infos, err := config.ListJournals(*paths)
		if err != nil {
			return historyLoadedMsg{Err: err}
		}
		out := make([]historyEntry, 0, len(infos))
		for _, in := range infos {
			e := historyEntry{ID: in.ID, Running: in.Running}
			if in.Err != nil || in.State == nil {
				e.Err = errorLine(in.Err)
			} else {
				st := in.State
				e.When = st.Plan.Time.In(p.c.now().Location()).Format("2006-01-02 15:04")
				e.Sender, e.Source = st.Plan.Sender, st.Plan.Source
				e.Counts, e.Total, e.Complete = st.Counts(), len(st.Items), st.Complete()
			}
			out = append(out, e)
		}
		return historyLoadedMsg{Entries: out}
	}
}

func (p *historyPane) sessionEntry(run *dispatch.Run) historyEntry {
	job := run.Job()
	p.mu.Lock()
	src := p.sources[job.ID]
	p.mu.Unlock()
	e := historyEntry{ID: job.ID, When: "this session", Sender: job.Sender, Source: src, Total: len(job.Items)}
	select {
	case <-run.Done():
	default:
		e.Running = true
	}
	for _, r := range run.Results() {
		e.Counts.Add(r.State, r.Delivery)
	}
	e.Complete = !e.Running && e.Counts.NotSent == 0
	return e
}

func (p *historyPane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case historyLoadedMsg:
		p.loading = false
		p.err = ""
		if msg.Err != nil {
			p.err = errorLine(msg.Err)
			return nil
		}
		p.entries = msg.Entries
		p.cursor = min(p.cursor, max(0, len(p.entries)-1))
	case historyDetailMsg:
		return p.detailLoaded(msg)
	case tea.KeyMsg:
		if p.detail != nil {
			return p.detailKey(msg)
		}
		k := p.c.keys
		switch {
		case key.Matches(msg, k.Enter) && len(p.entries) > 0:
			return p.open(p.entries[p.cursor].ID)
		case key.Matches(msg, k.Up):
			p.cursor = max(0, p.cursor-1)
		case key.Matches(msg, k.Down):
			p.cursor = min(max(0, len(p.entries)-1), p.cursor+1)
		case key.Matches(msg, k.Refresh):
			return p.load()
		case key.Matches(msg, k.Back):
			return p.c.switchTo(screenMain)
		}
	}
	return nil
}

func (p *historyPane) View() string {
	if p.detail != nil {
		return p.detailView()
	}
	st := p.c.styles
	iw, ih := p.w-2, p.h-2
	title := fmt.Sprintf("Send history (%d)", len(p.entries))
	if p.c.opts.Paths == nil {
		title += " · this session only (demo mode keeps no journal)"
	}
	if p.loading {
		title += " " + p.c.spin
	}
	lines := []string{st.Title.Render(fit(title, iw))}
	idw, ww, sw := 24, 16, 10
	cw := iw - idw - ww - sw - 4
	lines = append(lines, st.Header.Render(" "+fit("ID", idw)+" "+fit("WHEN", ww)+" "+fit("SENDER", sw)+" "+fit("OUTCOME", cw)))
	if p.err != "" {
		lines = append(lines, st.Error.Render(fit("✗ "+p.err, iw)))
	}
	if len(p.entries) == 0 && !p.loading && p.err == "" {
		lines = append(lines, st.Muted.Render(fit("No sends yet.", iw)))
	}
	for i, e := range p.entries {
		if len(lines) >= ih {
			break
		}
		mark := " "
		if i == p.cursor {
			mark = "›"
		}
		lines = append(lines, mark+fit(model.SanitizeLine(e.ID), idw)+" "+fit(e.When, ww)+" "+fit(model.SanitizeLine(e.Sender), sw)+" "+fit(e.outcome(), cw))
	}
	return st.PaneFocused.Render(block(strings.Join(lines, "\n"), iw, ih))
}

func (e historyEntry) outcome() string {
	if e.Err != "" {
		return "unreadable: " + e.Err
	}
	c := e.Counts
	s := fmt.Sprintf("%d items: %d accepted, %d rejected, %d failed, %d unknown, %d not sent", e.Total,
		c.Accepted, c.Rejected, c.Failed, c.Unknown, c.NotSent)
	switch {
	case e.Running:
		s = "running · " + s
	case e.Complete:
		s = "complete · " + s
	default:
		s = "interrupted · " + s
	}
	return s
}
