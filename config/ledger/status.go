package ledger

import (
	"context"
	"errors"
	"fmt"
)

// Status is what `smsdesk ledger status` and doctor show.
type Status struct {
	Backend       Backend
	Where         string // the file, or the URL without a password
	ID            string
	SchemaVersion int
	// Counted: Sends … Audit were read. A damaged ledger may not count:
	// they are then not known, never zero.
	Counted bool
	Sends   int
	Records int // the sends' records (send_records)
	OptOuts int
	OnceIDs int
	Audit   int
	Size    int64 // bytes
	// Integrity is "ok", or what the checks found wrong (Status then
	// also returns a *DamagedError), or "" when they could not run: the
	// store's pages, the ledger's damage mark, and every row (VerifyRows).
	Integrity string
}

// Status counts what the ledger holds and checks its integrity: the
// store's pages (SQLite's integrity_check reads every page: seconds for a
// large ledger), the damage a process marked in it, and every row
// (VerifyRows). A count that fails does not stop the check: what is wrong
// is said by the check when it can say it, else by the count's error.
func (l *Ledger) Status(ctx context.Context) (Status, error) {
	st := Status{Backend: l.Backend(), Where: l.where, ID: l.id, SchemaVersion: l.version}
	size, err := l.d.size(ctx, l.db)
	if err != nil {
		return st, l.fail("measuring the ledger", err)
	}
	st.Size = size
	countErr := l.count(ctx, &st)
	st.Integrity, err = l.d.integrity(ctx, l.db)
	switch {
	case err == nil && st.Integrity != "ok":
		return st, l.fail("checking the ledger's integrity", l.damaged("its integrity check found: "+st.Integrity, nil))
	case countErr != nil:
		return st, countErr
	case err != nil:
		return st, l.fail("checking the ledger's integrity", err)
	}
	err = l.DamageMark(ctx)
	if err == nil {
		_, err = l.VerifyRows(ctx)
	}
	var de *DamagedError
	if errors.As(err, &de) {
		st.Integrity = de.Problem
		if de.Found != "" {
			st.Integrity += " (" + de.Found + ")"
		}
	}
	return st, err
}

// count fills in st's counts (Counted), or says why it cannot.
func (l *Ledger) count(ctx context.Context, st *Status) error {
	var n [5]int
	for i, table := range []string{"sends", "send_records", "optouts", "once_ids", "audit"} {
		if err := l.db.QueryRowContext(ctx, "SELECT count(*) FROM "+table).Scan(&n[i]); err != nil {
			return l.fail("counting "+table, err)
		}
	}
	st.Sends, st.Records, st.OptOuts, st.OnceIDs, st.Audit, st.Counted = n[0], n[1], n[2], n[3], n[4], true
	return nil
}

// Backup writes a copy of the ledger to file, a new file (0600): SQLite's
// VACUUM INTO, consistent while others write. A PostgreSQL ledger is
// backed up with pg_dump: the error says how.
func (l *Ledger) Backup(ctx context.Context, file string) error {
	err := l.d.backup(ctx, l.db, file)
	var de *DamagedError
	if err != nil && !errors.As(err, &de) && l.d.isCorrupt(err) {
		return l.fail("backing it up", l.damaged(fmt.Sprintf("backing it up failed: %v", err), err))
	}
	return err
}

// QuickCheck checks the store's own pages, cheaper than Status's
// integrity check but still a read of the whole file on SQLite
// (quick_check: BENCHMARKS.md has its cost): a page a send never reads
// (the audit trail's, an index's) that was overwritten is found before
// anything is sent. A ledger that fails it is a *DamagedError. On
// PostgreSQL it does nothing: the server checks the pages it reads.
func (l *Ledger) QuickCheck(ctx context.Context) error {
	found, err := l.d.quickCheck(ctx, l.db)
	switch {
	case err != nil:
		return l.fail("checking the ledger", err)
	case found != "ok":
		return l.fail("checking the ledger", l.damaged("its check found: "+found, nil))
	}
	return nil
}
