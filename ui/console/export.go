package console

// CSV exports: the open group's contacts and a send's results, each to a
// new 0600 file that is never overwritten.

import (
	"encoding/csv"
	"errors"
	"fmt"
	"os"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/model"
)

// exported shows a contacts export's outcome in the pane.
func (p *contactsPane) exported(msg exportDoneMsg) tea.Cmd {
	if msg.Err != nil {
		p.err = errorLine(msg.Err)
		return nil
	}
	p.err = ""
	p.note = fmt.Sprintf("exported %d contacts to %s", msg.Rows, msg.Path)
	return cmdOf(statusMsg{Text: p.note})
}

// writeContactsCSV writes contacts (mobile, name, id) to a new file at path.
func writeContactsCSV(path string, contacts []model.Contact) (int, error) {
	return writeNewCSV(path, []string{"mobile", "name", "id"}, len(contacts), func(i int) []string {
		c := contacts[i]
		return []string{c.Mobile, c.Name, string(c.ID)}
	})
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
		f.Close()
		return 0, fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return 0, fmt.Errorf("writing %s: %w", path, err)
	}
	return n, nil
}
