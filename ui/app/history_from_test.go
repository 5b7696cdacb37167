package app

import (
	"slices"
	"testing"
)

// TestHistoryFromPagesBothWays: pages read from a place in the history
// (down from a send, up from one, the last page) walk it whole in its
// order, the scheduled sends at the top, and say where its top and end
// are; a filter (Match, Status) pages the same way. The console's history
// had only a first page that grew: G to the oldest of 7,148 sends took 68
// pages (issue 40 item 9).
func TestHistoryFromPagesBothWays(t *testing.T) {
	live, _ := mixedHistory(t, 60)

	for _, q := range []HistoryQuery{{}, {All: true}, {Match: "seed-000003"}, {Status: "complete"}} {
		whole, err := live.HistoryPage(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		want := entryIDs(whole)
		q.Limit = 7

		var down []string
		w, err := live.HistoryFrom(t.Context(), q)
		for err == nil {
			down = append(down, entryIDs(w.Entries)...)
			if w.End || len(w.Entries) == 0 {
				break
			}
			d := q
			k := w.Entries[len(w.Entries)-1].Key()
			d.Before = &k
			w, err = live.HistoryFrom(t.Context(), d)
		}
		if err != nil || !slices.Equal(down, want) {
			t.Errorf("%+v down: %v (%v)\nwant %v", q, down, err, want)
		}

		var up []string
		last := q
		last.Oldest = true
		w, err = live.HistoryFrom(t.Context(), last)
		if err == nil && !w.End {
			t.Errorf("%+v: the last page does not say it is the end", q)
		}
		for err == nil {
			up = append(slices.Clone(entryIDs(w.Entries)), up...)
			if w.Top || len(w.Entries) == 0 {
				break
			}
			u := q
			k := w.Entries[0].Key()
			u.After = &k
			w, err = live.HistoryFrom(t.Context(), u)
		}
		if err != nil || !slices.Equal(up, want) {
			t.Errorf("%+v up from the end: %v (%v)\nwant %v", q, up, err, want)
		}
	}
}

// entryIDs are the entries' ids, in order.
func entryIDs(list []HistoryEntry) []string {
	out := make([]string, len(list))
	for i, e := range list {
		out[i] = e.ID
	}
	return out
}
