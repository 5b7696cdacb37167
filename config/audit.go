package config

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/model"
)

// The audit trail is the record of the changes smsdesk made besides
// sending (sends have their records): imports, new and deleted contacts,
// new groups, groups tracked and untracked, opt-outs; by the operators of
// a served console and at this machine's own terminal (the CLI, the
// console). It is the ledger's audit table, one AuditRecord's JSON a row.

// AuditFileName is the file the audit trail was kept in before the ledger
// (state/audit.jsonl): the upgrade reads it.
const AuditFileName = "audit.jsonl"

// AuditRecord is one line of the audit record.
type AuditRecord struct {
	Time     time.Time       `json:"time"`
	Operator *model.Operator `json:"operator"` // nil at a local terminal
	// Action is add_contact, import, delete_contact, create_group,
	// track_group, untrack_group, optout_add, optout_remove,
	// optout_import (one record for the whole file), export_contacts or
	// export_results.
	Action  string         `json:"action"`
	GroupID model.ID       `json:"group_id,omitempty"`
	ID      model.ID       `json:"id,omitempty"`   // the contact or group acted on
	Name    string         `json:"name,omitempty"` // a new or tracked group's name
	Mobile  string         `json:"mobile,omitempty"`
	Sender  string         `json:"sender,omitempty"` // an opt-out's line ("" every line)
	Note    string         `json:"note,omitempty"`
	Send    string         `json:"send,omitempty"`   // the send acted on (ignore_quiet_hours)
	Counts  map[string]int `json:"counts,omitempty"` // an import's: added, already, failed, not_attempted
	Rows    int            `json:"rows,omitempty"`   // an export's rows written
	File    string         `json:"file,omitempty"`   // the file an export wrote, or an opt-out import read
	Digest  string         `json:"digest,omitempty"` // an opt-out import's file: "sha256:" and its hex
	// MessageID is the service's id of the reply that opted a number
	// out or back in (optout_reply, optin_reply).
	MessageID string `json:"message_id,omitempty"`
	Error     string `json:"error,omitempty"`
	// Profile is the profile the change was made with: its groups and
	// contacts are that account's.
	Profile string `json:"profile,omitempty"`
}

// AppendAudit adds one record to the audit trail, committed when it
// returns: a deletion the service made is not forgotten by a crash a
// moment later.
func AppendAudit(ctx context.Context, p Paths, r AuditRecord) error {
	if p.ledger == nil && p.StateDir == "" {
		return nil // no state at all (completion, a bare client)
	}
	l, err := p.Ledger(ctx)
	if err != nil {
		return fmt.Errorf("audit record: %w", err)
	}
	e, err := auditEntry(r)
	if err != nil {
		return err
	}
	if err := l.AppendAudit(ctx, e); err != nil {
		return fmt.Errorf("audit record: %w", err)
	}
	return nil
}

func auditEntry(r AuditRecord) (ledger.AuditEntry, error) {
	body, err := json.Marshal(r)
	if err != nil {
		return ledger.AuditEntry{}, fmt.Errorf("audit record: %w", err)
	}
	return ledger.AuditEntry{Time: r.Time, Action: r.Action, Body: body}, nil
}

// ReadAudit returns the audit trail, oldest first.
func ReadAudit(ctx context.Context, p Paths) ([]AuditRecord, error) {
	l, err := p.Ledger(ctx)
	if err != nil {
		return nil, err
	}
	entries, err := l.ListAudit(ctx, 0, 0)
	if err != nil {
		return nil, err
	}
	out := make([]AuditRecord, len(entries))
	for i, e := range entries {
		if err := json.Unmarshal(e.Body, &out[i]); err != nil {
			return nil, fmt.Errorf("audit record %d does not parse: %w", e.Seq, err)
		}
	}
	return out, nil
}

// AuditText is the audit trail as JSON lines, one record a line (what
// audit.jsonl held), oldest first.
func AuditText(ctx context.Context, p Paths) ([]byte, error) {
	l, err := p.Ledger(ctx)
	if err != nil {
		return nil, err
	}
	entries, err := l.ListAudit(ctx, 0, 0)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	for _, e := range entries {
		b.Write(e.Body)
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}
