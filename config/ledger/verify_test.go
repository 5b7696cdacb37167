package ledger

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// everyKind fills l with a row of every kind a ledger holds, each as
// smsdesk writes it: sends finished (with delivery after their end),
// waiting, held, open in a runner's run, cancelled and reserved; opt-outs
// for every line and one; a once-only id; an audit record.
func everyKind(t *testing.T, l *Ledger) {
	t.Helper()
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	write := func(id string, scheduled time.Time, recs ...model.JournalRecord) {
		t.Helper()
		lease, err := l.CreateSend(ctx, id, plan(id, 2, scheduled), "t", 0)
		must(err)
		for _, rec := range recs {
			must(lease.Append(ctx, rec))
		}
		must(lease.Release(ctx))
	}
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	sent := []model.JournalRecord{
		&model.JournalIntent{Time: at(1), Chunk: 0, Indexes: []int{0, 1}, Key: "k0"},
		&model.JournalOutcome{Time: at(2), Chunk: 0, Results: []model.JournalResult{{Index: 0, State: model.StateAccepted, MessageID: "m0"},
			{Index: 1, State: model.StateAccepted, MessageID: "m1"}}},
	}
	write("done", time.Time{}, append(sent, &model.JournalEnd{Time: at(3)},
		&model.JournalDelivery{Time: at(9), Updates: []model.DeliveryUpdate{{Index: 0, State: "delivered"}}})...)
	write("waiting", at(60))
	write("held", at(-30), &model.JournalResume{Time: at(-30), Indexes: []int{0, 1}, Runner: model.RunnerServe},
		&model.JournalEnd{Time: at(-29), Interrupted: true, HeldUntil: at(300)})
	write("open", at(-10), append([]model.JournalRecord{&model.JournalResume{Time: at(-10), Indexes: []int{0, 1}, Runner: model.RunnerServe}}, sent...)...)
	write("cancelled", at(60), &model.JournalCancel{Time: at(5), Cause: model.CancelCancelled, Reason: "by hand"})
	_, err := l.ReserveSend(ctx, "reserved", "t", 0)
	must(err)
	_, err = l.AddOptOuts(ctx, []model.OptOut{{Mobile: "09120000001", Added: t0}, {Mobile: "09120000002", Sender: "3000", Note: "asked", Added: t0,
		Operator: &model.Operator{Name: "sara"}}})
	must(err)
	must(l.RecordOnce(ctx, OnceSend{ID: "job-1", SendID: "done", Pairs: strings.Repeat("ab", 32), Count: 2, Source: "pairs.csv", Time: t0, Profile: "work"}))
	must(l.AppendAudit(ctx, AuditEntry{Time: t0, Action: "optout_add", Body: []byte(`{"action":"optout_add"}`)}))
}

// A ledger as smsdesk writes it verifies: every kind of send, opt-out,
// once-only id and audit record, on both backends (a verification that
// found damage in a whole ledger would stop every send).
func TestVerifyRowsOfAWholeLedger(t *testing.T) {
	ctx := context.Background()
	each(t, func(t *testing.T, l *Ledger, loc string) {
		everyKind(t, l)
		v, err := l.VerifyRows(ctx)
		if err != nil {
			t.Fatalf("VerifyRows of a whole ledger: %v", err)
		}
		if want := (Verified{Sends: 6, Records: 15, OptOuts: 2, OnceIDs: 1, Audit: 1}); v != want {
			t.Errorf("verified %+v, want %+v", v, want)
		}
		if st, err := l.Status(ctx); err != nil || st.Integrity != "ok" {
			t.Errorf("Status: %q %v", st.Integrity, err)
		}
		if l.Damaged() != nil {
			t.Error("a whole ledger was found damaged")
		}
	})
}

