package ledger

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
	"github.com/smsdesk/smsdesk/model"
)

// TestLookupOnAnEmptyList: a plan's numbers are not looked up one batch
// after another in an empty opt-out list (most ledgers): one question
// answers them all, and nothing a number is allocated. A million-row dry
// run held them in a map and a slice of interfaces besides (464 MB RSS,
// against 319 MB before the ledger; issue 26's budget is 400 MB).
func TestLookupOnAnEmptyList(t *testing.T) {
	ctx := context.Background()
	l, err := Create(ctx, ledgertest.SQLite(t))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	plan := make([]string, 100_000)
	for i := range plan {
		plan[i] = fmt.Sprintf("0912%07d", i)
	}
	allocs := testing.AllocsPerRun(2, func() {
		if got, err := l.LookupOptOuts(ctx, plan); err != nil || len(got) != 0 {
			t.Fatalf("LookupOptOuts: %v %v", got, err)
		}
	})
	if allocs > 100 {
		t.Errorf("looking up %d numbers in an empty list allocated %.0f times, want a few", len(plan), allocs)
	}
}

// TestLookupAfterAnImportReadsTheIndex: on PostgreSQL, a plan's numbers
// are looked up through the list's index at once after a bulk import or
// load (the upgrade's), not after autovacuum next gathers statistics:
// without them the planner took a lookup of 500 numbers to match a third
// of the list and read all of it (0.3 s a batch at 1,000,000 numbers; a
// 10,000-pair dry run 2.8 s).
func TestLookupAfterAnImportReadsTheIndex(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		put  func(l *Ledger) error
	}{
		{"import", func(l *Ledger) error { _, err := l.ImportOptOuts(ctx, numbers(200_000), nil); return err }},
		{"load", func(l *Ledger) error {
			var list []model.OptOut
			for o := range numbers(200_000) {
				list = append(list, o)
			}
			return l.Load(ctx, func(b *Bulk) error { _, err := b.PutOptOuts(list); return err })
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Create(ctx, ledgertest.Postgres(t))
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			if err := tt.put(l); err != nil {
				t.Fatal(err)
			}
			if plan := lookupPlan(t, l); !strings.Contains(plan, "optouts_pkey") {
				t.Errorf("a lookup after the %s:\n%s\nwant it to read optouts_pkey", tt.name, plan)
			}
		})
	}
}

// lookupPlan is PostgreSQL's plan for a lookup of lookupBatch numbers.
func lookupPlan(t *testing.T, l *Ledger) string {
	t.Helper()
	args := make([]any, lookupBatch)
	for i := range args {
		args[i] = fmt.Sprintf("0913%07d", i*97)
	}
	rows, err := l.db.QueryContext(context.Background(),
		l.q("EXPLAIN SELECT "+optOutColumns+" FROM optouts WHERE mobile IN (?"+strings.Repeat(", ?", lookupBatch-1)+")"), args...)
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
		plan = append(plan, line)
	}
	return strings.Join(plan, "\n")
}
