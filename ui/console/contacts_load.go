package console

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// Loading a group's contacts. Each load has an id and its own context, kept by
// the pane: opening another group (or r) cancels it, so it makes no further
// request and its goroutine ends. Rows appear as pages arrive. A group listed
// before is shown at once from the cache in the state directory and refreshed
// in the background (stale-while-revalidate); the composer still waits for the
// fresh list, since a send must go to the group as the service has it now.

// open shows group g: from the cache when there is one, then freshly listed.
func (p *contactsPane) open(g model.Group) tea.Cmd {
	p.group = g
	p.rows, p.index = nil, nil
	p.cursor, p.offset = 0, 0
	p.err, p.note = "", ""
	p.cachedAt = time.Time{}
	p.optOuts, p.optOutAt, p.optOutsFrom = nil, nil, p.optOutSeq // what was looked up for another group's rows
	p.beginLoad()
	gid, id, sess := g.ID, p.loadID, p.c.session
	return func() tea.Msg {
		c, ok := sess.CachedContacts(gid)
		return contactsCachedMsg{GroupID: gid, LoadID: id, Cached: c, OK: ok}
	}
}

// refresh lists the group again, keeping the rows on screen until the fresh
// list has arrived.
func (p *contactsPane) refresh() tea.Cmd {
	p.err, p.note = "", ""
	if len(p.rows) > 0 {
		p.cachedAt = cmpNonZero(p.cachedAt, p.c.now())
	}
	p.beginLoad()
	return tea.Batch(p.startLoad(), p.lookupOptOuts(nil, "", nil))
}

// beginLoad retires the load in flight (its answers are ignored from now, and
// its requests stop) and takes a new load id.
func (p *contactsPane) beginLoad() {
	p.stopLoad()
	p.loadID++
	p.loading = true
	p.progress = client.ListProgress{Total: -1}
}

// stopLoad cancels the load in flight, if any.
func (p *contactsPane) stopLoad() {
	if p.cancelLoad != nil {
		p.cancelLoad()
		p.cancelLoad = nil
	}
}

func (p *contactsPane) cached(msg contactsCachedMsg) tea.Cmd {
	if msg.GroupID != p.group.ID || msg.LoadID != p.loadID {
		return nil
	}
	if msg.OK {
		p.setContacts(msg.Cached.Contacts)
		p.cachedAt = msg.Cached.SavedAt
		return tea.Batch(p.startLoad(), p.lookupOptOuts(msg.Cached.Contacts, "", nil))
	}
	return p.startLoad()
}

// startLoad lists the group's contacts under the current load id.
func (p *contactsPane) startLoad() tea.Cmd {
	ctx, id := p.c.startWork(workLoad, "contacts of "+p.group.Name+" ("+string(p.group.ID)+")")
	p.cancelLoad = func() { p.c.work.end(id) }
	p.loadStart = p.c.now()
	return loadContacts(ctx, p.c.session, p.group.ID, p.loadID)
}

// loadContacts lists a group's contacts in a goroutine that hands over one
// message per page, read one per Cmd. Every hand-over also waits on ctx, so a
// cancelled load never blocks on a reader that has moved on.
func loadContacts(ctx context.Context, sess *app.Session, groupID model.ID, loadID int) tea.Cmd {
	ch := make(chan tea.Msg)
	go func() {
		defer close(ch)
		list, err := sess.ListContacts(ctx, groupID, app.ContactsQuery{OnPage: func(lp client.ListProgress) {
			select {
			case ch <- contactsProgressMsg{GroupID: groupID, LoadID: loadID, Progress: lp}:
			case <-ctx.Done():
			}
		}})
		contacts := list.Contacts
		if ctx.Err() != nil {
			return // replaced by another load: its end is no news, nor an error
		}
		if err != nil {
			err = fmt.Errorf("listing contacts of group %s: %w", groupID, err)
		}
		select {
		case ch <- contactsLoadedMsg{GroupID: groupID, LoadID: loadID, Contacts: contacts, Err: err}:
		case <-ctx.Done():
		}
	}()
	var next tea.Cmd
	next = func() tea.Msg {
		msg, ok := <-ch
		if !ok {
			return nil
		}
		if pm, isProgress := msg.(contactsProgressMsg); isProgress {
			pm.next = next
			return pm
		}
		return msg
	}
	return next
}

