package app

import (
	"context"
	"slices"
	"time"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/model"
)

// HistoryQuery is what HistoryPage lists.
type HistoryQuery struct {
	// All lists every profile's sends, not only the session's (History's all).
	All bool
	// Since keeps the sends planned at or after it (zero: any time); an
	// unreadable send is left out when it is set.
	Since time.Time
	// Status keeps the sends of one status (HistoryEntry.Status; "": any).
	Status string
	// Limit is how many at most (0: every one).
	Limit int
	// Past leaves out the sends that wait for their time: the newest
	// sends alone (what the console's note of unfinished sends reads).
	Past bool
	// Before lists the sends after Before in the history (older: the next
	// page down), After the sends before it (newer: the page up), Oldest
	// the history's last page; each is read by its key from the ledger's
	// history index, whatever its depth (HistoryFrom). The sends that wait
	// for their time are listed at the top: never after a key.
	Before, After *HistoryKey
	Oldest        bool
	// Match keeps the sends whose id, profile, sender, source or operator
	// holds it (ledger.SendQuery.Match).
	Match string
}

// HistoryKey is a send's place in the history: its plan time, then its id
// (HistoryEntry.Key).
type HistoryKey = ledger.SendKey

// HistoryWindow is a page of the history read from a place in it, in the
// history's order, and whether it reaches the history's top (nothing
// newer; the sends that wait for their time listed first) and its end
// (nothing older).
type HistoryWindow struct {
	Entries  []HistoryEntry
	Top, End bool
}

// historyBatch is how many sends HistoryPage reads from the ledger at a time
// once its first page fell short (sends of the profile against another base
// URL, or of another status, are read and passed by).
const historyBatch = 50

// HistoryPage is History(q.All) filtered by q and cut at q.Limit, in the
// same order: the scheduled sends that wait for their time first (soonest
// first), then newest first. It reads the ledger's history index a batch
// at a time and replays only the sends of the batches it reads, so that
// `history --limit 20` costs the same at 100 past sends as at 100,000
// (issue 36). A Status that few sends have may read every batch.
func (s *Session) HistoryPage(ctx context.Context, q HistoryQuery) ([]HistoryEntry, error) {
	base := s.pageQuery(q)
	if q.Before != nil || q.After != nil || q.Oldest {
		base.Before, base.After, base.Oldest = q.Before, q.After, q.Oldest
		return s.collect(ctx, base, q, nil) // no waiting sends after a key, or at the end
	}
	var out []HistoryEntry
	if !q.Past {
		var err error
		if out, err = s.waitingFirst(ctx, base, q); err != nil {
			return nil, err
		}
	}
	if q.Limit > 0 && len(out) >= q.Limit {
		return out[:q.Limit], nil
	}
	return s.collect(ctx, base, q, out)
}

// pageQuery selects in the ledger the sends q may keep, by their summary.
func (s *Session) pageQuery(q HistoryQuery) ledger.SendQuery {
	base := s.historyQuery(q.All)
	base.Since, base.States, base.Leased, base.Match = q.Since, statusStates[q.Status], q.Status == "running", q.Match
	return base
}

// HistoryFrom is a page of q.Limit sends from a place in the history
// (q.Before, q.After, q.Oldest; none: the top), in the history's order,
// for a face that pages both ways: G reads the last page at once, where
// reading down from the top took 68 pages to the oldest of 7,148 sends
// (issue 40 item 9). A page up or the last page that reaches the top
// starts with the sends that wait for their time, as the top does.
func (s *Session) HistoryFrom(ctx context.Context, q HistoryQuery) (HistoryWindow, error) {
	want := max(1, q.Limit)
	q.Limit = want + 1 // one more: whether more follow that way
	list, err := s.HistoryPage(ctx, q)
	if err != nil {
		return HistoryWindow{}, err
	}
	more := len(list) > want
	if more {
		list = list[:want] // the one more is the next page's
	}
	up := q.After != nil || q.Oldest
	if up {
		slices.Reverse(list) // read oldest first: shown in the history's order
	}
	w := HistoryWindow{Entries: list}
	switch {
	case up:
		w.Top, w.End = !more, q.Oldest
	default:
		w.Top, w.End = q.Before == nil, !more
	}
	if w.Top && up && !q.Past {
		waiting, err := s.waitingFirst(ctx, s.pageQuery(q), q)
		if err != nil {
			return HistoryWindow{}, err
		}
		w.Entries = append(waiting, w.Entries...)
	}
	return w, nil
}

