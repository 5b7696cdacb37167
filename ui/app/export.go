package app

// Exports: a group's contacts and a send's results, written to a new CSV
// file (0600, never over an existing one) by an operator whose role allows
// it, each recorded in the audit trail with who, what, how many rows and
// where.

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"os"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// ExportContacts writes a group's contacts (mobile, name, id: full numbers)
// to a new file at path. It needs the sender role (ActionExport) and is
// audited (export_contacts: the group, rows and file).
func (s *Session) ExportContacts(ctx context.Context, groupID model.ID, contacts []model.Contact, path string) (int, error) {
	if err := s.Allow(ActionExport); err != nil {
		return 0, err
	}
	n, err := writeNewCSV(path, []string{"mobile", "name", "id"}, len(contacts), func(i int) []string {
		c := contacts[i]
		return []string{c.Mobile, c.Name, string(c.ID)}
	})
	s.audit(ctx, config.AuditRecord{Action: "export_contacts", GroupID: groupID, Rows: n, File: path}, err)
	return n, err
}

// ExportResults writes a send's results (recipient, message, status,
// message_id, delivery, error) to a new file at path. It needs the sender
// role (ActionExport) and is audited (export_results: the send, rows and
// file).
func (s *Session) ExportResults(ctx context.Context, sendID string, results []model.SentItem, path string) (int, error) {
	if err := s.Allow(ActionExport); err != nil {
		return 0, err
	}
	n, err := writeNewCSV(path, []string{"recipient", "message", "status", "message_id", "delivery", "error"}, len(results), func(i int) []string {
		r := results[i]
		return []string{r.Recipient, r.Message, string(r.State), r.MessageID, r.Delivery, r.Error}
	})
	s.audit(ctx, config.AuditRecord{Action: "export_results", Send: sendID, Rows: n, File: path}, err)
	return n, err
}

// writeNewCSV writes a header and n records to a new 0600 file at path; an
// existing file is never overwritten.
func writeNewCSV(path string, header []string, n int, record func(i int) []string) (int, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return 0, fmt.Errorf("%s already exists; choose another file name", path)
		}
		return 0, fmt.Errorf("creating %s: %w", path, err)
	}
	w := csv.NewWriter(f)
	_ = w.Write(header)
	for i := range n {
		_ = w.Write(model.CSVRow(record(i))) // no cell a spreadsheet runs as a formula
	}
	w.Flush()
	if err := w.Error(); err != nil {
		_ = f.Close() // the write's error is the one to say
		return 0, fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return 0, fmt.Errorf("writing %s: %w", path, err)
	}
	return n, nil
}