// page takes one page of the load in flight: its rows join the table at once
// unless cached rows are shown (they stay until the whole fresh list is in).
func (p *contactsPane) page(msg contactsProgressMsg) tea.Cmd {
	if msg.GroupID != p.group.ID || msg.LoadID != p.loadID {
		return nil // a late answer for a load that was replaced: the chain ends
	}
	p.progress = msg.Progress
	next := msg.next
	if p.cachedAt.IsZero() && len(msg.Progress.Contacts) > 0 {
		for _, c := range msg.Progress.Contacts {
			p.rows = append(p.rows, newContactRow(c))
		}
		p.query = "\x00"
		p.applyFilter()
		p.clamp()
		next = tea.Batch(next, p.lookupOptOuts(msg.Progress.Contacts, "", nil)) // the page's numbers
	}
	if msg.Progress.Total > 0 {
		// The service announced the total: show it before the last page.
		return tea.Batch(next, cmdOf(contactCountMsg{GroupID: msg.GroupID, Count: msg.Progress.Total}))
	}
	return next
}

// loaded ends a load: the fresh list replaces the rows and the cache.
func (p *contactsPane) loaded(msg contactsLoadedMsg) tea.Cmd {
	if msg.GroupID != p.group.ID || msg.LoadID != p.loadID {
		return nil
	}
	p.loading = false
	p.stopLoad() // releases the context; the goroutine has ended
	if msg.Err != nil {
		p.err = errorLine(msg.Err)
		if !p.cachedAt.IsZero() {
			p.err += " · showing the contacts as listed " + p.cachedAt.In(p.c.rules.Zone()).Format("Jan 2 15:04")
		}
		return nil
	}
	p.err, p.cachedAt = "", time.Time{}
	p.setContacts(msg.Contacts)
	p.clamp()
	return tea.Batch(cmdOf(contactCountMsg{GroupID: msg.GroupID, Count: len(p.rows), Final: true}),
		p.saveCache(msg.Contacts), p.lookupOptOuts(p.notLookedUp(msg.Contacts), "", nil))
}

// notLookedUp are the contacts whose numbers no look-up asked for this
// group's rows has answered for (a page's answer may still be coming: it
// is asked again, which costs a look-up, not a mark).
func (p *contactsPane) notLookedUp(contacts []model.Contact) []model.Contact {
	out := []model.Contact{}
	for _, c := range contacts {
		if k, err := model.OptOutKey(c.Mobile); err == nil && p.optOutAt[k] <= p.optOutsFrom {
			out = append(out, c)
		}
	}
	return out
}

// saveCache writes the group's fresh list to the cache.
func (p *contactsPane) saveCache(contacts []model.Contact) tea.Cmd {
	sess, gid, at := p.c.session, p.group.ID, p.c.now()
	writes, logger := p.c.writes, p.c.logger
	return func() tea.Msg {
		writes.do(func() {
			if err := sess.CacheContacts(gid, contacts, at); err != nil {
				logger.Debug("contacts cache not saved", "err", err)
			}
		})
		return nil
	}
}

// updateCache applies an add, a delete or an import to the group's cache, so
// that a reopen shows it at once.
func (p *contactsPane) updateCache(gid model.ID, change func([]model.Contact) []model.Contact) tea.Cmd {
	sess := p.c.session
	writes, logger := p.c.writes, p.c.logger
	return func() tea.Msg {
		writes.do(func() {
			if err := sess.UpdateCachedContacts(gid, change); err != nil {
				logger.Debug("contacts cache not updated", "err", err)
			}
		})
		return nil
	}
}

// loadingText says how far the load in flight is, with an ETA once the
// service has said the total and a page or two has come in.
func (p *contactsPane) loadingText() string {
	lp := p.progress
	var t string
	switch {
	case lp.Total > 0:
		t = fmt.Sprintf("loading %s of %s contacts (page %d)", thousands(lp.Loaded), thousands(lp.Total), lp.Page)
		if el := p.c.now().Sub(p.loadStart); lp.Loaded > 0 && lp.Total > lp.Loaded && el >= time.Second {
			eta := time.Duration(float64(el) * float64(lp.Total-lp.Loaded) / float64(lp.Loaded))
			t += " · ETA " + eta.Round(time.Second).String()
		}
	case lp.Page > 0:
		t = fmt.Sprintf("loading… %s contacts so far (page %d)", thousands(lp.Loaded), lp.Page)
	default:
		t = "loading contacts…"
	}
	if !p.cachedAt.IsZero() {
		t = "listed " + p.cachedAt.In(p.c.rules.Zone()).Format("Jan 2 15:04") + " · refreshing: " + t
	}
	return t
}

func cmpNonZero(t, alt time.Time) time.Time {
	if t.IsZero() {
		return alt
	}
	return t
}
