package ledger

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// A bulk load writes many rows in one transaction: the upgrade's import of
// a state directory the file store wrote (config/legacy), where every send,
// opt-out, once-only id and audit record goes in together or none does.
// Statements insert many rows each; nothing here makes a network request.

// Bulk is a bulk load's transaction, valid inside Load's fn only.
type Bulk struct {
	l   *Ledger
	ctx context.Context
	tx  *sql.Tx
	seq int64 // the change counter, moved on once for the load
}

// Load runs fn in one transaction and commits what it put when fn returns
// nil; an error from fn (or from the commit) leaves the ledger as it was.
// Runners watching are told of the sends it put. A load that meets another
// writer is tried again whole (see Waits on the ledger): fn may run more
// than once, and counts what it puts afresh each time.
func (l *Ledger) Load(ctx context.Context, fn func(*Bulk) error) error {
	err := l.withTx(ctx, "loading into the ledger", func(tx *sql.Tx) error {
		seq, err := l.bump(ctx, tx)
		if err != nil {
			return err
		}
		if err := fn(&Bulk{l: l, ctx: ctx, tx: tx, seq: seq}); err != nil {
			return err
		}
		return l.d.notify(ctx, tx)
	})
	if err == nil {
		l.gatherStats(ctx, "sends, send_records, optouts, once_ids")
	}
	return err
}

// gatherStats has PostgreSQL's planner count what a bulk load put in the
// tables at once: until autovacuum does, a minute or more later, it
// guesses, and took each lookup of 500 opt-outs to match a third of the
// list and read all of it (TestLookupAfterAnImportReadsTheIndex). SQLite's
// planner reads no statistics smsdesk gathers. Best effort: the load is
// in, and a failure here costs only that time.
func (l *Ledger) gatherStats(ctx context.Context, tables string) {
	if l.d.backend() == Postgres {
		_, _ = l.db.ExecContext(ctx, "ANALYZE "+tables)
	}
}

// bulkParams is how many parameters one statement of a load binds: far
// below SQLite's 32766 and PostgreSQL's 65535.
const bulkParams = 5000

// insert runs head (INSERT INTO t (cols)) with rows of width values each,
// made by row(i) for i < n, many rows a statement, and suffix after the
// VALUES (ON CONFLICT …); it returns the rows inserted.
func (b *Bulk) insert(head, suffix string, width, n int, row func(i int) []any) (int64, error) {
	per := max(1, bulkParams/width)
	tuple := marks(width)
	var added int64
	args := make([]any, 0, min(n, per)*width)
	for start := 0; start < n; start += per {
		m := min(per, n-start)
		args = args[:0]
		for i := start; i < start+m; i++ {
			args = append(args, row(i)...)
		}
		r, err := b.tx.ExecContext(b.ctx, b.l.q(head+" VALUES "+tuple+strings.Repeat(", "+tuple, m-1)+suffix), args...)
		if err != nil {
			return added, err
		}
		k, err := r.RowsAffected()
		if err != nil {
			return added, err
		}
		added += k
	}
	return added, nil
}

