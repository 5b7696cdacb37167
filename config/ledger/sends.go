package ledger

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// A send is one row of sends (its summary, for history pages and runners)
// and its records in send_records: the plan first, then every record its
// runs wrote (model.JournalRecord, one row each, as the journal files held
// one line each). Read replays the records with model.ReplayJournal.

// State is where a send stands as its summary row says.
type State string

// Send states.
const (
	StateWaiting   State = "waiting"   // scheduled, not started: due at its time
	StateHeld      State = "held"      // stopped at quiet hours with items left: due at their end
	StateOpen      State = "open"      // a run started and has not ended (running, or its process died)
	StateEnded     State = "ended"     // its latest run ended
	StateCancelled State = "cancelled" // a scheduled send cancelled before its time
	StateMissed    State = "missed"    // a scheduled send no runner started in time
	// StateReserved: ReserveSend took the id; the plan is not written yet.
	// Such a send is in no list.
	StateReserved State = "reserved"
)

// Send is a send's summary row.
type Send struct {
	ID       string
	PlanTime time.Time
	State    State
	// DueAt is when a runner is to start (StateWaiting) or continue
	// (StateHeld) the send, or, for a runner's run open (StateOpen), when
	// that run began: another runner takes it over once its lease ends.
	// Zero otherwise.
	DueAt        time.Time
	ScheduledFor time.Time
	HeldUntil    time.Time
	// Touched is the latest time any of its records names (a scheduled
	// send's time counts): the repeat guard skips sends touched before its
	// window.
	Touched                        time.Time
	Profile, Account, Host, Sender string
	Operator, Source               string
	Items, Records                 int
	// Leased: a live lease holds the send (a run is working on it);
	// LeaseHolder says what (serve, scheduler, send-pair, …), LeaseHost and
	// LeasePID where.
	Leased      bool
	LeaseHolder string
	LeaseHost   string
	LeasePID    int
	// LeaseUntil is when the lease ends unless renewed, on this host's
	// clock (the ledger keeps it on its own); zero when none is held.
	LeaseUntil time.Time
	// ResendOf is the send whose failed messages this one sends again
	// ("" for any other send).
	ResendOf string
}

// sendColumns are the columns scanSend reads, prefix naming the table
// ("s." in a join): a send's row, then the ledger's clock (a lease is live
// by the ledger's clock, not this host's).
func (l *Ledger) sendColumns(prefix string) string {
	var b strings.Builder
	for i, c := range []string{"id", "plan_time", "state", "due_at", "scheduled_for", "held_until", "touched", "profile", "account", "host", "sender",
		"operator", "source", "items", "records", "lease_token", "lease_holder", "lease_host", "lease_pid", "lease_until", "resend_of"} {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(prefix + c)
	}
	return b.String() + ", " + l.d.clock()
}

// scanSend reads a row of sendColumns.
func (l *Ledger) scanSend(sc interface{ Scan(...any) error }) (Send, error) {
	var s Send
	var planTime, scheduled, held, touched, leaseUntil, now int64
	var due sql.NullInt64
	var token, resendOf sql.NullString
	err := sc.Scan(&s.ID, &planTime, &s.State, &due, &scheduled, &held, &touched, &s.Profile, &s.Account, &s.Host, &s.Sender,
		&s.Operator, &s.Source, &s.Items, &s.Records, &token, &s.LeaseHolder, &s.LeaseHost, &s.LeasePID, &leaseUntil, &resendOf, &now)
	if err != nil {
		return Send{}, err
	}
	s.PlanTime, s.ScheduledFor, s.HeldUntil, s.Touched = fromNanos(planTime), fromNanos(scheduled), fromNanos(held), fromNanos(touched)
	s.DueAt, s.ResendOf = fromNanos(due.Int64), resendOf.String
	s.Leased = l.live(token.Valid, leaseUntil, s.LeaseHost, s.LeasePID, now)
	if token.Valid {
		s.LeaseUntil = l.hostTime(leaseUntil, now)
	}
	return s, nil
}

// CheckID refuses a send id that is not letters, digits, '-', '_' and '.'
// (not first): the ids smsdesk makes, and what an old journal's file name
// could be.
func CheckID(id string) error {
	if id == "" || strings.HasPrefix(id, ".") || len(id) > 200 || strings.ContainsFunc(id, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.')
	}) {
		return fmt.Errorf("send id %q: use the id `smsdesk history` shows (letters, digits, - and _)", model.SanitizeLine(id))
	}
	return nil
}

