package model

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"
)

// MaxXLSXBytes bounds a workbook: it is read whole (a ZIP is read from its
// end), and its sheets are unpacked in memory, never to a temporary file
// (nothing is written outside the config and state directories).
const MaxXLSXBytes = 64 << 20

// sheetChoice is a reader that names the sheet to read when it is a
// workbook (WithSheet).
type sheetChoice struct {
	io.Reader
	sheet string
}

// WithSheet says which sheet of a workbook r holds is read (--sheet NAME);
// without it the first sheet is. A CSV file ignores it.
func WithSheet(r io.Reader, sheet string) io.Reader {
	if sheet == "" {
		return r
	}
	return sheetChoice{Reader: r, sheet: sheet}
}

// isWorkbook says a file's first bytes are a ZIP, as an .xlsx is. What a
// file is comes from its bytes, never its name: a CSV named .xlsx reads as
// CSV, a workbook named .csv as a workbook.
func isWorkbook(head []byte) bool { return bytes.HasPrefix(head, []byte("PK\x03\x04")) }

// openSheet reads a workbook whole and returns a table over one sheet's
// rows (Excel's row numbers are the table's lines).
func openSheet(r io.Reader, sheet string) (*table, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxXLSXBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read the workbook: %w", err)
	}
	if len(data) > MaxXLSXBytes {
		return nil, fmt.Errorf("%w: a workbook may be at most %d MiB; save the rows as CSV UTF-8 and use that file", ErrInputTooLarge, MaxXLSXBytes>>20)
	}
	f, err := excelize.OpenReader(bytes.NewReader(data), excelize.Options{
		RawCellValue: true, UnzipSizeLimit: MaxCSVBytes, UnzipXMLSizeLimit: MaxCSVBytes,
	})
	if err != nil {
		return nil, &CSVError{Line: 1, Err: fmt.Errorf("%w: it starts as a ZIP file but is not an Excel workbook (.xlsx) that reads (%v); save it from Excel again as .xlsx, or save it as CSV UTF-8 and use that file", ErrNotCSV, err)}
	}
	sheets := f.GetSheetList()
	if len(sheets) == 0 {
		_ = f.Close()
		return nil, &CSVError{Line: 1, Err: fmt.Errorf("%w: the workbook has no sheet", ErrNotCSV)}
	}
	name := sheets[0]
	if sheet != "" {
		if !contains(sheets, sheet) {
			_ = f.Close()
			return nil, fmt.Errorf("the workbook has no sheet %q (it has %s); name one with --sheet", SanitizeLine(sheet), quotedList(sheets))
		}
		name = sheet
	}
	rows, err := f.Rows(name)
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("read sheet %q: %w", SanitizeLine(name), err)
	}
	return &table{sheet: &sheetRows{f: f, rows: rows, name: name}}, nil
}

func quotedList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(SanitizeLine(n))
	}
	return strings.Join(q, ", ")
}

// sheetRows reads one sheet's rows in order.
type sheetRows struct {
	f    *excelize.File
	rows *excelize.Rows
	name string
	row  int // the last row read, 1-based as Excel counts
}

// next returns the next row's cells and its number; io.EOF after the last.
// Rows Excel leaves out (empty) are skipped, as blank CSV lines are.
func (s *sheetRows) next() ([]string, int, error) {
	if !s.rows.Next() {
		if err := errors.Join(s.rows.Error(), s.close()); err != nil {
			return nil, 0, fmt.Errorf("read sheet %q: %w", SanitizeLine(s.name), err)
		}
		return nil, 0, io.EOF
	}
	s.row++
	cells, err := s.rows.Columns(excelize.Options{RawCellValue: true})
	if err != nil {
		return nil, 0, &CSVError{Line: s.row, Err: fmt.Errorf("the row does not read: %w", err)}
	}
	for i, c := range cells {
		cells[i] = cellText(c)
	}
	return cells, s.row, nil
}

// close lets the rows and the workbook go (once).
func (s *sheetRows) close() error {
	if s.f == nil {
		return nil
	}
	err := errors.Join(s.rows.Close(), s.f.Close())
	s.f = nil
	return err
}

// cellText is a cell as the CSV readers expect it. A number Excel kept in
// exponent form (9.121234567E9: a mobile typed as a number) is written out
// whole; its lost leading 0 is NormalizeMobile's to restore, as for a CSV.
func cellText(c string) string {
	if !strings.ContainsAny(c, "Ee") || strings.IndexFunc(c, func(r rune) bool {
		return (r < '0' || r > '9') && r != '.' && r != 'E' && r != 'e' && r != '+' && r != '-'
	}) >= 0 {
		return c
	}
	v, err := strconv.ParseFloat(c, 64)
	if err != nil || v != float64(int64(v)) {
		return c
	}
	return strconv.FormatInt(int64(v), 10)
}
