package config

import (
	"context"

	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/model"
)

// LineKind is one line's recorded kind, with when and by whom.
type LineKind = ledger.LineKind

// LineKindChange is a line's kind to record (Kind "": remove it).
type LineKindChange = ledger.LineKindChange

// SetLineKind records ch in the ledger's lines table and, in the same
// transaction, the audit record audit makes of the kind the line had
// before; it returns that kind ("" for none).
func SetLineKind(ctx context.Context, p Paths, ch LineKindChange, audit func(was model.LineKind) AuditRecord) (model.LineKind, error) {
	l, err := p.Ledger(ctx)
	if err != nil {
		return "", err
	}
	var mk func(model.LineKind) ledger.AuditEntry
	if audit != nil {
		mk = func(was model.LineKind) ledger.AuditEntry {
			e, _ := auditEntry(audit(was)) // a record of strings marshals
			return e
		}
	}
	return l.SetLineKind(ctx, ch, mk)
}

// LineKindOf is the kind recorded for account's line ("" when none).
func LineKindOf(ctx context.Context, p Paths, account, line string) (model.LineKind, error) {
	l, err := p.Ledger(ctx)
	if err != nil {
		return "", err
	}
	return l.LineKindOf(ctx, account, line)
}

// LineKinds are account's recorded kinds, by line.
func LineKinds(ctx context.Context, p Paths, account string) ([]LineKind, error) {
	l, err := p.Ledger(ctx)
	if err != nil {
		return nil, err
	}
	return l.LineKinds(ctx, account)
}

// SendLines are the lines account's sends by profile went from.
func SendLines(ctx context.Context, p Paths, account, profile string) ([]string, error) {
	l, err := p.Ledger(ctx)
	if err != nil {
		return nil, err
	}
	return l.SendLines(ctx, account, profile)
}
