package ledger

// A send's records as they are appended: each one its own transaction,
// with the send's summary row (state, when it is due, who holds it) kept
// in step, and the change announced to the ledger's watchers.

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// recordBody is rec's JSON, as a journal line without its newline.
func recordBody(rec model.JournalRecord) (string, error) {
	b, err := model.MarshalJournalRecord(rec)
	if err != nil {
		return "", err
	}
	return string(bytes.TrimSuffix(b, []byte("\n"))), nil
}

// touchedBy is the send's touched time after rec: the latest time a record
// names, a scheduled plan's time included.
func touchedBy(prev int64, rec model.JournalRecord) int64 {
	var t time.Time
	switch r := rec.(type) {
	case *model.JournalPlan:
		t = r.Time
		if r.ScheduledFor.After(t) {
			t = r.ScheduledFor
		}
	case *model.JournalIntent:
		t = r.Time
	case *model.JournalOutcome:
		t = r.Time
	case *model.JournalDelivery:
		t = r.Time
	case *model.JournalResume:
		t = r.Time
	case *model.JournalEnd:
		t = r.Time
	case *model.JournalCancel:
		t = r.Time
	}
	return max(prev, nanos(t))
}

// changesDue reports whether a record may change the send's summary
// (state, due time): the plan, a start or resume, an end, a cancel.
func changesDue(rec model.JournalRecord) bool {
	switch rec.(type) {
	case *model.JournalIntent, *model.JournalOutcome, *model.JournalDelivery:
		return false
	}
	return true
}

// summarize is a replayed send's state and due time, as model says (the
// rules a runner starts or continues a send by: JournalState.Waiting,
// Held).
func summarize(st *model.JournalState, plan *model.JournalPlan) (state State, due, held time.Time) {
	if st.Items == nil && len(plan.Items) > 0 { // a plan alone: CreateSend
		if !plan.ScheduledFor.IsZero() {
			return StateWaiting, plan.ScheduledFor, time.Time{}
		}
		return StateOpen, time.Time{}, time.Time{}
	}
	switch {
	case st.Waiting():
		return StateWaiting, st.Plan.ScheduledFor, time.Time{}
	case st.Held():
		return StateHeld, st.HeldUntil, st.HeldUntil
	case st.Cancel != nil && st.Cancel.Cause == model.CancelMissed:
		return StateMissed, time.Time{}, time.Time{}
	case st.Cancel != nil:
		return StateCancelled, time.Time{}, time.Time{}
	case st.Ended:
		return StateEnded, time.Time{}, st.HeldUntil
	case st.Runs > 0 && st.Runner != "":
		// A runner's run, open: due from its start, so that another
		// runner takes it over once its lease ends (the runner died).
		return StateOpen, st.Updated, time.Time{}
	case st.Plan.ScheduledFor.IsZero() || st.Runs > 0:
		return StateOpen, time.Time{}, time.Time{}
	}
	return StateEnded, time.Time{}, time.Time{} // scheduled, damaged: never started by a runner
}

// nullString is s, or NULL when it is "".
func nullString(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }

func nullNanos(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixNano(), Valid: true}
}

// bump moves the change counter on (Watch's SQLite poll reads it) and
// returns its new value.
func (l *Ledger) bump(ctx context.Context, tx *sql.Tx) (int64, error) {
	var v int64
	err := tx.QueryRowContext(ctx, "UPDATE counters SET value = value + 1 WHERE name = 'sends' RETURNING value").Scan(&v)
	return v, err
}

