package ledger

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
	"github.com/smsdesk/smsdesk/model"
)

// TestHistoryKeyPagesReadTheIndex: at 10,000 past sends (100,000 with
// SMSDESK_PLAN_SENDS=100000: seeding them takes a minute on a busy
// machine, more under -race, so the suite does not), the history's
// pages by key (the next page down, the page up, the last page: G) read
// the history index, forwards or backwards, from the key on, and sort
// nothing, on SQLite and PostgreSQL (with the statistics autovacuum
// gathers: SeedSends analyzes). No index was added (issue 40 item 9: no
// migration): sends_history (plan_time DESC, id DESC) is the key's order.
// A Match is a scan whatever the index (a text anywhere in five columns):
// SQLite reads the history index row by row until its page is full,
// PostgreSQL's planner takes a sequential scan and sorts the few rows that
// match when it expects few; its cost is logged, not asserted.
func TestHistoryKeyPagesReadTheIndex(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds 10,000 sends on each backend")
	}
	n := 10_000
	if v, err := strconv.Atoi(os.Getenv("SMSDESK_PLAN_SENDS")); err == nil && v > 0 {
		n = v
	}
	ctx := context.Background()
	each(t, func(t *testing.T, l *Ledger, loc string) {
		newest := t0.Add(200_000 * time.Minute)
		ledgertest.SeedSends(t, loc, n, model.JournalPlan{Profile: "work", Sender: "3000", BaseURL: "https://sms.example.com"}, newest, time.Minute)
		mid := SendKey{PlanTime: newest.Add(-time.Duration(n/2) * time.Minute), ID: fmt.Sprintf("seed-%07d", n/2)}
		mine := SendQuery{Profile: "work", Hosts: []string{"sms.example.com:443", ""}, Limit: 101}
		for _, tt := range []struct {
			name   string
			q      func(SendQuery) SendQuery
			search bool // reads from a key, not from an end
			scan   bool // a scan, whichever way
		}{
			{"the first page", func(q SendQuery) SendQuery { return q }, false, false},
			{"down from the middle", func(q SendQuery) SendQuery { q.Before = &mid; return q }, true, false},
			{"up from the middle", func(q SendQuery) SendQuery { q.After = &mid; return q }, true, false},
			{"the last page", func(q SendQuery) SendQuery { q.Oldest = true; return q }, false, false},
			{"a match near the end", func(q SendQuery) SendQuery { q.Match = fmt.Sprintf("seed-%06d", (n-1)/10); return q }, false, true},
			{"a match of every send", func(q SendQuery) SendQuery { q.Match = "seed"; return q }, false, true},
		} {
			q := tt.q(mine)
			query, args := q.list(l.sendColumns(""))
			plan := explainAny(t, l, query, args...)
			started := time.Now()
			page, err := l.ListSends(ctx, q)
			took := time.Since(started)
			if err != nil || len(page) == 0 {
				t.Fatalf("%s: %d sends (%v)", tt.name, len(page), err)
			}
			t.Logf("%s: %d sends in %v; %s", tt.name, len(page), took, plan)
			if !tt.scan && (!strings.Contains(plan, "sends_history") || strings.Contains(plan, "TEMP B-TREE") || strings.Contains(plan, "Sort")) {
				t.Errorf("%s: %s, want the history index read in its order, nothing sorted", tt.name, plan)
			}
			if tt.search && l.d.backend() == SQLite && !strings.Contains(plan, "plan_time") {
				t.Errorf("%s: %s, want a search from the key", tt.name, plan)
			}
		}
	})
}

// explainAny is the plan of query on either backend, on one line.
func explainAny(t *testing.T, l *Ledger, query string, args ...any) string {
	t.Helper()
	if l.d.backend() == SQLite {
		return explain(t, l, query, args...)
	}
	rows, err := l.db.QueryContext(context.Background(), l.q("EXPLAIN "+query), args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, strings.TrimSpace(line))
	}
	return strings.Join(plan, "; ")
}
