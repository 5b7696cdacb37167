package ledger

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
	"github.com/smsdesk/smsdesk/model"
)

// v1Ledger is a version-1 ledger written by smsdesk's own commands before
// schema version 2 (testdata/v1: README.md says how), put at a new
// location of the backend: the SQLite file copied, the PostgreSQL dump
// loaded into a new database. It returns the location and a connection to
// it that is not a Ledger (what the old version wrote, read as it is).
func v1Ledger(t *testing.T, b ledgertest.Backend) (string, *sql.DB) {
	t.Helper()
	loc := b.Location(t)
	if b.Name == "sqlite" {
		data, err := os.ReadFile(filepath.Join("testdata", "v1", "ledger.db"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(loc), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(loc, data, 0o600); err != nil {
			t.Fatal(err)
		}
		db, err := sql.Open("sqlite", loc)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return loc, db
	}
	dump, err := os.ReadFile(filepath.Join("testdata", "v1", "ledger.sql"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("pgx", loc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	// The dump sets its session's search_path to nothing: it runs on a
	// connection of its own, closed after.
	conn, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(t.Context(), string(dump)); err != nil {
		t.Fatalf("loading testdata/v1/ledger.sql: %v", err)
	}
	_ = conn.Raw(func(any) error { return driver.ErrBadConn }) // dropped, not pooled
	conn.Close()
	return loc, db
}

// v1Rows is what a version-1 ledger holds, read with plain SQL.
type v1Rows struct {
	id      string
	records map[string][]string // send id: its records' bodies, in order
	sends   []string            // ids, newest plan first
	optouts [][5]string         // mobile, sender, note, added, operator
	once    [][2]string         // id, send id
	audit   [][2]string         // action, body
}

func readV1(t *testing.T, db *sql.DB, pg bool) v1Rows {
	t.Helper()
	q := func(s string) string {
		if pg {
			return rebindDollar(s)
		}
		return s
	}
	var r v1Rows
	if err := db.QueryRow("SELECT value FROM meta WHERE key = 'ledger_id'").Scan(&r.id); err != nil {
		t.Fatal(err)
	}
	r.records = map[string][]string{}
	scan(t, db, q("SELECT send_id, body FROM send_records ORDER BY send_id, seq"), func(s []string) { r.records[s[0]] = append(r.records[s[0]], s[1]) }, 2)
	scan(t, db, "SELECT id FROM sends ORDER BY plan_time DESC, id DESC", func(s []string) { r.sends = append(r.sends, s[0]) }, 1)
	scan(t, db, "SELECT mobile, sender, note, added, operator FROM optouts ORDER BY mobile, sender", func(s []string) {
		r.optouts = append(r.optouts, [5]string(s))
	}, 5)
	scan(t, db, "SELECT id, send_id FROM once_ids ORDER BY id", func(s []string) { r.once = append(r.once, [2]string(s)) }, 2)
	scan(t, db, "SELECT action, body FROM audit ORDER BY seq", func(s []string) { r.audit = append(r.audit, [2]string(s)) }, 2)
	return r
}

func scan(t *testing.T, db *sql.DB, query string, row func([]string), n int) {
	t.Helper()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	for rows.Next() {
		s := make([]string, n)
		ptrs := make([]any, n)
		for i := range s {
			ptrs[i] = &s[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row(s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestSchemaFirstMigrationFromVersion1 opens a version-1 ledger made by
// the smsdesk before version 2 (its own binary, its own commands: sends
// that went whole, with unknown outcomes, with an opted-out recipient,
// scheduled and cancelled; opt-outs added, removed and imported; a
// once-only id; audit records) with today's code: it is migrated to 2 in
// place, and everything it held reads as it did, with what version 2 adds
// filled in (imports' opt-outs marked import, the others operator; a
// deliveries row for every accepted message).
func TestSchemaFirstMigrationFromVersion1(t *testing.T) {
	ctx := context.Background()
	for _, b := range ledgertest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			loc, db := v1Ledger(t, b)
			before := readV1(t, db, b.Name == "postgres")
			if len(before.sends) != 6 || len(before.optouts) != 5 || len(before.once) != 1 || len(before.audit) != 7 {
				t.Fatalf("the fixture holds %d sends, %d opt-outs, %d once ids, %d audit records: not the one README.md describes",
					len(before.sends), len(before.optouts), len(before.once), len(before.audit))
			}
			l := reopen(t, loc)
			if l.SchemaVersion() != SchemaVersion || l.ID() != before.id {
				t.Fatalf("opened: version %d id %q, want %d and %q", l.SchemaVersion(), l.ID(), SchemaVersion, before.id)
			}
			var v string
			if err := db.QueryRow("SELECT value FROM meta WHERE key = 'schema_version'").Scan(&v); err != nil || v != strconv.Itoa(SchemaVersion) {
				t.Fatalf("schema_version on disk %q %v, want %d", v, err, SchemaVersion)
			}
			checkSendsReadTheSame(t, l, before)
			checkOptOutsReadTheSame(t, l, before)
			for _, o := range before.once {
				got, ok, err := l.FindOnce(ctx, o[0])
				if err != nil || !ok || got.SendID != o[1] {
					t.Errorf("once id %s: %+v %v %v, want send %s", o[0], got, ok, err, o[1])
				}
			}
			trail, err := l.ListAudit(ctx, 0, 0)
			if err != nil || len(trail) != len(before.audit) {
				t.Fatalf("audit: %d records %v, want %d", len(trail), err, len(before.audit))
			}
			for i, e := range trail {
				if e.Action != before.audit[i][0] || string(e.Body) != before.audit[i][1] {
					t.Errorf("audit record %d: %s %s, want %v", i+1, e.Action, e.Body, before.audit[i])
				}
			}
			checkDeliveriesFilled(t, l, before)
			if again := reopen(t, loc); again.SchemaVersion() != SchemaVersion || again.ID() != before.id {
				t.Fatalf("opened again: version %d id %q", again.SchemaVersion(), again.ID())
			}
			if st, err := l.Status(ctx); err != nil || st.Integrity != "ok" || st.Sends != 6 || st.OptOuts != 5 {
				t.Fatalf("status after the migration: %+v %v", st, err)
			}
		})
	}
}

// checkSendsReadTheSame: every send lists, and replays, as its records say.
func checkSendsReadTheSame(t *testing.T, l *Ledger, before v1Rows) {
	t.Helper()
	ctx := context.Background()
	list, err := l.ListSends(ctx, SendQuery{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	states := map[State]int{}
	for _, s := range list {
		ids = append(ids, s.ID)
		states[s.State]++
		if s.ResendOf != "" {
			t.Errorf("send %s: resend_of %q, want none", s.ID, s.ResendOf)
		}
	}
	if !slices.Equal(ids, before.sends) {
		t.Fatalf("history lists %v, want %v", ids, before.sends)
	}
	if want := map[State]int{StateEnded: 4, StateWaiting: 1, StateCancelled: 1}; !reflect.DeepEqual(states, want) {
		t.Errorf("states %v, want %v", states, want)
	}
	for id, bodies := range before.records {
		want, err := model.ReplayJournal(strings.NewReader(strings.Join(bodies, "\n") + "\n"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := l.ReadSend(ctx, id)
		if err != nil {
			t.Fatalf("ReadSend(%s): %v", id, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("send %s replays as\n%+v\nwant\n%+v", id, got, want)
		}
	}
}

// checkOptOutsReadTheSame: the list as it was, each entry with the source
// the audit trail tells (the import's three), else operator.
func checkOptOutsReadTheSame(t *testing.T, l *Ledger, before v1Rows) {
	t.Helper()
	list, err := l.ListOptOuts(context.Background(), 0, 0)
	if err != nil || len(list) != len(before.optouts) {
		t.Fatalf("opt-outs: %d %v, want %d", len(list), err, len(before.optouts))
	}
	imported := 0
	for i, o := range list {
		raw := before.optouts[i]
		if o.Mobile != raw[0] || o.Sender != raw[1] || o.Note != raw[2] || o.Added.Format(time.RFC3339Nano) != raw[3] || o.Operator != nil || o.MessageID != "" {
			t.Errorf("opt-out %d reads %+v, want %v", i, o, raw)
		}
		want := model.OptOutOperator
		if raw[2] == "the old list" {
			want = model.OptOutImport
			imported++
		}
		if o.Source != want {
			t.Errorf("opt-out %s (note %q): source %q, want %q", o.Mobile, o.Note, o.Source, want)
		}
	}
	if imported != 3 {
		t.Errorf("%d entries from the import, want 3", imported)
	}
}

// checkDeliveriesFilled: a pending row for each of the 8 messages accepted.
func checkDeliveriesFilled(t *testing.T, l *Ledger, before v1Rows) {
	t.Helper()
	ctx := context.Background()
	n := 0
	for id := range before.records {
		st, err := l.ReadSend(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := l.SendDeliveries(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		var accepted []Delivery
		for _, it := range st.Items {
			if it.State == model.StateAccepted {
				accepted = append(accepted, Delivery{SendID: id, Index: it.Index, MessageID: it.MessageID, Account: st.Plan.Account,
					Sender: st.Plan.Sender, Recipient: it.Recipient, State: model.DeliveryPending, AcceptedAt: it.At, Updated: it.At,
					NextPoll: it.At.Add(DefaultDeliveryPollAfter)})
			}
		}
		if !reflect.DeepEqual(rows, accepted) {
			t.Errorf("send %s's deliveries:\n%+v\nwant\n%+v", id, rows, accepted)
		}
		n += len(rows)
	}
	if n != 8 {
		t.Errorf("%d deliveries rows, want 8 (3 + 2 + 1 + 2 accepted)", n)
	}
}

// TestSchemaMigrationFillsPolledDeliveries: a version-1 send whose
// delivery was polled (a delivery record) gets the last state polled, at
// the poll's time; a send whose records do not replay gets no rows, and
// the migration still goes (the send is found damaged when read, as
// before).
func TestSchemaMigrationFillsPolledDeliveries(t *testing.T) {
	ctx := context.Background()
	for _, b := range ledgertest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			loc, db := v1Ledger(t, b)
			before := readV1(t, db, b.Name == "postgres")
			q := func(s string) string {
				if b.Name == "postgres" {
					return rebindDollar(s)
				}
				return s
			}
			var whole, unknowns string
			for id, bodies := range before.records {
				switch {
				case len(bodies) == 4 && strings.Contains(bodies[0], `"Hi Sara"`):
					whole = id
				case len(bodies) == 10:
					unknowns = id
				}
			}
			polledAt := time.Date(2026, 11, 29, 2, 0, 0, 0, time.UTC)
			st, err := model.ReplayJournal(strings.NewReader(strings.Join(before.records[whole], "\n") + "\n"))
			if err != nil {
				t.Fatal(err)
			}
			rec := &model.JournalDelivery{Time: polledAt, Updates: []model.DeliveryUpdate{
				{Index: 0, MessageID: st.Items[0].MessageID, State: "sent"},
				{Index: 1, MessageID: st.Items[1].MessageID, State: "failed"},
			}}
			later := &model.JournalDelivery{Time: polledAt.Add(time.Minute), Updates: []model.DeliveryUpdate{
				{Index: 0, MessageID: st.Items[0].MessageID, State: "delivered"},
			}}
			for i, r := range []model.JournalRecord{rec, later} {
				body, err := recordBody(r)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := db.Exec(q("INSERT INTO send_records (send_id, seq, type, body) VALUES (?, ?, 'delivery', ?)"), whole, 5+i, body); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := db.Exec(q("UPDATE send_records SET body = '{not json' WHERE send_id = ? AND seq = 3"), unknowns); err != nil {
				t.Fatal(err)
			}
			l := reopen(t, loc)
			rows, err := l.SendDeliveries(ctx, whole)
			if err != nil || len(rows) != 3 {
				t.Fatalf("deliveries of %s: %+v %v", whole, rows, err)
			}
			got := [][3]any{}
			for _, r := range rows {
				got = append(got, [3]any{r.State, r.At(r.State), r.NextPoll})
			}
			acc := rows[2].AcceptedAt
			want := [][3]any{
				{model.DeliveryDelivered, polledAt.Add(time.Minute), time.Time{}},
				{model.DeliveryFailed, polledAt, time.Time{}},
				{model.DeliveryPending, acc, acc.Add(DefaultDeliveryPollAfter)},
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("polled deliveries: %v, want %v", got, want)
			}
			if rows, err := l.SendDeliveries(ctx, unknowns); err != nil || len(rows) != 0 {
				t.Errorf("the damaged send's deliveries: %+v %v, want none", rows, err)
			}
			if _, err := l.ReadSend(ctx, unknowns); !errors.Is(err, ErrDamaged) {
				t.Errorf("ReadSend of the damaged send: %v, want ErrDamaged", err)
			}
		})
	}
}

// TestSchemaFixtureIsVersion1 guards the fixture itself: a version-1
// ledger, which smsdesk of version 1 wrote (its schema as version 1's
// statements make it).
func TestSchemaFixtureIsVersion1(t *testing.T) {
	for _, b := range ledgertest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			_, db := v1Ledger(t, b)
			var v string
			if err := db.QueryRow("SELECT value FROM meta WHERE key = 'schema_version'").Scan(&v); err != nil || v != "1" {
				t.Fatalf("the fixture's schema_version %q %v, want 1", v, err)
			}
			for _, table := range []string{"deliveries", "events", "inbox", "lines"} {
				var n int
				query := "SELECT count(*) FROM sqlite_master WHERE name = ?"
				if b.Name == "postgres" {
					query = "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = $1"
				}
				if err := db.QueryRow(query, table).Scan(&n); err != nil || n != 0 {
					t.Errorf("the fixture has table %s (%d, %v): it is not version 1", table, n, err)
				}
			}
			data, _ := os.ReadFile(filepath.Join("testdata", "v1", "ledger.db"))
			if !bytes.HasPrefix(data, sqliteHeader) {
				t.Errorf("testdata/v1/ledger.db is not a SQLite file")
			}
		})
	}
}

// TestResendOfKept: a send's resend_of (version 2's column) is kept from
// its plan, by CreateSend and by a reserved send's plan alike.
func TestResendOfKept(t *testing.T) {
	ctx := context.Background()
	each(t, func(t *testing.T, l *Ledger, loc string) {
		p := plan("s1", 2, time.Time{})
		p.ResendOf = "s0"
		if _, err := l.CreateSend(ctx, "s1", p, "test", 0); err != nil {
			t.Fatal(err)
		}
		lease, err := l.ReserveSend(ctx, "s2", "test", 0)
		if err != nil {
			t.Fatal(err)
		}
		p2 := plan("s2", 1, time.Time{})
		p2.ResendOf = "s1"
		if err := lease.Append(ctx, p2); err != nil {
			t.Fatal(err)
		}
		if _, err := l.CreateSend(ctx, "s3", plan("s3", 1, time.Time{}), "test", 0); err != nil {
			t.Fatal(err)
		}
		for id, want := range map[string]string{"s1": "s0", "s2": "s1", "s3": ""} {
			s, err := l.GetSend(ctx, id)
			if err != nil || s.ResendOf != want {
				t.Errorf("send %s: resend_of %q %v, want %q", id, s.ResendOf, err, want)
			}
		}
	})
}
