package ledger

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
	"github.com/smsdesk/smsdesk/model"
)

// TestSendQueryPagesByKey: pages read by their key (Before: down, After:
// up, Oldest: the last) walk the whole history in its order, both ways,
// ties on the plan time broken by the id, as ListSends lists it whole.
// The console's history had only a growing first page: G read 100 more
// sends each time, 68 presses and 23 s to the oldest of 7,148 (issue 40
// item 9).
func TestSendQueryPagesByKey(t *testing.T) {
	ctx := context.Background()
	each(t, func(t *testing.T, l *Ledger, loc string) {
		newest := t0.Add(1000 * time.Hour)
		ledgertest.SeedSends(t, loc, 95, model.JournalPlan{Profile: "work", Sender: "3000", BaseURL: "https://sms.example.com"}, newest, time.Hour)
		for i := range 5 { // five at one plan time: the id breaks the tie
			p := plan(fmt.Sprintf("tie-%d", i), 1, time.Time{})
			p.Time = newest.Add(-10 * time.Hour)
			lease, err := l.CreateSend(ctx, p.ID, p, "test", 0)
			if err != nil {
				t.Fatal(err)
			}
			_ = lease.Release(ctx)
		}
		all, err := l.ListSends(ctx, SendQuery{})
		if err != nil || len(all) != 100 {
			t.Fatalf("ListSends: %d (%v), want 100", len(all), err)
		}
		want := ids(all)

		var down []string
		for q := (SendQuery{Limit: 7}); ; {
			page, err := l.ListSends(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			down = append(down, ids(page)...)
			if len(page) < q.Limit {
				break
			}
			k := page[len(page)-1].Key()
			q.Before = &k
		}
		if !slices.Equal(down, want) {
			t.Errorf("down by Before:\n got %v\nwant %v", down, want)
		}

		last, err := l.ListSends(ctx, SendQuery{Oldest: true, Limit: 7})
		if err != nil || !slices.Equal(ids(last), reversed(want[len(want)-7:])) {
			t.Errorf("Oldest, 7: %v (%v), want %v", ids(last), err, reversed(want[len(want)-7:]))
		}
		var up []string
		for q := (SendQuery{Oldest: true, Limit: 7}); ; {
			page, err := l.ListSends(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			up = append(up, ids(page)...)
			if len(page) < q.Limit {
				break
			}
			k := page[len(page)-1].Key()
			q.After = &k
		}
		if !slices.Equal(up, reversed(want)) {
			t.Errorf("up by After:\n got %v\nwant %v", up, reversed(want))
		}
	})
}

// TestSendQueryMatch: Match finds a text in a send's id, profile, sender,
// source or operator, ASCII letters in any case, Persian as it is, and a
// % or _ in it as themselves.
func TestSendQueryMatch(t *testing.T) {
	ctx := context.Background()
	each(t, func(t *testing.T, l *Ledger, loc string) {
		for i, s := range []struct{ id, sender, source, operator string }{
			{"a", "3000505", "group Campaign (4)", "sara"},
			{"b", "10004346", "file pairs_100%.csv", ""},
			{"c", "3000505", "group مشتریان تهران (1)", "Reza"},
		} {
			p := plan(s.id, 1, time.Time{})
			p.Time, p.Sender, p.Source = t0.Add(time.Duration(i)*time.Hour), s.sender, s.source
			if s.operator != "" {
				p.Operator = &model.Operator{Name: s.operator}
			}
			lease, err := l.CreateSend(ctx, s.id, p, "test", 0)
			if err != nil {
				t.Fatal(err)
			}
			_ = lease.Release(ctx)
		}
		for _, tt := range []struct{ match, want string }{
			{"campaign", "a"},
			{"3000505", "c a"},
			{"REZA", "c"},
			{"تهران", "c"},
			{"100%", "b"},
			{"_", "b"},        // as itself: only b's source has one
			{"%%", ""},        // no send holds two
			{"work", "c b a"}, // the profile
			{"nobody", ""},
		} {
			page, err := l.ListSends(ctx, SendQuery{Match: tt.match})
			if got := strings.Join(ids(page), " "); err != nil || got != tt.want {
				t.Errorf("Match %q: %q (%v), want %q", tt.match, got, err, tt.want)
			}
		}
	})
}

// reversed is a copy of s, last first.
func reversed(s []string) []string {
	out := slices.Clone(s)
	slices.Reverse(out)
	return out
}