// keeps reports whether q keeps e of s's history.
func (q HistoryQuery) keeps(s *Session, e HistoryEntry) bool {
	return (q.All || s.mine(e)) && (q.Status == "" || e.Status() == q.Status) &&
		(q.Since.IsZero() || e.State != nil && !e.State.Plan.Time.Before(q.Since))
}

// collect adds to out (the waiting sends, at the top) every other send of
// page that q keeps, in page's order (newest first; oldest first with
// After or Oldest), until q.Limit: as many as are still wanted, again as
// many as are still wanted while the sends passed by are only the waiting
// ones (listed first, or left out: few), then a batch at a time once q's
// filters pass sends by (no limit: all at once). Each batch is read from
// the last one's key, not an offset. A send passed by for what its summary
// says, or listed already, is not replayed.
func (s *Session) collect(ctx context.Context, page ledger.SendQuery, q HistoryQuery, out []HistoryEntry) ([]HistoryEntry, error) {
	listed := make(map[string]bool, len(out))
	for _, e := range out {
		listed[e.ID] = true
	}
	filtered := false // q's filters passed sends by: the next batch is a batch
	pick := func(sum ledger.Send) bool {
		if listed[sum.ID] {
			return false
		}
		ok := mayBe(q.Status, sum)
		filtered = filtered || !ok
		return ok
	}
	if q.Limit > 0 {
		page.Limit = q.Limit - len(out)
	}
	for {
		batch, read, last, err := s.historyEntries(ctx, page, pick)
		if err != nil {
			return nil, err
		}
		for _, e := range batch {
			switch {
			case e.Waiting():
			case !q.keeps(s, e):
				filtered = true
			default:
				if out = append(out, e); len(out) == q.Limit {
					return out, nil
				}
			}
		}
		if page.Limit == 0 || read < page.Limit {
			return out, nil
		}
		page = nextBatch(page, last, q.Limit-len(out), filtered)
	}
}

// nextBatch is the batch of the history after page's, whose last send's
// key is last, in page's direction: as many as are still wanted, or a
// batch when filters passed sends by.
func nextBatch(page ledger.SendQuery, last ledger.SendKey, wanted int, filtered bool) ledger.SendQuery {
	if page.After != nil || page.Oldest {
		page.After = &last
	} else {
		page.Before = &last
	}
	page.Limit = wanted
	if filtered {
		page.Limit = max(page.Limit, historyBatch)
	}
	return page
}

// waitingFirst lists the sends of page that wait for their time and q
// keeps, soonest first: few at any time.
func (s *Session) waitingFirst(ctx context.Context, page ledger.SendQuery, q HistoryQuery) ([]HistoryEntry, error) {
	if page.States != nil && !slices.Contains(page.States, ledger.StateWaiting) {
		return nil, nil // q's status is never a waiting send's
	}
	page.States, page.Due = []ledger.State{ledger.StateWaiting}, true
	list, _, _, err := s.historyEntries(ctx, page, func(sum ledger.Send) bool { return mayBe(q.Status, sum) })
	if err != nil {
		return nil, err
	}
	var out []HistoryEntry
	for _, e := range list {
		if e.Waiting() && q.keeps(s, e) {
			out = append(out, e)
		}
	}
	slices.SortStableFunc(out, func(a, b HistoryEntry) int {
		return a.State.Plan.ScheduledFor.Compare(b.State.Plan.ScheduledFor)
	})
	return out, nil
}

