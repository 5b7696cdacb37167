package console

import (
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/ui/app"
)

// Reading the history a page at a time, from where the cursor goes: the top
// (the scheduled sends, then the newest), the next page down or up from the
// sends shown, or the last page (G: the oldest, at once). Each page is read
// by its key from the ledger's history index (app.Session.HistoryFrom), so
// the oldest of 100,000 sends is as near as the newest: G went 100 sends
// further each press, 68 presses and 23 s to the oldest of 7,148 (issue 40
// item 9). A page answers with the load that asked for it (seq): a later
// load (another page, the filter changed, a switch to every profile)
// supersedes it.

// historyPageSize is how many sends a page of the history reads.
const historyPageSize = 100

// pageWay says where a page of the history is read from.
type pageWay int

const (
	pageTop  pageWay = iota // the top: the scheduled sends, then the newest
	pageEnd                 // the last page: the oldest
	pageDown                // the page after the last send shown
	pageUp                  // the page before the first send shown
	pageSame                // the top again, keeping the send under the cursor (a refresh, a cancel)
)

// historyLoadedMsg answers reading a page of the send history.
type historyLoadedMsg struct {
	Seq      int // the load that asked
	Way      pageWay
	Entries  []historyEntry
	Top, End bool // the page reaches the history's top, its end
	Count    int  // the sends listed in all (no filter), -1 when not counted
	Err      error
	// Quiet: a refresh for what others changed, not the operator's ask:
	// its success leaves the status bar's last refusal, which the
	// operator may not have read yet (another run's writes land as a
	// resume is refused for them).
	Quiet bool
}

func (m historyLoadedMsg) failure() error { return m.Err }

func (m historyLoadedMsg) background() bool { return m.Quiet }

// loadPage reads a page of the history, the way way, off the render path.
func (p *historyPane) loadPage(way pageWay) tea.Cmd {
	q := app.HistoryQuery{All: p.all, Limit: historyPageSize, Match: p.match}
	switch way {
	case pageEnd:
		q.Oldest = true
	case pageDown:
		k, ok := p.lastKey()
		if !ok {
			way, q.Before = pageTop, nil
		} else {
			q.Before = &k
		}
	case pageUp:
		if k, ok := p.firstKey(); ok {
			q.After = &k
		} else {
			way = pageTop
		}
	}
	p.loading = true
	p.seq++
	sess, seq, zone, ctx := p.c.session, p.seq, p.c.rules.Zone(), p.c.ctx
	count := way != pageDown && way != pageUp && p.match == ""
	return owned(p.c.reads, func() tea.Msg {
		w, err := sess.HistoryFrom(ctx, q)
		if err != nil {
			return historyLoadedMsg{Seq: seq, Way: way, Err: err}
		}
		msg := historyLoadedMsg{Seq: seq, Way: way, Top: w.Top, End: w.End, Count: -1}
		for _, in := range w.Entries {
			msg.Entries = append(msg.Entries, entryOf(in, zone))
		}
		if count {
			if n, err := sess.HistoryCount(ctx, q.All); err == nil {
				msg.Count = n
			}
		}
		return msg
	})
}

// load reads the history's top again (on entering it, a refresh, after a
// cancel), keeping the send under the cursor where it is listed.
func (p *historyPane) load() tea.Cmd {
	p.detail = nil
	return p.loadPage(pageSame)
}

// lastKey is the key of the last send shown that is not waiting for its
// time (those are listed at the top, never after a key).
func (p *historyPane) lastKey() (app.HistoryKey, bool) {
	for i := len(p.entries) - 1; i >= 0; i-- {
		if !p.entries[i].Waiting {
			return p.entries[i].key, true
		}
	}
	return app.HistoryKey{}, false
}

// firstKey is the key of the first send shown that is not waiting.
func (p *historyPane) firstKey() (app.HistoryKey, bool) {
	for _, e := range p.entries {
		if !e.Waiting {
			return e.key, true
		}
	}
	return app.HistoryKey{}, false
}

// loaded takes a page: in place of the list (the top, the end), after it
// (down) or before it (up), the cursor where the key that asked sent it.
func (p *historyPane) loaded(msg historyLoadedMsg) {
	if msg.Seq != p.seq {
		return // superseded: a later load is coming
	}
	p.loading = false
	p.err = ""
	if msg.Err != nil {
		p.err = errorLine(msg.Err)
		return
	}
	if msg.Count >= 0 {
		p.count = msg.Count
	}
	switch msg.Way {
	case pageDown:
		p.entries, p.end = append(p.entries, msg.Entries...), msg.End
		p.cursor = min(p.target, len(p.entries)-1)
	case pageUp:
		p.entries, p.top = append(slices.Clone(msg.Entries), p.entries...), msg.Top
		p.cursor = max(0, p.target+len(msg.Entries))
		p.offset += len(msg.Entries)
	case pageEnd:
		p.entries, p.top, p.end = msg.Entries, msg.Top, msg.End
		p.cursor, p.offset = len(p.entries)-1, max(0, len(p.entries)-p.rows())
	case pageTop:
		p.entries, p.top, p.end = msg.Entries, msg.Top, msg.End
		p.cursor, p.offset = 0, 0
	case pageSame:
		selected := p.selectedID()
		p.entries, p.top, p.end = msg.Entries, msg.Top, msg.End
		p.cursor = min(p.cursor, len(p.entries)-1)
		if i := slices.IndexFunc(p.entries, func(e historyEntry) bool { return e.ID == selected }); i >= 0 {
			p.cursor = i // the send under the cursor stays under it (a cancelled one moves down the list)
		}
	}
	p.cursor = max(0, p.cursor)
	p.clampView()
}

// selectedID is the send under the cursor ("" when none).
func (p *historyPane) selectedID() string {
	if p.cursor < len(p.entries) {
		return p.entries[p.cursor].ID
	}
	return ""
}

// entryOf is one send as the list shows it, its times in zone.
func entryOf(in app.HistoryEntry, zone *time.Location) historyEntry {
	e := historyEntry{ID: in.ID, Status: in.Status(), Profile: in.Profile(), key: in.Key()}
	if op := in.Operator(); op != nil {
		e.Operator = op.Name
	}
	if in.Err != nil || in.State == nil {
		e.Err = errorLine(in.Err)
		return e
	}
	st := in.State
	e.When = st.Plan.Time.In(zone).Format("2006-01-02 15:04")
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
	return e
}
