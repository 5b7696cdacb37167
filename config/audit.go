package config

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// AuditFileName is the record of the changes smsdesk made besides sending
// (sends have their journals): imports, new and deleted contacts, new
// groups, groups tracked and untracked; by the operators of a served
// console and at this machine's own terminal (the CLI, the console). One
// JSON object a line, 0600, in the state directory.
const AuditFileName = "audit.jsonl"

// AuditFile is the audit record's path.
func (p Paths) AuditFile() string { return filepath.Join(p.StateDir, AuditFileName) }

// AuditRecord is one line of the audit record.
type AuditRecord struct {
	Time     time.Time       `json:"time"`
	Operator *model.Operator `json:"operator"` // nil at a local terminal
	// Action is add_contact, import, delete_contact, create_group,
	// track_group, untrack_group, optout_add, optout_remove,
	// export_contacts or export_results.
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
	File    string         `json:"file,omitempty"`   // the file an export wrote
	Error   string         `json:"error,omitempty"`
	// Profile is the profile the change was made with: its groups and
	// contacts are that account's.
	Profile string `json:"profile,omitempty"`
}

// AppendAudit adds one record to the audit file (created 0600), synced:
// a deletion the service made is not forgotten by a crash a moment later.
func AppendAudit(p Paths, r AuditRecord) error {
	if p.StateDir == "" {
		return nil
	}
	if err := os.MkdirAll(p.StateDir, 0o700); err != nil {
		return fmt.Errorf("audit record: %w", err)
	}
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("audit record: %w", err)
	}
	f, err := os.OpenFile(p.AuditFile(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("audit record: %w", err)
	}
	_, err = f.Write(append(line, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("audit record: %w", err)
	}
	return nil
}
