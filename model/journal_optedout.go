package model

import "time"

// JournalOptedOut records items a running send left out because their
// recipients were put on the opt-out list (for its line, or every line)
// after it was planned: a reply «۱۱» that came while it ran. The engine
// looks each chunk's numbers up before the chunk's intent; the items found
// are written here, before that intent, and replay as opted out (never
// sent, never unknown), as those the plan or a resume left out.
type JournalOptedOut struct {
	Time    time.Time `json:"time"`
	Indexes []int     `json:"indexes"`
}

// applyOptedOut marks r's items opted out, those certainly not taken (a
// record that names an item already sent, or in flight, changes nothing
// of it).
func (s *JournalState) applyOptedOut(r *JournalOptedOut) {
	s.touch(r.Time)
	for _, i := range r.Indexes {
		if it, ok := s.Item(i); ok && it.State.CertainlyNotTaken() {
			it.State, it.At = StateOptedOut, r.Time
		}
	}
}