// CreateSend records a new send, id, from its plan (whose ID is id, but
// for a journal of an older smsdesk), under a lease of holder's (see Claim)
// that the caller releases when its run ends. A send with the id exists
// already: ErrSendExists. A ledger found damaged (Damaged), or marked so,
// refuses it.
func (l *Ledger) CreateSend(ctx context.Context, id string, plan *model.JournalPlan, holder string, ttl time.Duration) (*Lease, error) {
	if err := CheckID(id); err != nil {
		return nil, err
	}
	if err := l.Damaged(); err != nil {
		return nil, err
	}
	body, err := recordBody(plan)
	if err != nil {
		return nil, err
	}
	lease := l.newLease(id, holder, ttl)
	lease.keepNumbers(plan)
	st := &model.JournalState{Plan: *plan}
	state, due, held := summarize(st, plan)
	operator := ""
	if plan.Operator != nil {
		operator = plan.Operator.Name
	}
	err = l.withTx(ctx, "recording send "+id, func(tx *sql.Tx) error {
		if err := l.checkMark(ctx, tx); err != nil {
			return err
		}
		seq, err := l.bump(ctx, tx)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, l.q(`INSERT INTO sends (id, plan_time, state, due_at, scheduled_for, held_until, touched,
			profile, account, host, sender, operator, source, items, records,
			lease_token, lease_holder, lease_host, lease_pid, lease_until, updated_seq, resend_of)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, `+l.until()+`, ?, ?)`),
			id, nanos(plan.Time), string(state), nullNanos(due), nanos(plan.ScheduledFor), nanos(held), touchedBy(0, plan),
			plan.Profile, plan.Account, model.ServiceHost(plan.BaseURL), plan.Sender, operator, plan.Source, len(plan.Items),
			lease.token, holder, l.host, l.pid, lease.ttl.Nanoseconds(), seq, nullString(plan.ResendOf))
		if l.d.isUnique(err) {
			return fmt.Errorf("send %s: %w", id, ErrSendExists)
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, l.q("INSERT INTO send_records (send_id, seq, type, body) VALUES (?, 1, ?, ?)"),
			id, model.RecordPlan, body); err != nil {
			return err
		}
		return l.d.notify(ctx, tx)
	})
	if err != nil {
		return nil, err
	}
	return lease, nil
}

// ReserveSend takes id for a send about to be recorded, under a lease of
// holder's, before its plan is written (the plan is then its lease's first
// Append): a once-only id can name the send, and a second run finds it in
// use rather than missing. A reserved send is in no list; one whose plan
// never comes is removed by Discard (or stays, unlisted, if its process
// died). A send with the id exists already: ErrSendExists. A ledger found
// damaged (Damaged) refuses it, as its plan's Append does.
func (l *Ledger) ReserveSend(ctx context.Context, id, holder string, ttl time.Duration) (*Lease, error) {
	if err := CheckID(id); err != nil {
		return nil, err
	}
	if err := l.Damaged(); err != nil {
		return nil, err
	}
	lease := l.newLease(id, holder, ttl)
	err := l.withTx(ctx, "reserving send "+id, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, l.q(`INSERT INTO sends (id, plan_time, state, due_at, scheduled_for, held_until, touched,
			profile, account, host, sender, operator, source, items, records,
			lease_token, lease_holder, lease_host, lease_pid, lease_until, updated_seq)
			VALUES (?, 0, ?, NULL, 0, 0, 0, '', '', '', '', '', '', 0, 0, ?, ?, ?, ?, `+l.until()+`, 0)`),
			id, string(StateReserved), lease.token, holder, l.host, l.pid, lease.ttl.Nanoseconds())
		if l.d.isUnique(err) {
			return fmt.Errorf("send %s: %w", id, ErrSendExists)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return lease, nil
}

// writePlan records a reserved send's plan (its first record) in tx, its
// lease renewed for ttl.
func (l *Ledger) writePlan(ctx context.Context, tx *sql.Tx, id string, plan *model.JournalPlan, ttl time.Duration) error {
	body, err := recordBody(plan)
	if err != nil {
		return err
	}
	state, due, held := summarize(&model.JournalState{Plan: *plan}, plan)
	operator := ""
	if plan.Operator != nil {
		operator = plan.Operator.Name
	}
	seq, err := l.bump(ctx, tx)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, l.q(`UPDATE sends SET plan_time = ?, state = ?, due_at = ?, scheduled_for = ?, held_until = ?,
		touched = ?, profile = ?, account = ?, host = ?, sender = ?, operator = ?, source = ?, items = ?, records = 1,
		lease_until = `+l.until()+`, updated_seq = ?, resend_of = ? WHERE id = ?`),
		nanos(plan.Time), string(state), nullNanos(due), nanos(plan.ScheduledFor), nanos(held), touchedBy(0, plan),
		plan.Profile, plan.Account, model.ServiceHost(plan.BaseURL), plan.Sender, operator, plan.Source, len(plan.Items),
		ttl.Nanoseconds(), seq, nullString(plan.ResendOf), id); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, l.q("INSERT INTO send_records (send_id, seq, type, body) VALUES (?, 1, ?, ?)"),
		id, model.RecordPlan, body); err != nil {
		return err
	}
	return l.d.notify(ctx, tx)
}

// SendExists reports whether a send has the id.
func (l *Ledger) SendExists(ctx context.Context, id string) (bool, error) {
	var n int
	err := l.db.QueryRowContext(ctx, l.q("SELECT count(*) FROM sends WHERE id = ?"), id).Scan(&n)
	return n > 0, l.fail("looking for send "+id, err)
}

// ReadSend replays send id's records. A record that does not parse is a
// *DamagedError, never skipped: what it said may have been an intent.
func (l *Ledger) ReadSend(ctx context.Context, id string) (*model.JournalState, error) {
	st, err := l.replay(ctx, l.db, id)
	if err != nil {
		return nil, l.fail("reading send "+id, err)
	}
	return st, nil
}
