package app

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/model/fakeclock"
)

// TestHistoryPageIsHistoryFiltered: a page of history read from the
// ledger's index holds what History, filtered and cut, holds, in its
// order: the scheduled sends first, soonest first, then newest first; other
// profiles' sends only with All; pages longer than a batch.
func TestHistoryPageIsHistoryFiltered(t *testing.T) {
	live, t1 := mixedHistory(t, 130) // pages past one batch

	// What the CLI's history did before it paged: every send replayed, then filtered.
	want := func(q HistoryQuery) []string {
		list, err := live.History(t.Context(), q.All)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range list {
			if (q.Status == "" || e.Status() == q.Status) && (!q.Past || !e.Waiting()) && (q.Since.IsZero() || e.State != nil && !e.State.Plan.Time.Before(q.Since)) &&
				(q.Limit == 0 || len(out) < q.Limit) {
				out = append(out, e.ID)
			}
		}
		return out
	}
	for _, q := range []HistoryQuery{
		{Limit: 20},
		{Limit: 1},
		{Limit: 3},
		{},
		{All: true, Limit: 5},
		{All: true},
		{Status: "scheduled"},
		{Status: "complete", Limit: 120},
		{Status: "missed"},
		{Status: "cancelled"},
		{Status: "held"},
		{Status: "running"},
		{Status: "interrupted", Limit: 2},
		{Past: true, Limit: 3},
		{Past: true, Status: "scheduled"},
		{Since: t1.Add(90 * time.Minute)},
		{Since: t1.Add(-30 * time.Minute), Limit: 100},
	} {
		got, err := live.HistoryPage(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, e := range got {
			ids = append(ids, e.ID)
		}
		if w := want(q); strings.Join(ids, " ") != strings.Join(w, " ") {
			t.Errorf("HistoryPage(%+v):\n got %d %v\nwant %d %v", q, len(ids), ids, len(w), w)
		}
	}
	for _, all := range []bool{false, true} {
		list, _ := live.History(t.Context(), all)
		if n, err := live.HistoryCount(t.Context(), all); err != nil || n != len(list) {
			t.Errorf("HistoryCount(%v) = %d (%v), History lists %d", all, n, err, len(list))
		}
	}
}

// TestHistoryPagesDoNotGrowWithThePast: a page of the newest sends, the
// newest without the scheduled ones (the console's note of unfinished
// sends), and a status the ledger's summary row tells (scheduled, held,
// cancelled, missed, running) replay the same sends at 2,000 past sends as
// at 100: at most 1.5× the allocations. Replaying every send to filter it
// was 100×; a status only a replay tells (interrupted) still reads every
// batch, and is not held to it.
func TestHistoryPagesDoNotGrowWithThePast(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds 2,000 sends")
	}
	t1 := time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC)
	session := func(n int) *Session {
		v := newService(t, sandbox.Options{})
		paths := tempPaths(t)
		s := v.clocked(t, paths, &config.Profile{Name: "live", Sender: sandbox.DefaultSender}, fakeclock.New(t1))
		schedule(t, s, []model.PairRow{{Line: 2, Recipient: "09120000030", Message: "later"}}, t1.Add(6*time.Hour))
		id := schedule(t, s, []model.PairRow{{Line: 2, Recipient: "09120000031", Message: "cancelled"}}, t1.Add(5*time.Hour))
		if err := s.CancelScheduled(t.Context(), id); err != nil {
			t.Fatal(err)
		}
		ledgertest.SeedSends(t, filepath.Join(paths.StateDir, ledger.FileName), n,
			model.JournalPlan{Profile: "live", Sender: sandbox.DefaultSender, BaseURL: v.baseURL, Account: model.AccountID(v.baseURL, v.sb.Key())},
			t1.Add(-time.Hour), time.Minute)
		return s
	}
	few, many := session(100), session(2_000)
	for _, q := range []HistoryQuery{
		{Limit: 20},
		{Limit: 20, Past: true},
		{Status: "scheduled"},
		{Status: "cancelled"},
		{Status: "held"},
		{Status: "missed"},
		{Status: "running"},
		{Status: "complete", Limit: 10},
	} {
		allocs := func(s *Session) (float64, int) {
			n := 0
			a := testing.AllocsPerRun(3, func() {
				list, err := s.HistoryPage(t.Context(), q)
				if err != nil {
					t.Fatal(err)
				}
				n = len(list)
			})
			return a, n
		}
		a, n := allocs(few)
		b, m := allocs(many)
		if n != m {
			t.Errorf("HistoryPage(%+v) lists %d at 100 past sends, %d at 2,000", q, n, m)
		}
		if b > 1.5*a {
			t.Errorf("HistoryPage(%+v): %.0f allocations at 2,000 past sends, %.0f at 100 (%.1f×; budget 1.5×)", q, b, a, b/a)
		}
	}
}

// mixedHistory is the history the paging tests walk: three sends of the
// profile live an hour apart from t1 (returned), one of the profile test,
// three of live's scheduled (one of them cancelled), and seeded older sends
// of live's. It returns live's session.
func mixedHistory(t *testing.T, seeded int) (*Session, time.Time) {
	t.Helper()
	v := newService(t, sandbox.Options{})
	t1 := time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC)
	clock := fakeclock.New(t1)
	paths := tempPaths(t)
	live := v.clocked(t, paths, &config.Profile{Name: "live", Sender: sandbox.DefaultSender}, clock)
	other := v.clocked(t, paths, &config.Profile{Name: "test", Sender: sandbox.DefaultSender}, clock)
	for i := range 3 {
		send(t, live, []model.PairRow{{Line: 2, Recipient: fmt.Sprintf("0912000001%d", i), Message: "now"}})
		clock.Advance(time.Hour)
	}
	send(t, other, []model.PairRow{{Line: 2, Recipient: "09120000020", Message: "other"}})
	schedule(t, live, []model.PairRow{{Line: 2, Recipient: "09120000030", Message: "later"}}, t1.Add(6*time.Hour))
	schedule(t, live, []model.PairRow{{Line: 2, Recipient: "09120000031", Message: "sooner"}}, t1.Add(5*time.Hour))
	gone := schedule(t, live, []model.PairRow{{Line: 2, Recipient: "09120000032", Message: "never"}}, t1.Add(7*time.Hour))
	if err := live.CancelScheduled(t.Context(), gone); err != nil {
		t.Fatal(err)
	}
	ledgertest.SeedSends(t, filepath.Join(paths.StateDir, ledger.FileName), seeded,
		model.JournalPlan{Profile: "live", Sender: sandbox.DefaultSender, BaseURL: v.baseURL, Account: model.AccountID(v.baseURL, v.sb.Key())},
		t1.Add(-time.Hour), time.Minute)
	return live, t1
}
