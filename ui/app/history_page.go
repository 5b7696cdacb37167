package app

import (
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
func (s *Session) HistoryPage(q HistoryQuery) ([]HistoryEntry, error) {
	base := s.historyQuery(q.All)
	base.Since = q.Since
	out, err := s.waitingFirst(base, q)
	if err != nil {
		return nil, err
	}
	if q.Limit > 0 && len(out) >= q.Limit {
		return out[:q.Limit], nil
	}
	return s.newestFirst(base, q, out)
}

// keeps reports whether q keeps e of s's history.
func (q HistoryQuery) keeps(s *Session, e HistoryEntry) bool {
	return (q.All || s.mine(e)) && (q.Status == "" || e.Status() == q.Status) &&
		(q.Since.IsZero() || e.State != nil && !e.State.Plan.Time.Before(q.Since))
}

// newestFirst adds to out (the waiting sends) every other send of page
// that q keeps, newest first, until q.Limit: as many as are still wanted
// (the profile's own sends, all of them kept, need no more), then a batch
// at a time (no limit: all at once).
func (s *Session) newestFirst(page ledger.SendQuery, q HistoryQuery, out []HistoryEntry) ([]HistoryEntry, error) {
	listed := make(map[string]bool, len(out))
	for _, e := range out {
		listed[e.ID] = true
	}
	if q.Limit > 0 {
		page.Limit = q.Limit - len(out)
	}
	for {
		batch, err := s.historyEntries(page)
		if err != nil {
			return nil, err
		}
		for _, e := range batch {
			if listed[e.ID] || e.Waiting() || !q.keeps(s, e) {
				continue
			}
			if out = append(out, e); len(out) == q.Limit {
				return out, nil
			}
		}
		if page.Limit == 0 || len(batch) < page.Limit {
			return out, nil
		}
		page.Offset += page.Limit
		page.Limit = historyBatch
	}
}

// waitingFirst lists the sends of page that wait for their time and q
// keeps, soonest first: few at any time.
func (s *Session) waitingFirst(page ledger.SendQuery, q HistoryQuery) ([]HistoryEntry, error) {
	page.States, page.Due = []ledger.State{ledger.StateWaiting}, true
	list, err := s.historyEntries(page)
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
func (s *Session) HistoryCount(all bool) (int, error) {
	return config.CountJournals(s.Paths, s.historyQuery(all))
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

// historyEntries replays the sends q selects.
func (s *Session) historyEntries(q ledger.SendQuery) ([]HistoryEntry, error) {
	list, err := config.ListJournalsPage(s.Paths, q)
	if err != nil {
		return nil, err
	}
	out := make([]HistoryEntry, len(list))
	for i, l := range list {
		out[i] = HistoryEntry{ID: l.ID, State: l.State, Running: l.Running, Err: l.Err}
	}
	return out, nil
}
