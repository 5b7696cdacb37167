package config

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// AuditFilter is what AuditNewest keeps of the audit trail.
type AuditFilter struct {
	// Since keeps the records written at or after it (zero: any time).
	Since time.Time
	// Operator keeps the records of the served console's operator of this
	// name ("": anyone's, this host's terminal's too).
	Operator string
	// Limit is how many records at most; it must be positive.
	Limit int
}

// AuditLine is one record of the trail with its place in it (Seq: the
// order records were written).
type AuditLine struct {
	Seq int64
	AuditRecord
}

// auditBatch is how many records AuditNewest reads at a time at most (and
// always while an operator filter passes records by).
const auditBatch = 500

// AuditNewest returns the records of the audit trail that f keeps, newest
// first, at most f.Limit. It reads the ledger's trail backwards along its
// key, a page at a time (ledger.AuditPage), and stops at the limit: the
// newest records cost the same whatever the trail's length. An operator
// who did little reads the trail back to where their records are (or to
// its start). A record that does not parse is an error naming it, never
// passed by.
func AuditNewest(ctx context.Context, p Paths, f AuditFilter) ([]AuditLine, error) {
	if f.Limit <= 0 {
		return nil, fmt.Errorf("reading the audit trail: a limit of %d records", f.Limit)
	}
	l, err := p.Ledger(ctx)
	if err != nil {
		return nil, err
	}
	batch := min(f.Limit, auditBatch)
	if f.Operator != "" {
		batch = auditBatch
	}
	var out []AuditLine
	before := int64(0)
	for len(out) < f.Limit {
		page, err := l.AuditPage(ctx, before, f.Since, batch)
		if err != nil {
			return nil, err
		}
		for _, e := range page {
			var r AuditLine
			if err := json.Unmarshal(e.Body, &r.AuditRecord); err != nil {
				return nil, fmt.Errorf("audit record %d does not parse: %w", e.Seq, err)
			}
			r.Seq = e.Seq
			if f.Operator != "" && (r.Operator == nil || r.Operator.Name != f.Operator) {
				continue
			}
			if out = append(out, r); len(out) == f.Limit {
				break
			}
		}
		if len(page) < batch {
			break
		}
		before = page[len(page)-1].Seq
	}
	return out, nil
}
