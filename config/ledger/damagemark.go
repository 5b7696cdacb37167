package ledger

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// Damage found is kept in the ledger itself, in meta's "damaged" row, so
// that every process on the ledger (every host's, on PostgreSQL) refuses
// every start from then on, not only the process that found it: a restore
// of a backup made before (which has no mark) or a new ledger (`ledger
// init --new`) is the way on. The mark is written once, in its own
// transaction, by the first process that finds the damage; every start
// reads it in the transaction it starts in (Claim, ClaimDueFor, a send's
// plan Append, CreateSend), in a statement it makes anyway.

// metaDamaged is the meta key of the damage mark.
const metaDamaged = "damaged"

// markSQL is the mark as a scalar subquery: a column of a statement a
// start makes anyway (NULL: no mark).
const markSQL = "(SELECT value FROM meta WHERE key = '" + metaDamaged + "')"

// markWait bounds the write of a mark: it is one short transaction, and a
// process that cannot write it still refuses (DamagedError.Unkept).
const markWait = 30 * time.Second

// damageMark is the mark's value: what was found, when, and by whom.
type damageMark struct {
	Problem string    `json:"problem"`
	At      time.Time `json:"at"`
	By      string    `json:"by"` // "smsdesk scheduler"
	Host    string    `json:"host"`
	PID     int       `json:"pid"`
}

// errReplaced is why damage found in the ledger's files themselves is not
// marked: a write through them could overwrite another process's.
var errReplaced = errors.New("its files were replaced underneath this process, and a write through them could overwrite another's")

// keep marks the first damage this process found in the ledger, once (a
// damage found later, or read from the mark, is not marked again), and
// returns de as the process says it: with Unkept when the mark could not
// be written. It must not be called inside a transaction of this process.
func (l *Ledger) keep(de *DamagedError) error {
	l.found.CompareAndSwap(nil, de)
	if l.marked.CompareAndSwap(false, true) { // once (a failure of the mark's own write comes back here)
		if err := l.writeMark(l.found.Load()); err != nil {
			l.unkept.Store(&err)
		}
	}
	return l.withUnkept(de)
}

// writeMark writes de as the ledger's mark, unless one is there already.
// Damage to a SQLite ledger's own files is marked beside the file
// (walFiles.markBeside), never through them.
func (l *Ledger) writeMark(de *DamagedError) error {
	body, err := json.Marshal(damageMark{Problem: de.Problem, At: l.now().UTC(), By: processName(), Host: l.host, PID: l.pid})
	if err != nil {
		return err
	}
	if errors.Is(de, errReplaced) {
		if l.files == nil {
			return errReplaced
		}
		return l.files.markBeside(body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), markWait)
	defer cancel()
	return l.withTx(ctx, "marking the ledger damaged", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, l.q("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING"), metaDamaged, string(body))
		return err
	})
}

// withUnkept is de saying why it could not be marked, if it could not.
func (l *Ledger) withUnkept(de *DamagedError) *DamagedError {
	e := l.unkept.Load()
	if e == nil || de.Unkept != nil {
		return de
	}
	c := *de
	c.Unkept = *e
	return &c
}

// marked is the damage mark value (a start read it: markSQL), or the mark
// beside a SQLite ledger's file (besideMark), as this process's damage;
// nil when there is none.
func (l *Ledger) markedDamage(value sql.NullString) error {
	if !value.Valid && l.files != nil {
		value = l.files.besideMark()
	}
	if !value.Valid {
		return nil
	}
	de := &DamagedError{Where: l.where, Backend: l.d.backend()}
	var m damageMark
	if err := json.Unmarshal([]byte(value.String), &m); err != nil || m.Problem == "" {
		de.Problem = "its damage mark says: " + model.SanitizeLine(value.String)
	} else {
		de.Problem = model.SanitizeLine(m.Problem)
		de.Found = fmt.Sprintf("found %s by %s on %s, process %d", m.At.UTC().Format("2006-01-02 15:04 UTC"),
			model.SanitizeLine(m.By), model.SanitizeLine(m.Host), m.PID)
	}
	l.marked.Store(true) // in the ledger already
	if l.found.CompareAndSwap(nil, de) {
		return de
	}
	return l.withUnkept(l.found.Load())
}

// checkMark refuses a start when this process found damage, or the ledger
// is marked damaged, read through q (a start's transaction).
func (l *Ledger) checkMark(ctx context.Context, q querier) error {
	if err := l.Damaged(); err != nil {
		return err
	}
	var v sql.NullString
	if err := q.QueryRowContext(ctx, "SELECT "+markSQL).Scan(&v); err != nil {
		return err
	}
	return l.markedDamage(v)
}

// DamageMark is the ledger's damage mark (nil: none), as ledger status and
// doctor show it: a *DamagedError naming who found what, and when.
func (l *Ledger) DamageMark(ctx context.Context) error {
	var v sql.NullString
	if err := l.db.QueryRowContext(ctx, "SELECT "+markSQL).Scan(&v); err != nil {
		return l.fail("reading the ledger's damage mark", err)
	}
	return l.markedDamage(v)
}

// processName names this process in a mark: "smsdesk scheduler".
func processName() string {
	name := "smsdesk"
	if len(os.Args) > 0 {
		name = filepath.Base(os.Args[0])
	}
	if len(os.Args) > 1 && !strings.HasPrefix(os.Args[1], "-") {
		name += " " + os.Args[1]
	}
	return model.SanitizeLine(name)
}
