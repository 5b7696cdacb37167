package console

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// historyEntry is one past send as the history pane lists it.
type historyEntry struct {
	ID       string
	When     string
	Profile  string
	Sender   string
	Source   string
	Counts   model.StateCounts
	Total    int
	Status   string // app.SendStatus: complete, interrupted, stopped or running
	Err      string
	Operator string // who sent it on a served console ("" locally), or scheduled it
	// Waiting: a scheduled send waiting for its time (At); Runner is what
	// started a scheduled one (serve, scheduler, cron), Cancel why one
	// never started ("cancelled by sara", "missed: …").
	Waiting bool
	At      time.Time
	Runner  string
	Cancel  string
	Pending int // messages it will send
}

// historyLoadedMsg answers reading the send history.
type historyLoadedMsg struct {
	All     bool // every profile's sends, or this session's
	Entries []historyEntry
	More    bool // the page is full: older sends may follow
	Err     error
}

// historyPageSize is how many sends the history pane reads at a time: the
// scheduled ones and the newest, then as many more each time the cursor
// goes past the last one read (the ledger pages them; a console is not
// held up replaying every send ever made).
const historyPageSize = 100

func (m historyLoadedMsg) failure() error { return m.Err }

// historyPane lists past sends, the scheduled ones first then newest
// first, a page at a time from the ledger (app.Session.HistoryPage): the
// sends of this profile against its service, or with a every profile's.
type historyPane struct {
	c       *common
	w, h    int
	entries []historyEntry
	cursor  int
	loading bool
	err     string
	all     bool // listing every profile's sends
	want    int  // how many sends to read (pages so far); 0: one page
	more    bool // the last read filled its page: older sends may follow

	detail *historyDetail // the send opened with enter, nil on the list
}

func newHistoryPane(c *common) *historyPane { return &historyPane{c: c} }

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
		return p.detailHelp()
	}
	keys := []key.Binding{k.Up, k.Down, k.Enter, k.AllProfiles, k.GoBack} // r refreshes too (help, Lists)
	if len(p.entries) > 0 && p.entries[p.cursor].Waiting {
		keys = p.c.forRole(append(keys[:3:3], k.CancelScheduled.Binding, k.AllProfiles, k.GoBack), k.CancelScheduled)
	}
	return keys
}

// FullHelp lists the history screen's keys.
func (p *historyPane) FullHelp() [][]key.Binding { return [][]key.Binding{p.ShortHelp()} }

// load reads the history off the render path.
func (p *historyPane) load() tea.Cmd {
	p.loading = true
	p.detail = nil
	p.want = max(p.want, historyPageSize)
	sess, all, loc, want, ctx := p.c.session, p.all, p.c.session.Profile.Zone(), p.want, p.c.ctx // times for people in the profile's timezone
	zone := loc
	return func() tea.Msg {
		list, err := sess.HistoryPage(ctx, app.HistoryQuery{All: all, Limit: want + 1}) // one more: whether more follow
		more := len(list) > want
		list = list[:min(len(list), want)]
		if err != nil {
			return historyLoadedMsg{All: all, Err: err}
		}
		out := make([]historyEntry, 0, len(list))
		for _, in := range list {
			e := historyEntry{ID: in.ID, Status: in.Status(), Profile: in.Profile()}
			if op := in.Operator(); op != nil {
				e.Operator = op.Name
			}
			if in.Err != nil || in.State == nil {
				e.Err = errorLine(in.Err)
			} else {
				st := in.State
				e.When = st.Plan.Time.In(loc).Format("2006-01-02 15:04")
				e.Sender, e.Source = st.Plan.Sender, st.Plan.Source
				e.Counts, e.Total = st.Counts(), len(st.Items)
				if st.Scheduled() {
					e.Waiting, e.At, e.Runner, e.Pending = in.Waiting(), st.Plan.ScheduledFor, st.StartedBy, st.Counts().NotSent
					if e.Waiting {
						e.When = st.Plan.ScheduledFor.In(zone).Format("2006-01-02 15:04") // when it is to go
					}
					if c := st.Cancel; c != nil {
						e.Cancel = cancelLine(c)
					}
				}
			}
			out = append(out, e)
		}
		return historyLoadedMsg{All: all, Entries: out, More: more}
	}
}

// loadMore reads the next page when the cursor is on the last send read
// and more may follow (nil otherwise).
func (p *historyPane) loadMore() tea.Cmd {
	if !p.more || p.loading || p.cursor < len(p.entries)-1 {
		return nil
	}
	p.want = len(p.entries) + historyPageSize
	return p.load()
}

