package legacy

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// auditName is the file store's audit trail: one JSON object a line.
const auditName = "audit.jsonl"

// AuditRecord is one line of the audit file, as the file store wrote it
// (config.AuditRecord), and the line itself.
type AuditRecord struct {
	Time     time.Time       `json:"time"`
	Operator *model.Operator `json:"operator"`
	Action   string          `json:"action"`
	GroupID  model.ID        `json:"group_id,omitempty"`
	ID       model.ID        `json:"id,omitempty"`
	Name     string          `json:"name,omitempty"`
	Mobile   string          `json:"mobile,omitempty"`
	Sender   string          `json:"sender,omitempty"`
	Note     string          `json:"note,omitempty"`
	Send     string          `json:"send,omitempty"`
	Counts   map[string]int  `json:"counts,omitempty"`
	Rows     int             `json:"rows,omitempty"`
	File     string          `json:"file,omitempty"`
	Error    string          `json:"error,omitempty"`
	Profile  string          `json:"profile,omitempty"`
	// Raw is the line as written: every field, those of older versions too.
	Raw json.RawMessage `json:"-"`
}

func readAudit(s *Snapshot) error {
	path := filepath.Join(s.Dir, auditName)
	data, err := s.readFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading the audit file %s: %w", path, err)
	}
	s.Files = append(s.Files, auditName)
	recs, cut, err := parseAudit(data)
	var le *lineError
	if errors.As(err, &le) {
		return &Error{Path: path, Line: le.line, Problem: le.problem, Err: le.err}
	}
	if cut {
		s.note("%s: its last line was cut short (the process died writing it) and is left out", auditName)
	}
	s.Audit = recs
	return err
}

// parseAudit reads the audit file's lines. A line that does not read, or
// reads as no record (no action, no time), is an error (*lineError), except
// a last line cut short (cut), as a process that died while appending it
// leaves it.
func parseAudit(data []byte) (recs []AuditRecord, cut bool, err error) {
	err = eachLine(data, func(n int, line []byte, complete bool) error {
		var r AuditRecord
		perr := json.Unmarshal(line, &r)
		switch {
		case perr != nil && !complete:
			cut = true
			return nil
		case perr != nil:
			return &lineError{line: n, problem: "not an audit record: " + perr.Error(), err: perr}
		case r.Action == "" || r.Time.IsZero():
			return &lineError{line: n, problem: "not an audit record: no action or no time"}
		}
		r.Raw = append(json.RawMessage(nil), line...)
		recs = append(recs, r)
		return nil
	})
	return recs, cut, err
}
