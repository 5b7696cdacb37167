package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// A lease says which run works on a send: the one process (on one host)
// that may write its records. It is a row's columns, not a lock or a
// transaction: it outlives no process for long, because it ends at
// lease_until unless renewed, and on the host that took it as soon as its
// process is gone. Every record is written under the lease (a run that
// lost it writes nothing more: ErrLeaseLost), so two runners never both
// send a chunk of one send.
//
// Lease times are the ledger's (dialect.clock: PostgreSQL's clock for
// every host, never a host's own), written and compared in SQL: two hosts
// whose clocks differ by minutes agree on when a lease ends. What a Send
// says of a lease (LeaseUntil) is translated to this host's clock.

// DefaultLeaseTTL is how long a lease holds without renewal.
const DefaultLeaseTTL = time.Minute

// Lease is a held lease on one send.
type Lease struct {
	l      *Ledger
	id     string
	token  string
	holder string
	ttl    time.Duration

	mu sync.Mutex
	// numbers are the plan's recipients by item index, canonical
	// (canonicalNumber), for the deliveries rows of its outcomes: kept
	// when the plan passes through the lease, else read once (planNumbers).
	numbers []string
}

func (l *Ledger) newLease(id, holder string, ttl time.Duration) *Lease {
	if ttl <= 0 {
		ttl = DefaultLeaseTTL
	}
	return &Lease{l: l, id: id, token: newToken(), holder: holder, ttl: ttl}
}

// ID is the send's id.
func (s *Lease) ID() string { return s.id }

// TTL is how long the lease holds without renewal.
func (s *Lease) TTL() time.Duration { return s.ttl }

// Append writes rec as the send's next record, durable when it returns,
// and renews the lease. It fails with ErrLeaseLost when another run has
// taken the send over (or the lease was released): nothing was written.
func (s *Lease) Append(ctx context.Context, rec model.JournalRecord) error {
	return s.l.appendRecord(ctx, s, rec)
}

// Renew extends the lease by its TTL from now; ErrLeaseLost when it is no
// longer held.
func (s *Lease) Renew(ctx context.Context) error {
	var n int64
	err := s.l.withTx(ctx, "renewing the lease on send "+s.id, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.l.q("UPDATE sends SET lease_until = "+s.l.until()+" WHERE id = ? AND lease_token = ?"),
			s.ttl.Nanoseconds(), s.id, s.token)
		if err == nil {
			n, err = res.RowsAffected()
		}
		return err
	})
	if err == nil && n == 0 {
		return fmt.Errorf("send %s: %w", s.id, ErrLeaseLost)
	}
	return err
}

// Release lets the send go: another run may claim it at once. Runners
// watching are told (a held send may be due). Releasing a lease lost
// already does nothing.
func (s *Lease) Release(ctx context.Context) error {
	return s.l.withTx(ctx, "releasing the lease on send "+s.id, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.l.q(`UPDATE sends SET lease_token = NULL, lease_holder = '', lease_host = '', lease_pid = 0,
			lease_until = 0 WHERE id = ? AND lease_token = ?`), s.id, s.token)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		if _, err := s.l.bump(ctx, tx); err != nil {
			return err
		}
		return s.l.d.notify(ctx, tx)
	})
}

// Discard removes a send that never started (its plan could not be
// confirmed whole): nothing of it was sent, and history does not show it.
func (s *Lease) Discard(ctx context.Context) error { return s.l.deleteSend(ctx, s.id, s.token) }

// until is the SQL of a lease's end, ttl from now on the ledger's clock,
// taking ttl (in nanoseconds) as its one argument.
func (l *Ledger) until() string { return "(" + l.d.clock() + " + ?)" }

// live reports whether a lease (held: a token is set) is alive at now, the
// ledger's clock in Unix nanoseconds: not past its time, and, when taken
// on this host, its process still running.
func (l *Ledger) live(held bool, until int64, host string, pid int, now int64) bool {
	if !held || until <= now {
		return false
	}
	if host == l.host && pid > 0 && pid != l.pid && !processAlive(pid) {
		return false
	}
	return true
}

// InUseError says which run holds a send, and until when its lease holds
// unless that run writes again.
type InUseError struct {
	ID, Holder, Host string
	PID              int
	// Until is when the lease ends unless renewed, on this host's clock.
	Until time.Time
}

