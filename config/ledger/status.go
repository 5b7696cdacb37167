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
	Sends         int
	Records       int // the sends' records (send_records)
	OptOuts       int
	OnceIDs       int
	Audit         int
	Size          int64 // bytes
	// Integrity is "ok", or what the check found wrong (Status then
	// also returns a *DamagedError).
	Integrity string
}

// Status counts what the ledger holds and checks its integrity (SQLite's
// integrity_check reads every page: seconds for a large ledger).
func (l *Ledger) Status(ctx context.Context) (Status, error) {
	st := Status{Backend: l.Backend(), Where: l.where, ID: l.id, SchemaVersion: l.version}
	for _, c := range []struct {
		table string
		n     *int
	}{{"sends", &st.Sends}, {"send_records", &st.Records}, {"optouts", &st.OptOuts}, {"once_ids", &st.OnceIDs}, {"audit", &st.Audit}} {
		if err := l.db.QueryRowContext(ctx, "SELECT count(*) FROM "+c.table).Scan(c.n); err != nil {
			return st, l.fail("counting "+c.table, err)
		}
	}
	size, err := l.d.size(ctx, l.db)
	if err != nil {
		return st, l.fail("measuring the ledger", err)
	}
	st.Size = size
	st.Integrity, err = l.d.integrity(ctx, l.db)
	if err != nil {
		return st, l.fail("checking the ledger's integrity", err)
	}
	if st.Integrity != "ok" {
		return st, l.damaged("its integrity check found: "+st.Integrity, nil)
	}
	return st, nil
}

// Backup writes a copy of the ledger to file, a new file (0600): SQLite's
// VACUUM INTO, consistent while others write. A PostgreSQL ledger is
// backed up with pg_dump: the error says how.
func (l *Ledger) Backup(ctx context.Context, file string) error {
	err := l.d.backup(ctx, l.db, file)
	var de *DamagedError
	if err != nil && !errors.As(err, &de) && l.d.isCorrupt(err) {
		return l.damaged(fmt.Sprintf("backing it up failed: %v", err), err)
	}
	return err
}
