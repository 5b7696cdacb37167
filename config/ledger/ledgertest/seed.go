package ledgertest

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// SeedSends writes n past sends straight into the ledger at location (made
// already), for benchmarks of what must not grow with the past: each a
// one-pair send as send-pair writes it (plan, intent, outcome, end),
// accepted and ended, with plan's profile, sender, service and account.
// The newest is planned at newest, each older one step before the one
// after it; every recipient and text differs. It takes seconds for
// 100,000 sends (many rows a statement, one transaction) where the
// ledger's own API would take minutes on PostgreSQL, whose statistics it
// then gathers as autovacuum would.
func SeedSends(tb testing.TB, location string, n int, plan model.JournalPlan, newest time.Time, step time.Duration) {
	tb.Helper()
	db, dollar, err := openSeed(location)
	if err != nil {
		tb.Fatal(err)
	}
	defer func() { _ = db.Close() }() // a connection pool used in this function only
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }() // after Commit it does nothing

	sends := &bulk{tx: tx, dollar: dollar, head: `INSERT INTO sends (id, plan_time, state, due_at, scheduled_for, held_until, touched,
		profile, account, host, sender, operator, source, items, records, updated_seq) VALUES `, width: 16}
	records := &bulk{tx: tx, dollar: dollar, head: "INSERT INTO send_records (send_id, seq, type, body) VALUES ", width: 4, after: sends}
	host := model.ServiceHost(plan.BaseURL)
	for i := range n {
		if err := seedSend(ctx, sends, records, plan, host, i, newest.Add(-time.Duration(i)*step).UTC()); err != nil {
			tb.Fatal(err)
		}
	}
	for _, b := range []*bulk{sends, records} {
		if err := b.flush(ctx); err != nil {
			tb.Fatalf("seeding: %v", err)
		}
	}
	if err := tx.Commit(); err != nil {
		tb.Fatalf("seeding: %v", err)
	}
	if dollar {
		// What autovacuum does after a bulk load, a minute or so later:
		// without statistics the planner guesses a third of the rows
		// match a range and scans the table.
		if _, err := db.ExecContext(ctx, "ANALYZE sends, send_records"); err != nil {
			tb.Fatalf("seeding: %v", err)
		}
	}
}

// openSeed opens the ledger at location with the driver its URL names:
// PostgreSQL (dollar placeholders) for a postgres URL, SQLite otherwise.
func openSeed(location string) (db *sql.DB, dollar bool, err error) {
	driver := "sqlite"
	if u, err := url.Parse(location); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		driver, dollar = "pgx", true
	}
	db, err = sql.Open(driver, location)
	return db, dollar, err
}

// seedSend adds send i, planned at at, to sends and its four records to
// records: one pair from plan, accepted and ended.
func seedSend(ctx context.Context, sends, records *bulk, plan model.JournalPlan, host string, i int, at time.Time) error {
	p := plan
	p.ID = fmt.Sprintf("seed-%07d", i)
	p.Time = at
	p.ScheduledFor = time.Time{}
	p.Items = []model.JournalItem{{Index: 0, Recipient: fmt.Sprintf("0935%07d", i%10_000_000), Message: fmt.Sprintf("seeded send %d", i), Parts: 1, Line: 1}}
	end := at.Add(10 * time.Millisecond)
	recs := []model.JournalRecord{
		&p,
		&model.JournalIntent{Time: at.Add(2 * time.Millisecond), Chunk: 0, Indexes: []int{0}, Key: "smsdesk-" + p.ID + "-0"},
		&model.JournalOutcome{Time: at.Add(6 * time.Millisecond), Chunk: 0, BatchID: "batch_" + p.ID,
			Results: []model.JournalResult{{Index: 0, State: model.StateAccepted, MessageID: "msg_" + p.ID}}},
		&model.JournalEnd{Time: end},
	}
	if err := sends.add(ctx, p.ID, at.UnixNano(), "ended", nil, 0, 0, end.UnixNano(),
		p.Profile, p.Account, host, p.Sender, "", p.Source, 1, len(recs), 0); err != nil {
		return fmt.Errorf("seeding sends: %w", err)
	}
	for seq, rec := range recs {
		b, err := model.MarshalJournalRecord(rec)
		if err != nil {
			return err
		}
		if err := records.add(ctx, p.ID, seq+1, rec.RecordType(), string(bytes.TrimSuffix(b, []byte("\n")))); err != nil {
			return fmt.Errorf("seeding send records: %w", err)
		}
	}
	return nil
}

// bulk inserts rows of width values, many a statement.
type bulk struct {
	tx     *sql.Tx
	dollar bool // $n placeholders (PostgreSQL), else ?
	head   string
	width  int
	args   []any
	after  *bulk // whose rows must be in first (the sends a record names)
}

// bulkRows is how many rows one statement inserts: 16 × 300 parameters
// is under SQLite's 32,766 and PostgreSQL's 65,535.
const bulkRows = 300

func (b *bulk) add(ctx context.Context, row ...any) error {
	b.args = append(b.args, row...)
	if len(b.args) >= bulkRows*b.width {
		return b.flush(ctx)
	}
	return nil
}

func (b *bulk) flush(ctx context.Context) error {
	if b.after != nil {
		if err := b.after.flush(ctx); err != nil {
			return err
		}
	}
	rows := len(b.args) / b.width
	if rows == 0 {
		return nil
	}
	var q strings.Builder
	q.WriteString(b.head)
	n := 0
	for r := range rows {
		if r > 0 {
			q.WriteString(", ")
		}
		q.WriteByte('(')
		for c := range b.width {
			if c > 0 {
				q.WriteString(", ")
			}
			n++
			if b.dollar {
				fmt.Fprintf(&q, "$%d", n)
			} else {
				q.WriteByte('?')
			}
		}
		q.WriteByte(')')
	}
	_, err := b.tx.ExecContext(ctx, q.String(), b.args...)
	b.args = b.args[:0]
	return err
}