// appendRecord writes rec as the next record of lease s's send, in one
// transaction committed before it returns, under the lease (ErrLeaseLost
// when the send's lease is no longer s's). A record that may change what
// is due replays the send (in the transaction) to keep its summary row
// true; an outcome that accepted messages writes their deliveries rows
// (recordDeliveries), a run's own poll moves them (recordPolled).
func (l *Ledger) appendRecord(ctx context.Context, s *Lease, rec model.JournalRecord) error {
	id := s.id
	_, isPlan := rec.(*model.JournalPlan)
	body, err := recordBody(rec)
	if err != nil {
		return err
	}
	return l.withTx(ctx, "recording send "+id, func(tx *sql.Tx) error {
		row, err := l.leasedRow(ctx, tx, s)
		if err != nil {
			return err
		}
		if isPlan || row.records == 0 {
			return l.startRecord(ctx, tx, s, row, rec)
		}
		seq := row.records + 1
		if _, err := tx.ExecContext(ctx, l.q("INSERT INTO send_records (send_id, seq, type, body) VALUES (?, ?, ?, ?)"),
			id, seq, rec.RecordType(), body); err != nil {
			return err
		}
		if err := l.recordDeliveryRows(ctx, tx, s, row, rec); err != nil {
			return err
		}
		return l.summarizeAfter(ctx, tx, id, seq, touchedBy(row.touched, rec), s.ttl, rec)
	})
}

// leasedSendRow is what appendRecord reads of its send's row.
type leasedSendRow struct {
	records         int
	touched         int64
	account, sender string
	mark            sql.NullString // damage another process marked
}

// leasedRow reads lease s's send's row in tx, locking it, when the lease
// is still s's: ErrNoSuchSend or ErrLeaseLost otherwise.
func (l *Ledger) leasedRow(ctx context.Context, tx *sql.Tx, s *Lease) (leasedSendRow, error) {
	var r leasedSendRow
	var held sql.NullString
	err := tx.QueryRowContext(ctx, l.q("SELECT records, touched, lease_token, account, sender, "+markSQL+" FROM sends WHERE id = ?"+l.d.lockRows(false)), s.id).
		Scan(&r.records, &r.touched, &held, &r.account, &r.sender, &r.mark)
	if errors.Is(err, sql.ErrNoRows) {
		return r, fmt.Errorf("send %s: %w", s.id, ErrNoSuchSend)
	}
	if err != nil {
		return r, err
	}
	if !held.Valid || held.String != s.token {
		return r, fmt.Errorf("send %s: %w (another run may have taken it over); this record was not written", s.id, ErrLeaseLost)
	}
	return r, nil
}

// startRecord writes a record that is a plan or would come first: a plan
// starts lease s's send and may only be its first record; nothing else may
// be.
func (l *Ledger) startRecord(ctx context.Context, tx *sql.Tx, s *Lease, row leasedSendRow, rec model.JournalRecord) error {
	plan, isPlan := rec.(*model.JournalPlan)
	switch {
	case isPlan && row.records == 0:
		// A new send starts here: a ledger found damaged since its
		// id was reserved (here, or by another process: its mark)
		// refuses it.
		if err := l.Damaged(); err != nil {
			return err
		}
		if err := l.markedDamage(row.mark); err != nil {
			return err
		}
		if err := l.writePlan(ctx, tx, s.id, plan, s.ttl); err != nil {
			return err
		}
		s.keepNumbers(plan)
		return nil
	case isPlan:
		return fmt.Errorf("send %s has its plan already: a plan is its first record only", s.id)
	default:
		return fmt.Errorf("send %s: its first record must be the plan, not %s", s.id, rec.RecordType())
	}
}

// summarizeAfter keeps send id's summary row true after its record seq,
// rec: its count, touched time and lease, and, for a record that may
// change what is due, its state and due time from a replay.
func (l *Ledger) summarizeAfter(ctx context.Context, tx *sql.Tx, id string, seq int, touched int64, ttl time.Duration, rec model.JournalRecord) error {
	ttlNanos := ttl.Nanoseconds()
	if !changesDue(rec) {
		_, err := tx.ExecContext(ctx, l.q("UPDATE sends SET records = ?, touched = ?, lease_until = "+l.until()+" WHERE id = ?"),
			seq, touched, ttlNanos, id)
		return err
	}
	st, err := l.replay(ctx, tx, id)
	if err != nil {
		return err
	}
	state, due, heldUntil := summarize(st, &st.Plan)
	v, err := l.bump(ctx, tx)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, l.q(`UPDATE sends SET records = ?, touched = ?, lease_until = `+l.until()+`, state = ?, due_at = ?,
		held_until = ?, updated_seq = ? WHERE id = ?`),
		seq, touched, ttlNanos, string(state), nullNanos(due), nanos(heldUntil), v, id); err != nil {
		return err
	}
	return l.d.notify(ctx, tx)
}