// HistoryCount counts the sends History(all) lists, from the ledger's
// index without replaying any: the session's profile's against its
// service, or every send. A send of the profile through another base URL
// of the same service host counts as the session's here (History leaves
// it out).
func (s *Session) HistoryCount(ctx context.Context, all bool) (int, error) {
	return config.CountJournals(ctx, s.Paths, s.historyQuery(all))
}

// historyQuery selects in the ledger the sends mine may keep (every send
// when all): the profile's, against its service's host or none named.
func (s *Session) historyQuery(all bool) ledger.SendQuery {
	if all {
		return ledger.SendQuery{}
	}
	q := ledger.SendQuery{Profile: s.Profile.Name}
	if s.Profile.BaseURL != "" {
		q.Hosts = []string{model.ServiceHost(s.Profile.BaseURL), ""}
	}
	return q
}

// statusStates are the states of the ledger's summary row a send of a
// status can be in: the ledger selects those rows before any send is
// replayed. The other statuses (complete, unresolved, interrupted,
// stopped, unreadable) are told only by replaying a send: a filter by one
// of them replays the newest sends a batch at a time until its page is
// full, or the past ends.
var statusStates = map[string][]ledger.State{
	"scheduled": {ledger.StateWaiting},
	"held":      {ledger.StateHeld},
	"cancelled": {ledger.StateCancelled},                // only a waiting send is cancelled
	"missed":    {ledger.StateMissed, ledger.StateHeld}, // a held send not continued in time: held it stays
}

// mayBe reports whether a send whose summary is sum may have status (""
// any): running is a live lease's, which the summary says; a scheduled
// send that a run holds is running.
func mayBe(status string, sum ledger.Send) bool {
	switch status {
	case "running":
		return sum.Leased
	case "scheduled":
		return !sum.Leased
	}
	return true
}

// historyEntries replays the sends q selects that pick keeps, by their
// summary, and returns how many q selected and the last one's key.
func (s *Session) historyEntries(ctx context.Context, q ledger.SendQuery, pick func(ledger.Send) bool) ([]HistoryEntry, int, ledger.SendKey, error) {
	list, err := config.ListSends(ctx, s.Paths, q)
	if err != nil || len(list) == 0 {
		return nil, 0, ledger.SendKey{}, err
	}
	out := make([]HistoryEntry, 0, len(list))
	for _, sum := range list {
		if !pick(sum) {
			continue
		}
		e := HistoryEntry{ID: sum.ID, Running: sum.Leased, key: sum.Key()}
		e.State, e.Err = config.ReadJournal(ctx, s.Paths, sum.ID)
		out = append(out, e)
	}
	return out, len(list), list[len(list)-1].Key(), nil
}

// SendChoice is a send as a shell's completion offers it: its id, and
// when it was planned and where it stands (Readable false: its records do
// not replay).
type SendChoice struct {
	ID       string
	Time     time.Time
	Status   string
	Readable bool
}

// SendsStartingWith lists the newest sends of the ledger of paths (every
// profile's) whose id begins with prefix, at most limit of them: what
// `smsdesk history show <tab>` offers. It reads the ledger's index, a page,
// never every send.
func SendsStartingWith(ctx context.Context, paths config.Paths, prefix string, limit int) ([]SendChoice, error) {
	list, err := config.ListJournalsPage(ctx, paths, ledger.SendQuery{IDPrefix: prefix, Limit: limit})
	if err != nil {
		return nil, err
	}
	out := make([]SendChoice, len(list))
	for i, j := range list {
		out[i] = SendChoice{ID: j.ID}
		if j.State != nil {
			out[i].Time, out[i].Status, out[i].Readable = j.State.Plan.Time, SendStatus(j.State, j.Running), true
		}
	}
	return out, nil
}
