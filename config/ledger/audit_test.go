package ledger

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
)

// seedAudit writes n audit records, one a minute from t0, in one
// transaction (many rows a statement): the trail of a ledger in use for
// months, in seconds.
func seedAudit(tb testing.TB, l *Ledger, n int) {
	tb.Helper()
	ctx := context.Background()
	const per = 200
	err := l.withTx(ctx, "seeding the audit trail", func(tx *sql.Tx) error {
		for i := 0; i < n; i += per {
			k := min(per, n-i)
			rows := strings.Repeat(", (?, ?, ?)", k)[2:]
			args := make([]any, 0, 3*k)
			for j := i; j < i+k; j++ {
				op := []string{"sara", "ali", "reza"}[j%3]
				args = append(args, nanos(t0.Add(time.Duration(j)*time.Minute)), "optout_add",
					fmt.Sprintf(`{"time":%q,"operator":{"name":%q},"action":"optout_add","mobile":"0912%07d"}`, t0.Add(time.Duration(j)*time.Minute).Format(time.RFC3339), op, j))
			}
			if _, err := tx.ExecContext(ctx, l.q("INSERT INTO audit (at, action, body) VALUES "+rows), args...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}

func TestAuditPage(t *testing.T) {
	ctx := context.Background()
	each(t, func(t *testing.T, l *Ledger, loc string) {
		seedAudit(t, l, 10)
		page, err := l.AuditPage(ctx, 0, time.Time{}, 4)
		if err != nil || len(page) != 4 || page[0].Seq <= page[3].Seq || !page[0].Time.Equal(t0.Add(9*time.Minute)) {
			t.Fatalf("newest 4: %+v %v", page, err)
		}
		next, err := l.AuditPage(ctx, page[3].Seq, time.Time{}, 4)
		if err != nil || len(next) != 4 || next[0].Seq >= page[3].Seq || !next[0].Time.Equal(t0.Add(5*time.Minute)) {
			t.Fatalf("the next 4: %+v %v", next, err)
		}
		since, err := l.AuditPage(ctx, 0, t0.Add(7*time.Minute), 100)
		if err != nil || len(since) != 3 || !since[2].Time.Equal(t0.Add(7*time.Minute)) {
			t.Fatalf("since minute 7: %+v %v", since, err)
		}
		none, err := l.AuditPage(ctx, 0, t0.Add(time.Hour), 100)
		if err != nil || len(none) != 0 {
			t.Fatalf("since an hour on: %+v %v", none, err)
		}
	})
}

// TestAuditPageReadsTheKey: the newest records are read along the trail's
// key, backwards, not sorted out of the whole table (SQLite's plan: no
// temporary B-tree for the order).
func TestAuditPageReadsTheKey(t *testing.T) {
	ctx := context.Background()
	l, err := Create(ctx, ledgertest.SQLite(t))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, tt := range []struct {
		name   string
		before int64
		since  time.Time
	}{{"the newest", 0, time.Time{}}, {"a page on", 500, time.Time{}}, {"since", 500, t0}} {
		query, args := auditPageQuery(tt.before, tt.since, 50)
		plan := explain(t, l, query, args...)
		if strings.Contains(plan, "TEMP B-TREE") || !strings.Contains(plan, "audit") {
			t.Errorf("%s: %s, want the key read backwards", tt.name, plan)
		}
		if tt.before > 0 && !strings.Contains(plan, "PRIMARY KEY") {
			t.Errorf("%s: %s, want a search of the key", tt.name, plan)
		}
	}
}

func explain(t *testing.T, l *Ledger, query string, args ...any) string {
	t.Helper()
	rows, err := l.db.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	return strings.Join(plan, "; ")
}

// BenchmarkAuditPage reads the newest 50 records, and a since that keeps
// none (the whole trail read back), at 100,000 records.
func BenchmarkAuditPage(b *testing.B) {
	ctx := context.Background()
	for _, be := range ledgertest.Backends() {
		b.Run(be.Name, func(b *testing.B) {
			l, err := Create(ctx, be.Location(b))
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			seedAudit(b, l, 100_000)
			if l.d.backend() == Postgres {
				if _, err := l.db.ExecContext(ctx, "ANALYZE audit"); err != nil {
					b.Fatal(err)
				}
			}
			for _, c := range []struct {
				name  string
				since time.Time
			}{{"newest50", time.Time{}}, {"sinceNone", t0.Add(200_000 * time.Minute)}} {
				b.Run(c.name, func(b *testing.B) {
					for b.Loop() {
						if _, err := l.AuditPage(ctx, 0, c.since, 50); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}