// What no send reads is verified: a record that does not parse in a
// finished send, a summary row that disagrees with its records, an
// opt-out, a once-only id or an audit record that is not well formed.
// The damage is marked in the ledger: another process (a new handle)
// refuses every start with it (Claim, ClaimDueFor, a new send's plan,
// CreateSend), naming who found it, and its status says so. On main a
// damaged record in a finished send stopped nothing: the next send went,
// and the integrity check said ok.
func TestVerifyFindsWhatNoSendReads(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, stmt, want string
	}{
		{"a record that does not parse", `UPDATE send_records SET body = '{"type":"outcome","ti#GARBAGE' WHERE send_id = 'done' AND seq = 3`,
			"send done: its record 3 does not parse"},
		{"a record of another type", `UPDATE send_records SET type = 'end' WHERE send_id = 'done' AND seq = 2`, "send done: its record 2 is a intent, its row says end"},
		{"a record gone", `DELETE FROM send_records WHERE send_id = 'done' AND seq = 5`, "send done: its summary row counts 5 records, it has 4"},
		{"a state not its records'", `UPDATE sends SET state = 'waiting' WHERE id = 'done'`, "send done: its summary row says waiting"},
		{"a due time not its records'", `UPDATE sends SET due_at = NULL WHERE id = 'waiting'`, "send waiting: its summary row says waiting (due none"},
		{"a time not its records'", `UPDATE sends SET touched = 1 WHERE id = 'held'`, "send held: its summary row's latest time is 1"},
		{"a profile not its plan's", `UPDATE sends SET profile = 'other' WHERE id = 'open'`, "send open: its summary row's profile is other, its records say work"},
		{"an opt-out not a number", `UPDATE optouts SET mobile = '+98 912 000 0001' WHERE mobile = '09120000001'`, `opt-out "+98 912 000 0001" is not a number`},
		{"an opt-out's time", `UPDATE optouts SET added = 'yesterday' WHERE mobile = '09120000002'`, `its time "yesterday" does not parse`},
		{"a once-only id's digest", `UPDATE once_ids SET pairs = 'nope'`, `once-only id "job-1": its pairs' digest "nope" is not one`},
		{"an audit record", `UPDATE audit SET body = '{"action":'`, "audit record 1 does not parse"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			each(t, func(t *testing.T, l *Ledger, loc string) {
				everyKind(t, l)
				if _, err := l.db.Exec(tc.stmt); err != nil {
					t.Fatal(err)
				}
				_, err := l.VerifyRows(ctx)
				if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("VerifyRows: %v, want damage saying %q", err, tc.want)
				}
				other := reopen(t, loc) // another process, which found nothing itself
				lease, err := other.ReserveSend(ctx, "new", "t", 0)
				if err != nil {
					t.Fatal(err)
				}
				starts := map[string]func() error{
					"the plan's Append": func() error { return lease.Append(ctx, plan("new", 1, time.Time{})) },
					"Claim":             func() error { _, err := other.Claim(ctx, "waiting", "t", 0); return err },
					"ClaimDueFor": func() error {
						_, err := other.ClaimDueFor(ctx, DueQuery{Now: t0.Add(time.Hour)}, "t", 0)
						return err
					},
					"CreateSend": func() error {
						_, err := other.CreateSend(ctx, "new2", plan("new2", 1, time.Time{}), "t", 0)
						return err
					},
				}
				for name, start := range starts {
					err := start()
					if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), " on "+l.host+", process ") {
						t.Errorf("%s in another process: %v, want the marked damage, who found it", name, err)
					}
				}
				st, err := reopen(t, loc).Status(ctx)
				if !errors.Is(err, ErrDamaged) || !strings.Contains(st.Integrity, tc.want) {
					t.Errorf("Status of the marked ledger: %q, %v", st.Integrity, err)
				}
			})
		})
	}
}

// The verification's time is kept in the ledger, for every runner on it:
// due when there was none, not again within its time, due once that has
// passed by the ledger's clock.
func TestVerifyKeepsItsTime(t *testing.T) {
	ctx := context.Background()
	each(t, func(t *testing.T, l *Ledger, loc string) {
		everyKind(t, l)
		if due, err := l.VerifyDue(ctx, time.Hour); err != nil || !due {
			t.Fatalf("VerifyDue of a ledger never verified: %v %v", due, err)
		}
		if _, err := l.Verify(ctx); err != nil {
			t.Fatal(err)
		}
		other := reopen(t, loc)
		if due, err := other.VerifyDue(ctx, time.Hour); err != nil || due {
			t.Errorf("VerifyDue just after another's verification: %v %v", due, err)
		}
		if _, err := l.db.Exec(l.q("UPDATE meta SET value = ? WHERE key = 'verified_at'"), time.Now().Add(-61*time.Minute).UTC().Format(time.RFC3339Nano)); err != nil {
			t.Fatal(err)
		}
		if due, err := other.VerifyDue(ctx, time.Hour); err != nil || !due {
			t.Errorf("VerifyDue an hour and a minute after: %v %v", due, err)
		}
	})
}

// A process whose mark cannot be written (the ledger refuses the write)
// still refuses every start, and says that other processes may not know.
func TestDamageThatCannotBeMarkedStillRefuses(t *testing.T) {
	ctx := context.Background()
	each(t, func(t *testing.T, l *Ledger, loc string) {
		everyKind(t, l)
		stmts := []string{`CREATE TRIGGER no_mark BEFORE INSERT ON meta BEGIN SELECT RAISE(ABORT, 'disk I/O error (test)'); END`}
		if l.Backend() == Postgres {
			stmts = []string{`CREATE FUNCTION no_mark() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'could not write (test)'; END $$`,
				`CREATE TRIGGER no_mark BEFORE INSERT ON meta FOR EACH ROW EXECUTE FUNCTION no_mark()`}
		}
		for _, s := range append(stmts, `UPDATE send_records SET body = 'garbage' WHERE send_id = 'done' AND seq = 4`) {
			if _, err := l.db.Exec(s); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := l.VerifyRows(ctx); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "could not be marked in the ledger") {
			t.Fatalf("VerifyRows: %v", err)
		}
		lease, err := l.ReserveSend(ctx, "new", "t", 0)
		if err == nil {
			err = lease.Append(ctx, plan("new", 1, time.Time{}))
		}
		if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "other smsdesk processes on it refuse only once they find it themselves") {
			t.Errorf("a start in the process that found it: %v", err)
		}
		if v, ok, err := reopen(t, loc).Meta(ctx, metaDamaged); ok || err != nil {
			t.Errorf("a mark was written: %q %v", v, err)
		}
	})
}