func (p *historyPane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case historyLoadedMsg:
		if msg.All != p.all {
			return nil // the operator switched meanwhile; that load is coming
		}
		p.loading = false
		p.err = ""
		if msg.Err != nil {
			p.err = errorLine(msg.Err)
			return nil
		}
		var selected string // the send under the cursor stays under it (a cancelled one moves down the list)
		if p.cursor < len(p.entries) {
			selected = p.entries[p.cursor].ID
		}
		p.entries, p.more = msg.Entries, msg.More
		p.cursor = min(p.cursor, max(0, len(p.entries)-1))
		if i := slices.IndexFunc(p.entries, func(e historyEntry) bool { return e.ID == selected }); i >= 0 {
			p.cursor = i
		}
	case historyDetailMsg:
		return p.detailLoaded(msg)
	case resumePreparedMsg:
		return p.resumePrepared(msg)
	case scheduleCancelledMsg:
		return p.cancelled(msg)
	case tea.KeyPressMsg:
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
			return p.loadMore()
		case key.Matches(msg, k.Top):
			p.cursor = 0
		case key.Matches(msg, k.Bottom):
			p.cursor = max(0, len(p.entries)-1)
			return p.loadMore()
		case key.Matches(msg, k.Resume.Binding) && len(p.entries) > 0:
			// R on the list: open the send, then ask as R in its detail does.
			cmd := p.open(p.entries[p.cursor].ID)
			p.detail.resumeWhenLoaded = true
			return cmd
		case key.Matches(msg, k.CancelScheduled.Binding) && len(p.entries) > 0:
			return p.askCancel(p.entries[p.cursor])
		case key.Matches(msg, k.AllProfiles):
			p.all, p.cursor, p.want = !p.all, 0, 0
			return p.load()
		case key.Matches(msg, k.Refresh):
			return p.load()
		case key.Matches(msg, k.Back):
			return p.c.back()
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
	count := strconv.Itoa(len(p.entries))
	if p.more {
		count += "+" // older sends follow as the cursor goes down
	}
	title := fmt.Sprintf("Send history (%s) · profile %s", count, p.c.profile.Name)
	if p.all {
		title = fmt.Sprintf("Send history (%s) · every profile", count)
	}
	if p.loading {
		title += " " + p.c.spin
	}
	lines := []string{st.Title.Render(fit(title, iw))}
	idw, ww, pw, sw := 22, 16, 8, 9
	// Served (smsdesk serve), every send is the one profile's: the column
	// says who sent it instead ("sara via serve" for a scheduled send).
	served := p.c.session.Operator != nil
	third := "PROFILE"
	if served {
		third = "BY"
		if slices.ContainsFunc(p.entries, func(e historyEntry) bool { return e.Runner != "" }) {
			pw = 14
		}
	}
	cw := iw - idw - ww - pw - sw - 5
	lines = append(lines, st.Header.Render(" "+fit("ID", idw)+" "+fit("WHEN", ww)+" "+fit(third, pw)+" "+fit("SENDER", sw)+" "+fit("OUTCOME", cw)))
	if p.err != "" {
		lines = append(lines, st.Error.Render(fit("✗ "+p.err, iw)))
	}
	if len(p.entries) == 0 && !p.loading && p.err == "" {
		lines = append(lines, st.Muted.Render(fit("No sends yet.", iw)))
	}
	first := max(0, p.cursor-(ih-len(lines))+1) // the cursor's row stays in view
	for i, e := range p.entries {
		if i < first {
			continue
		}
		if len(lines) >= ih {
			break
		}
		mark := " "
		if i == p.cursor {
			mark = "›"
		}
		who := e.Profile
		if served {
			who = e.by()
		}
		lines = append(lines, mark+fit(e.ID, idw)+" "+fit(e.When, ww)+" "+fit(who, pw)+" "+
			fit(e.Sender, sw)+" "+fit(e.outcome(p.c.now()), cw))
	}
	return st.PaneFocused.Render(block(strings.Join(lines, "\n"), iw, ih))
}

// by is the BY column of a served console's history (app.ByText).
func (e historyEntry) by() string { return app.ByText(e.Operator, e.Runner) }

func (e historyEntry) outcome(now time.Time) string {
	switch {
	case e.Err != "":
		return "unreadable: " + e.Err
	case e.Waiting:
		return fmt.Sprintf("scheduled · %s · %s", model.DueText(e.At, now), model.Counted(e.Pending, "message"))
	case e.Cancel != "":
		return fmt.Sprintf("%s · %s, none sent", e.Cancel, model.Counted(e.Pending, "message")) // as while it waited: the opted out were never to go
	}
	c := e.Counts
	return fmt.Sprintf("%s · %s: %d accepted, %d rejected, %d failed, %d unknown, %d not sent", e.Status, model.Counted(e.Total, "item"),
		c.Accepted, c.Rejected, c.Failed, c.Unknown, c.NotSent)
}
