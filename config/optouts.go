package config

import (
	"context"

	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/model"
)

// The opt-out list is the ledger's: one list for every profile, key and
// operator on the ledger, so that a new key, another spelling of the
// service's host or a second profile never starts from an empty one. The
// account argument the functions below still take no longer splits it
// (blocking a number for a second account on the same ledger is the safe
// side; one line's entries keep accounts apart where their lines differ).

// OptOutChange is what AddOptOuts or RemoveOptOuts did: the entries
// changed, and those asked for that were already so (added before, or not
// in the list).
type OptOutChange = ledger.OptOutChange

// OptOutImport is what ImportOptOuts did: entries read, added, already on
// the list.
type OptOutImport = ledger.ImportResult

// LoadOptOuts reads the whole opt-out list (empty when there is none). A
// plan looks up its own numbers instead (LookupOptOuts): the list may
// hold millions.
func LoadOptOuts(ctx context.Context, p Paths, _ string) ([]model.OptOut, error) {
	l, err := p.Ledger(ctx)
	if err != nil {
		return nil, err
	}
	return l.ListOptOuts(ctx, 0, 0)
}

// LookupOptOuts is the opt-out list as far as it concerns recipients (in
// any spelling NormalizeMobile reads; others cannot be on it): their
// entries, for every line and for one, read by number.
func LookupOptOuts(ctx context.Context, p Paths, recipients []string) (*model.OptOutList, error) {
	l, err := p.Ledger(ctx)
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(recipients))
	for _, r := range recipients {
		if k, err := model.OptOutKey(r); err == nil {
			keys = append(keys, k)
		}
	}
	entries, err := l.LookupOptOuts(ctx, keys)
	if err != nil {
		return nil, err
	}
	return model.NewOptOutList(entries), nil
}

// CountOptOuts counts the opt-out list's entries.
func CountOptOuts(ctx context.Context, p Paths) (int, error) {
	l, err := p.Ledger(ctx)
	if err != nil {
		return 0, err
	}
	return l.CountOptOuts(ctx)
}

// ListOptOuts returns a page of the opt-out list, by number then line
// (limit 0: all of it).
func ListOptOuts(ctx context.Context, p Paths, limit, offset int) ([]model.OptOut, error) {
	l, err := p.Ledger(ctx)
	if err != nil {
		return nil, err
	}
	return l.ListOptOuts(ctx, limit, offset)
}

// AddOptOuts adds entries (their Mobile an OptOutKey) to the list. A number
// already opted out for every line, or for the same line, is left as it is
// (Already).
func AddOptOuts(ctx context.Context, p Paths, _ string, add []model.OptOut) (OptOutChange, error) {
	l, err := p.Ledger(ctx)
	if err != nil {
		return OptOutChange{}, err
	}
	return l.AddOptOuts(ctx, add)
}

// RemoveOptOuts removes the opt-outs of mobiles (OptOutKeys): for sender
// only, or every entry of the number when sender is "". A number with
// nothing to remove comes back in Already (Mobile and Sender as asked).
func RemoveOptOuts(ctx context.Context, p Paths, _ string, mobiles []string, sender string) (OptOutChange, error) {
	l, err := p.Ledger(ctx)
	if err != nil {
		return OptOutChange{}, err
	}
	return l.RemoveOptOuts(ctx, mobiles, sender)
}

// ImportOptOuts adds every number of spool, as entry (its sender, note,
// time and operator) in one short transaction, with one audit record for
// the whole import (audit makes it from the result: its counts and the
// file's digest): all of it, or none. The spool holds the file read and
// checked already: the transaction waits on nothing outside the ledger.
func ImportOptOuts(ctx context.Context, p Paths, spool *OptOutSpool, entry model.OptOut, audit func(OptOutImport) AuditRecord) (OptOutImport, error) {
	l, err := p.Ledger(ctx)
	if err != nil {
		return OptOutImport{}, err
	}
	var mk func(ledger.ImportResult) ledger.AuditEntry
	if audit != nil {
		mk = func(r ledger.ImportResult) ledger.AuditEntry {
			e, _ := auditEntry(audit(r))
			return e
		}
	}
	return l.ImportOptOuts(ctx, spool.entries(entry), mk)
}