// PutSend records a send whole from its records (the plan first), keeping
// its id, with its summary row (what history and runners read) and its
// repeat-guard digest as replay makes them; no lease holds it. A send with
// the id is ErrSendExists; records that do not replay cleanly are refused.
func (b *Bulk) PutSend(records []model.JournalRecord) error {
	if len(records) == 0 {
		return errors.New("a send with no records")
	}
	plan, ok := records[0].(*model.JournalPlan)
	if !ok {
		return fmt.Errorf("a send whose first record is a %s, not its plan", records[0].RecordType())
	}
	if err := CheckID(plan.ID); err != nil {
		return err
	}
	bodies := make([]string, len(records))
	var buf bytes.Buffer
	var touched int64
	for i, rec := range records {
		body, err := recordBody(rec)
		if err != nil {
			return fmt.Errorf("send %s: %w", plan.ID, err)
		}
		bodies[i] = body
		buf.WriteString(body)
		buf.WriteByte('\n')
		touched = touchedBy(touched, rec)
	}
	st, err := model.ReplayJournal(&buf)
	if err != nil {
		return fmt.Errorf("send %s: %w", plan.ID, err)
	}
	if st.Damaged > 0 || st.TruncatedTail || st.Plan.ID != plan.ID {
		return fmt.Errorf("send %s: its records do not replay cleanly (lines %v)", plan.ID, st.DamagedLines)
	}
	state, due, held := summarize(st, &st.Plan)
	operator := ""
	if plan.Operator != nil {
		operator = plan.Operator.Name
	}
	_, err = b.tx.ExecContext(b.ctx, b.l.q(`INSERT INTO sends (id, plan_time, state, due_at, scheduled_for, held_until, touched,
		profile, account, host, sender, operator, source, items, records, updated_seq, resend_of)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		plan.ID, nanos(plan.Time), string(state), nullNanos(due), nanos(plan.ScheduledFor), nanos(held), touched,
		plan.Profile, plan.Account, model.ServiceHost(plan.BaseURL), plan.Sender, operator, plan.Source, len(plan.Items),
		len(records), b.seq, nullString(plan.ResendOf))
	if b.l.d.isUnique(err) {
		return fmt.Errorf("send %s: %w", plan.ID, ErrSendExists)
	}
	if err != nil {
		return err
	}
	if _, err := b.insert("INSERT INTO send_records (send_id, seq, type, body)", "", 4, len(records), func(i int) []any {
		return []any{plan.ID, i + 1, records[i].RecordType(), bodies[i]}
	}); err != nil {
		return err
	}
	return b.putDerived(plan, st, records)
}

// putDerived writes what a send's records make for others to read: the
// repeat guard's digest of its pairs, and the deliveries rows of its
// accepted messages.
func (b *Bulk) putDerived(plan *model.JournalPlan, st *model.JournalState, records []model.JournalRecord) error {
	_, err := b.tx.ExecContext(b.ctx, b.l.q("INSERT INTO send_pairs (send_id, records, digest) VALUES (?, ?, ?)"),
		plan.ID, len(records), encodePairs(model.PairsOf(plan.ID, st, false)))
	if err != nil {
		return err
	}
	rows := acceptedRows(plan.ID, st, records, b.l.deliveryPollAfter())
	for i := range rows {
		rows[i].account, rows[i].sender = plan.Account, plan.Sender
	}
	return b.l.insertDeliveries(b.ctx, b.tx, rows)
}

// PutOptOuts adds entries (their Mobile an model.OptOutKey) as they are,
// their time and note kept; an entry the list holds for the same number
// and line is left as the list holds it. It returns how many were added.
func (b *Bulk) PutOptOuts(list []model.OptOut) (int, error) {
	n, err := b.insert("INSERT INTO optouts ("+importColumns+")", " ON CONFLICT (mobile, sender) DO NOTHING", 5, len(list),
		func(i int) []any { return optOutArgs(list[i]) })
	return int(n), err
}

// PutOnce records once-only ids used; an id the ledger holds already is
// left as it is (either use refuses it again). It returns how many were added.
func (b *Bulk) PutOnce(list []OnceSend) (int, error) {
	n, err := b.insert("INSERT INTO once_ids ("+onceColumns+")", " ON CONFLICT (id) DO NOTHING", 8, len(list), func(i int) []any {
		o := list[i]
		return []any{o.ID, o.SendID, o.Pairs, o.Count, o.Source, o.Time.Format(time.RFC3339Nano), o.Profile, o.Operator}
	})
	return int(n), err
}

// PutAudit appends audit records, in their order, after the trail's.
func (b *Bulk) PutAudit(list []AuditEntry) error {
	_, err := b.insert("INSERT INTO audit (at, action, body)", "", 3, len(list), func(i int) []any {
		return []any{nanos(list[i].Time), list[i].Action, string(list[i].Body)}
	})
	return err
}

// ReadSend replays send id's records as the load's transaction sees them.
func (b *Bulk) ReadSend(id string) (*model.JournalState, error) {
	return b.l.replay(b.ctx, b.tx, id)
}

// Counts are how many rows a ledger holds, by what they are.
type Counts struct {
	Sends, Records, OptOuts, OnceIDs, Audit int
}

// Counts counts the ledger's rows as the load's transaction sees them.
func (b *Bulk) Counts() (Counts, error) {
	var c Counts
	for _, t := range []struct {
		table string
		n     *int
	}{{"sends", &c.Sends}, {"send_records", &c.Records}, {"optouts", &c.OptOuts}, {"once_ids", &c.OnceIDs}, {"audit", &c.Audit}} {
		if err := b.tx.QueryRowContext(b.ctx, "SELECT count(*) FROM "+t.table).Scan(t.n); err != nil {
			return Counts{}, err
		}
	}
	return c, nil
}

// SetMeta sets a meta value in the load's transaction (the import's mark).
func (b *Bulk) SetMeta(key, value string) error {
	if key == "schema_version" || key == "ledger_id" || key == "created" {
		return fmt.Errorf("meta %s is the ledger's own", key)
	}
	_, err := b.tx.ExecContext(b.ctx, b.l.q("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value"), key, value)
	return err
}

// Meta reads a meta value; ok is false when the ledger has none.
func (l *Ledger) Meta(ctx context.Context, key string) (value string, ok bool, err error) {
	err = l.db.QueryRowContext(ctx, l.q("SELECT value FROM meta WHERE key = ?"), key).Scan(&value)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return value, err == nil, l.fail("reading the ledger's meta "+key, err)
}

// Discard closes and removes a ledger that Create made and that holds no
// send, opt-out, once-only id or audit record (a first load that failed):
// the SQLite file goes, and a PostgreSQL database keeps no ledger tables.
// A ledger that holds anything is refused.
func (l *Ledger) Discard(ctx context.Context) error {
	var c Counts
	err := l.Load(ctx, func(b *Bulk) error {
		var err error
		c, err = b.Counts()
		if err != nil || c != (Counts{}) {
			return err
		}
		if l.d.backend() != Postgres {
			return nil
		}
		for _, t := range []string{"deliveries", "send_records", "send_pairs", "sends", "events", "inbox", "lines", "optouts", "once_ids", "audit", "counters", "meta"} {
			if _, err := b.tx.ExecContext(ctx, "DROP TABLE "+t); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if c != (Counts{}) {
		return fmt.Errorf("the ledger %s holds %d sends and %d opt-outs: it is not discarded", l.where, c.Sends, c.OptOuts)
	}
	if err := l.Close(); err != nil {
		return err
	}
	if d, ok := l.d.(*sqliteDialect); ok {
		for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
			if err := os.Remove(d.path + suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("removing the ledger: %w", err)
			}
		}
	}
	return nil
}