func (e *InUseError) Error() string {
	by := ""
	if e.Holder != "" {
		by = " (" + model.SanitizeLine(e.Holder) + ")"
	}
	ends := ""
	if !e.Until.IsZero() {
		ends = fmt.Sprintf("; its lease ends at %s UTC unless that run writes again", e.Until.UTC().Format("15:04:05"))
	}
	return fmt.Sprintf("send %s: %v%s on %s, process %d%s; wait for it to finish", e.ID, ErrInUse, by, model.SanitizeLine(e.Host), e.PID, ends)
}

// Unwrap gives ErrInUse.
func (e *InUseError) Unwrap() error { return ErrInUse }

// Claim takes a lease on send id for holder (what is running it, for
// people: "serve", "scheduler", "send-pair"), held ttl unless renewed.
// A live lease of another run's is an *InUseError (ErrInUse); a lease past
// its time, or whose process on this host is gone, is taken over. A
// ledger found damaged (Damaged), or marked so, refuses it.
func (l *Ledger) Claim(ctx context.Context, id, holder string, ttl time.Duration) (*Lease, error) {
	if err := l.Damaged(); err != nil {
		return nil, err
	}
	lease := l.newLease(id, holder, ttl)
	err := l.withTx(ctx, "claiming send "+id, func(tx *sql.Tx) error {
		var token sql.NullString
		var who, host string
		var pid int
		var until, now int64
		var mark sql.NullString
		err := tx.QueryRowContext(ctx, l.q("SELECT lease_token, lease_holder, lease_host, lease_pid, lease_until, "+l.d.clock()+", "+markSQL+
			" FROM sends WHERE id = ?"+l.d.lockRows(false)), id).
			Scan(&token, &who, &host, &pid, &until, &now, &mark)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("send %s: %w (see `smsdesk history`)", id, ErrNoSuchSend)
		}
		if err != nil {
			return err
		}
		if err := l.markedDamage(mark); err != nil {
			return err
		}
		if l.live(token.Valid, until, host, pid, now) {
			return &InUseError{ID: id, Holder: who, Host: host, PID: pid, Until: l.hostTime(until, now)}
		}
		return l.setLease(ctx, tx, lease)
	})
	if err != nil {
		return nil, err
	}
	return lease, nil
}

func (l *Ledger) setLease(ctx context.Context, tx *sql.Tx, s *Lease) error {
	_, err := tx.ExecContext(ctx, l.q(`UPDATE sends SET lease_token = ?, lease_holder = ?, lease_host = ?, lease_pid = ?, lease_until = `+
		l.until()+` WHERE id = ?`), s.token, s.holder, l.host, l.pid, s.ttl.Nanoseconds(), s.id)
	return err
}

// hostTime is until, a time on the ledger's clock whose now is now (both
// Unix nanoseconds), on this host's clock: what people and a host's timers
// read. Zero until is the zero time.
func (l *Ledger) hostTime(until, now int64) time.Time {
	if until == 0 {
		return time.Time{}
	}
	return l.now().Add(time.Duration(until - now)).UTC()
}

// InUse reports whether a live lease holds send id (a run is working on it).
func (l *Ledger) InUse(ctx context.Context, id string) (bool, error) {
	s, err := l.GetSend(ctx, id)
	if errors.Is(err, ErrNoSuchSend) {
		return false, nil
	}
	return s.Leased, err
}

// Claimed is a due send ClaimDue took: its summary as it was claimed, and
// the lease the run that starts it writes under.
type Claimed struct {
	Send  Send
	Lease *Lease
}

// ClaimDue claims up to limit sends due at or before now that no live
// lease holds, the longest due first, each under a new lease of holder's:
// in one transaction that locks the rows it takes (FOR UPDATE SKIP LOCKED
// on PostgreSQL, so runners on several hosts take different sends without
// waiting on each other; SQLite's one writer at a time). Each due send is
// claimed by one runner only. ClaimDueFor selects by profile and service.
func (l *Ledger) ClaimDue(ctx context.Context, now time.Time, holder string, ttl time.Duration, limit int) ([]Claimed, error) {
	return l.ClaimDueFor(ctx, DueQuery{Now: now, Limit: max(limit, 1)}, holder, ttl)
}
