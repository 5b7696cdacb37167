package console

import (
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/model"
)

// TestCountsTextKeepsWhatHappened: the results' tally fits its width by
// leaving out the states no recipient is in, never by cutting: at 80
// columns the line ended "… · not sent 0 · del…" and the delivery count
// was lost (issue 40 item 4: what happened is never cut).
func TestCountsTextKeepsWhatHappened(t *testing.T) {
	item := func(st model.ItemState, delivery string) model.SentItem {
		return model.SentItem{State: st, Delivery: delivery}
	}
	sent := []model.SentItem{item(model.StateAccepted, "delivered"), item(model.StateAccepted, "delivered"), item(model.StateAccepted, "failed")}
	mixed := append(sent[:2:2], item(model.StateRejected, ""), item(model.StateUnknown, ""), item(model.StateQueued, ""), item(model.StateOptedOut, ""))
	for _, tc := range []struct {
		name    string
		results []model.SentItem
		w       int
		want    string
	}{
		{"wide: every state", sent, 120, "accepted 3 · rejected 0 · failed 0 · unknown 0 · sending 0 · not sent 0 · delivered 2, not 1"},
		{"80 columns: the empty states go", sent, 78, "accepted 3 · delivered 2, not 1"},
		{"80 columns, mixed", mixed, 78, "accepted 2 · rejected 1 · unknown 1 · not sent 1 · opted out 1 · delivered 2"},
		{"nothing accepted yet", []model.SentItem{item(model.StateQueued, "")}, 40, "accepted 0 · not sent 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &resultsPane{results: tc.results}
			got := p.countsText(tc.w)
			if got != tc.want {
				t.Errorf("countsText(%d) = %q, want %q", tc.w, got, tc.want)
			}
			if strings.Contains(got, "…") || cellWidth(got) > tc.w {
				t.Errorf("countsText(%d) = %q: cut, or wider than its room", tc.w, got)
			}
		})
	}
}
