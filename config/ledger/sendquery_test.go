package ledger

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
)

// TestSendQuerySelects: a history page and its count select by profile,
// service host, plan time and the id's beginning in the index, as
// history's filters and a shell's completion ask.
func TestSendQuerySelects(t *testing.T) {
	ctx := context.Background()
	each(t, func(t *testing.T, l *Ledger, loc string) {
		for i, s := range []struct{ id, profile, base string }{
			{"a", "work", "https://sms.example.com"},
			{"b", "work", "https://proxy.example.com"},
			{"c", "home", "https://sms.example.com"},
			{"d", "work", ""},
			{"e", "work", "https://sms.example.com/api/v1"},
		} {
			p := plan(s.id, 1, time.Time{})
			p.Profile, p.BaseURL, p.Time = s.profile, s.base, t0.Add(time.Duration(i)*time.Hour)
			lease, err := l.CreateSend(ctx, s.id, p, "test", 0)
			if err != nil {
				t.Fatal(err)
			}
			_ = lease.Release(ctx)
		}
		for _, tt := range []struct {
			name string
			q    SendQuery
			want string
		}{
			{"every send", SendQuery{}, "e d c b a"},
			{"one profile", SendQuery{Profile: "work"}, "e d b a"},
			{"one service, or none named", SendQuery{Profile: "work", Hosts: []string{"sms.example.com:443", ""}}, "e d a"},
			{"since", SendQuery{Since: t0.Add(2 * time.Hour)}, "e d c"},
			{"an id's beginning", SendQuery{IDPrefix: "d"}, "d"},
			{"an id's beginning, no more", SendQuery{IDPrefix: "d_"}, ""},
			{"all three, a page", SendQuery{Profile: "work", Hosts: []string{"sms.example.com:443"}, Since: t0.Add(time.Hour), Limit: 1}, "e"},
		} {
			page, err := l.ListSends(ctx, tt.q)
			if got := strings.Join(ids(page), " "); err != nil || got != tt.want {
				t.Errorf("%s: ListSends %q (%v), want %q", tt.name, got, err, tt.want)
			}
			n, err := l.CountSends(ctx, SendQuery{Profile: tt.q.Profile, Hosts: tt.q.Hosts, Since: tt.q.Since, IDPrefix: tt.q.IDPrefix})
			if err != nil || tt.q.Limit == 0 && n != len(page) {
				t.Errorf("%s: CountSends %d (%v), want %d", tt.name, n, err, len(page))
			}
		}
	})
}

// TestHistoryPagesReadTheirIndex: a page of history reads the history
// index and the scheduled sends the due index, on SQLite (whose planner,
// without statistics, is the one that could choose a scan): neither reads
// every send, so neither grows with the past.
func TestHistoryPagesReadTheirIndex(t *testing.T) {
	ctx := context.Background()
	l, err := Create(ctx, ledgertest.SQLite(t))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, tt := range []struct {
		name  string
		q     SendQuery
		index string
	}{
		{"a page", SendQuery{Limit: 20}, "sends_history"},
		{"a profile's page", SendQuery{Profile: "work", Hosts: []string{"sms.example.com:443", ""}, Limit: 20}, "sends_history"},
		{"the scheduled sends", SendQuery{States: []State{StateWaiting}, Profile: "work", Due: true}, "sends_due"},
	} {
		query, args := tt.q.list(l.sendColumns(""))
		rows, err := l.db.QueryContext(ctx, "EXPLAIN QUERY PLAN "+query, args...)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, notused int
			var detail string
			if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		if got := strings.Join(plan, "; "); !strings.Contains(got, "INDEX "+tt.index) {
			t.Errorf("%s: %s, want it to read %s", tt.name, got, tt.index)
		}
	}
}
