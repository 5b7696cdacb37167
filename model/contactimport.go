package model

import (
	"fmt"
)

// ImportRow is one row of a contacts import and what became of it.
type ImportRow struct {
	Line   int    `json:"line"`
	Mobile string `json:"mobile"` // normalised when the row is valid
	Name   string `json:"name"`
	Status string `json:"status"` // valid, invalid, skipped, added, failed
	ID     ID     `json:"id,omitempty"`
	Error  string `json:"error,omitempty"`
}

// Import row statuses.
const (
	ImportValid   = "valid"   // checked, not yet added
	ImportInvalid = "invalid" // refused locally; Error says why
	ImportSkipped = "skipped" // already in the group, or not attempted; Error says which
	ImportAdded   = "added"
	ImportFailed  = "failed"
)

// AlreadyInGroup is the Error of a row skipped because the group has its number.
const AlreadyInGroup = "already in the group"

// ImportPreview is what an import would do, before anything is added: the rows
// to add, the rows refused with their reasons, and the rows whose number the
// group already has.
type ImportPreview struct {
	Valid, Invalid, Already []ImportRow
}

// Total is the number of rows read.
func (p ImportPreview) Total() int { return len(p.Valid) + len(p.Invalid) + len(p.Already) }

// ImportOptions are the profile's rules for an import.
type ImportOptions struct {
	Format             NumberFormat
	AllowInternational bool
}

// PreviewImport checks contact rows against the service's rules (a mobile
// NormalizeMobile accepts, a name of at most MaxContactName characters, each
// number once in the file) and against the group's current numbers (existing,
// in any spelling), so that an import run twice, or after an interruption,
// adds only who is missing.
//
// A number outside Iran is invalid unless opts.AllowInternational (send-pair
// refuses it the same way), and a name that is not text (TextProblem: a
// spreadsheet's question marks, mojibake) is invalid: both are found here,
// before anything is added, not as service refusals row by row.
func PreviewImport(rows []ContactRow, opts ImportOptions, existing []string) ImportPreview {
	c := NewImportCheck(opts, existing)
	var p ImportPreview
	for _, r := range rows {
		row := c.Row(r)
		switch row.Status {
		case ImportValid:
			p.Valid = append(p.Valid, row)
		case ImportSkipped:
			p.Already = append(p.Already, row)
		default:
			p.Invalid = append(p.Invalid, row)
		}
	}
	return p
}

// ImportCheck checks contact rows one at a time as PreviewImport does, for
// a file too long to hold: it keeps only the numbers seen (for duplicates).
type ImportCheck struct {
	opts ImportOptions
	have map[string]bool
	seen map[string]int
}

// NewImportCheck checks rows by opts against the group's existing numbers.
func NewImportCheck(opts ImportOptions, existing []string) *ImportCheck {
	have := make(map[string]bool, len(existing))
	for _, m := range existing {
		have[mobileKey(m)] = true
	}
	return &ImportCheck{opts: opts, have: have, seen: map[string]int{}}
}

// Row checks the next row: ImportValid (Mobile normalised), ImportSkipped
// (the group has the number: AlreadyInGroup) or ImportInvalid (Error says
// why; a number the file had on an earlier line is a duplicate).
func (c *ImportCheck) Row(r ContactRow) ImportRow {
	row := ImportRow{Line: r.Line, Mobile: SanitizeLine(r.Mobile), Name: r.Name, Status: ImportInvalid}
	mobile, problem := ContactMobileProblem(r.Mobile, c.opts)
	if problem == "" {
		problem = ContactNameProblem(r.Name)
	}
	if r.Problem != "" {
		row.Error = r.Problem
		return row
	}
	if problem != "" {
		row.Error = problem
		return row
	}
	key := mobileKey(mobile)
	switch {
	case c.seen[key] != 0:
		row.Error = fmt.Sprintf("duplicate of line %d (%s)", c.seen[key], mobile)
	case c.have[key]:
		row.Mobile, row.Status, row.Error = mobile, ImportSkipped, AlreadyInGroup
		c.seen[key] = r.Line
	default:
		c.seen[key] = r.Line
		row.Mobile, row.Status = mobile, ImportValid
	}
	return row
}

// mobileKey is a number in one spelling for comparison (09… and +989… alike).
func mobileKey(m string) string {
	if n, err := NormalizeMobile(m, FormatE164); err == nil {
		return n
	}
	return m
}
