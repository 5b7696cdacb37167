package model

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// PairRow is one row of a pairs file: a recipient and its own message, as given.
type PairRow struct {
	Line      int    // line on which the row starts (1-based, counting the header)
	Recipient string // as given, trimmed; not yet normalised
	Message   string // trimmed of surrounding white space
	// Problems found while making the row (a template variable empty for it);
	// BuildPlan copies them into the plan item.
	Problems []string
}

// ContactRow is one row of a contacts file.
type ContactRow struct {
	Line   int    // line on which the row starts (1-based, counting the header)
	Mobile string // as given, trimmed; not yet normalised
	Name   string // trimmed; "" when the file has no name column
	// Fields holds every column by lower-cased, trimmed header name (for
	// templates); nil when the file has no header.
	Fields map[string]string
	// Problem says why the row's shape is wrong (fewer columns than the
	// header, a non-empty extra column, text that is not UTF-8); "" when it
	// is right. Such a row is one more invalid row, named by its line: an
	// import skips it under --skip-invalid, a template send refuses it.
	Problem string
}

// CSVError is a problem in a CSV file, located by line and column.
type CSVError struct {
	File   string // file name, if the caller set it (see NameCSVError)
	Line   int    // line on which the offending record starts (a sheet's row)
	Sheet  string // the workbook's sheet, when the file is one
	Column string // column name or 1-based number; "" when the problem is the row's syntax
	Err    error
}

// Error reads like: pairs.csv line 12, column message: missing ….
func (e *CSVError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteByte(' ')
	}
	if e.Sheet != "" {
		b.WriteString("sheet ")
		b.WriteString(strconv.Quote(SanitizeLine(e.Sheet)))
		b.WriteString(" row ")
	} else {
		b.WriteString("line ")
	}
	b.WriteString(strconv.Itoa(e.Line))
	if e.Column != "" {
		b.WriteString(", column ")
		b.WriteString(e.Column)
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns the underlying error.
func (e *CSVError) Unwrap() error { return e.Err }

// NameCSVError sets File on a *CSVError inside err (for messages naming the
// file) and returns err.
func NameCSVError(err error, file string) error {
	var ce *CSVError
	if errors.As(err, &ce) {
		ce.File = file
	}
	return err
}

// Errors inside a CSVError, for errors.Is.
var (
	// ErrMissingColumn: a row has fewer columns than the file needs.
	ErrMissingColumn = errors.New("missing")
	// ErrExtraColumn: a row has a non-empty column the file does not have.
	ErrExtraColumn = errors.New("unexpected extra column")
	// ErrNotUTF8: a field holds bytes that are not UTF-8.
	ErrNotUTF8 = errors.New("not UTF-8 text; save the file as \"CSV UTF-8\" or \"Unicode text\"")
	// ErrHeader: the header row lacks a column the file needs.
	ErrHeader = errors.New("header")
	// ErrQuotes: quotes are misused, so the row cannot be read.
	ErrQuotes = errors.New("quotes")
)

// Column aliases, compared after foldHeader.
var (
	recipientAliases = []string{"mobile", "phone", "number", "to", "recipient", "cell",
		"mobilenumber", "phonenumber", "cellphone", "recipients", "mobiles", "tel", "telephone", "msisdn",
		"شماره", "موبایل", "تلفن", "همراه", "شمارهموبایل", "شمارههمراه", "تلفنهمراه", "گیرنده"}
	messageAliases = []string{"message", "text", "body", "sms", "msg", "پیام", "متن", "پیامک"}
	nameAliases    = []string{"name", "fullname", "نام", "نامونامخانوادگی"}
)

// ReadContacts streams a contacts file (mobile[,name]) and calls fn for each
// non-blank row; an error from fn stops reading and is returned as is. Without a
// header the columns are mobile, name (name optional); with one, mobile and name
// are found by name (see ReadPairs for the mobile aliases; name: name, نام) and
// every column is also given in Fields. A row of the wrong shape (too few
// columns, an extra one) comes with its Problem, not as an error: one short
// row does not sink the file.
func ReadContacts(r io.Reader, fn func(ContactRow) error) (err error) {
	t, err := openTable(r)
	if err != nil {
		return err
	}
	defer func() { err = t.close(t.named(err)) }()
	lay := contactsLayout{mobCol: 0, nameCol: 1, width: 2, names: []string{"mobile", "name"}}
	first := true
	for {
		rec, line, err := t.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if first {
			first = false
			isHeader, err := lay.header(rec, line)
			if err != nil {
				return err
			}
			if isHeader {
				continue
			}
		}
		if err := fn(lay.row(rec, line)); err != nil {
			return err
		}
	}
}

// contactsLayout is where a contacts file's columns are: mobile, name
// without a header; found by name with one, whose names (lower-cased) are
// then the keys of every row's Fields.
type contactsLayout struct {
	mobCol, nameCol, width int
	names                  []string
	keys                   []string // nil without a header
}

// header reads the file's first row rec as its header when it is one.
func (lay *contactsLayout) header(rec []string, line int) (bool, error) {
	hdr, err := findHeader(rec, line, recipientAliases, nameAliases, "mobile", "")
	if err != nil || hdr == nil {
		return false, err
	}
	lay.mobCol, lay.nameCol, lay.width = hdr.key, hdr.other, len(rec)
	lay.names = headerNames(rec)
	lay.keys = make([]string, len(rec))
	for i, n := range lay.names {
		lay.keys[i] = strings.ToLower(n)
	}
	return true, nil
}

// row is the contact on row rec, with its Problem when the row's shape is
// wrong (without a header the name is optional) and, under a header, every
// column in Fields (the first of two columns of one name).
func (lay *contactsLayout) row(rec []string, line int) ContactRow {
	need := lay.width
	if lay.keys == nil {
		need = 1 // the name is optional without a header
	}
	row := ContactRow{Line: line, Mobile: cell(rec, lay.mobCol), Name: cell(rec, lay.nameCol)}
	if err := checkRow(rec, line, need, lay.width, lay.names, lay.mobCol, lay.nameCol); err != nil {
		row.Problem = rowProblem(err)
	}
	if lay.keys != nil {
		row.Fields = make(map[string]string, len(lay.keys))
		for i, k := range lay.keys {
			if _, dup := row.Fields[k]; k != "" && !dup {
				row.Fields[k] = cell(rec, i)
			}
		}
	}
	return row
}

// cell is rec's column i trimmed, "" when the row is shorter (or i < 0).
func cell(rec []string, i int) string {
	if i < 0 || i >= len(rec) {
		return ""
	}
	return strings.TrimSpace(rec[i])
}

// rowProblem words a row's CSVError without its line (the row carries it).
func rowProblem(err error) string {
	var ce *CSVError
	if !errors.As(err, &ce) {
		return err.Error()
	}
	if ce.Column != "" {
		return "column " + ce.Column + ": " + ce.Err.Error()
	}
	return ce.Err.Error()
}

// header locates the columns a file needs in its header row.
type header struct {
	key   int // recipient or mobile column
	other int // message or name column; -1 if absent (names only)
}

// findHeader decides whether rec (the first row) is a header: it is when a cell
// matches a key alias. A first row with no digits at all whose cells match the
// other aliases is a header that lacks the key column: an error. otherName ""
// marks the other column optional.
func findHeader(rec []string, line int, keyAliases, otherAliases []string, keyName, otherName string) (*header, error) {
	h := header{key: -1, other: -1}
	digits := false
	for i, cell := range rec {
		f := foldHeader(cell)
		switch {
		case h.key < 0 && contains(keyAliases, f):
			h.key = i
		case h.other < 0 && contains(otherAliases, f):
			h.other = i
		}
		if strings.ContainsFunc(cell, isDigitRune) {
			digits = true
		}
	}
	if h.key < 0 {
		if h.other >= 0 && !digits {
			return nil, &CSVError{Line: line, Err: fmt.Errorf("%w: no %s column; name it one of %s", ErrHeader, keyName, strings.Join(keyAliases[:6], ", "))}
		}
		return nil, nil
	}
	if h.other < 0 && len(rec) == 2 {
		h.other = 1 - h.key // two columns: the other one
	}
	if h.other < 0 && otherName != "" {
		return nil, &CSVError{Line: line, Err: fmt.Errorf("%w: no %s column; name it one of %s", ErrHeader, otherName, strings.Join(otherAliases[:4], ", "))}
	}
	return &h, nil
}

// headerNames returns the trimmed header cells, numbering unnamed ones.
func headerNames(rec []string) []string {
	names := make([]string, len(rec))
	for i, c := range rec {
		names[i] = strings.TrimSpace(strings.TrimPrefix(c, "\ufeff"))
		if names[i] == "" {
			names[i] = strconv.Itoa(i + 1)
		}
	}
	return names
}

// checkRow verifies that rec has at least need and at most width columns
// (named by names; extra empty ones are fine) and UTF-8 text in the used
// columns a and b.
func checkRow(rec []string, line, need, width int, names []string, a, b int) error {
	if len(rec) < need {
		col := names[len(rec)]
		return &CSVError{Line: line, Column: col, Err: fmt.Errorf("%w: the row has %d of %d columns (%s); check the delimiter and that no field is cut short",
			ErrMissingColumn, len(rec), need, strings.Join(names[:need], ", "))}
	}
	for i := width; i < len(rec); i++ {
		if strings.TrimSpace(rec[i]) != "" {
			return &CSVError{Line: line, Column: strconv.Itoa(i + 1), Err: fmt.Errorf("%w: the row has %d columns, the file %d (%s); put a field that contains the delimiter in double quotes",
				ErrExtraColumn, len(rec), width, strings.Join(names[:width], ", "))}
		}
	}
	for _, i := range [2]int{a, b} {
		if i >= 0 && i < len(rec) && !utf8.ValidString(rec[i]) {
			return &CSVError{Line: line, Column: names[i], Err: ErrNotUTF8}
		}
	}
	return nil
}

// foldHeader normalises a header cell for alias matching: trimmed, lower-case,
// without BOM, spaces, underscores, dashes, dots and ZWNJ ("Mobile Number",
// "mobile_number" and "شماره‌موبایل" all match).
func foldHeader(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '_', '-', '.', '\u200c', '\ufeff', '\u00a0':
			return -1
		}
		return r
	}, s)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func isDigitRune(r rune) bool {
	return r >= '0' && r <= '9' || r >= '۰' && r <= '۹' || r >= '٠' && r <= '٩'
}

// table reads records from a decoded, delimiter-sniffed CSV stream.
type table struct {
	cr    *csv.Reader
	sheet *sheetRows // a workbook's sheet, read in place of cr
}

// next returns the next non-blank record and the line it starts on. The record
// is reused by the following call; its strings are not.
func (t *table) next() ([]string, int, error) {
	for {
		rec, line, err := t.read()
		if err != nil {
			return nil, 0, err
		}
		blank := true
		for _, f := range rec {
			if strings.TrimSpace(f) != "" {
				blank = false
				break
			}
		}
		if !blank {
			return rec, line, nil
		}
	}
}

// read is the next record, blank or not, and its line (a sheet's row).
func (t *table) read() ([]string, int, error) {
	if t.sheet != nil {
		return t.sheet.next()
	}
	rec, err := t.cr.Read()
	if err != nil {
		return nil, 0, t.explain(err)
	}
	line, _ := t.cr.FieldPos(0)
	return rec, line, nil
}

// close lets a sheet's workbook go (a read that stopped early), keeping
// err.
func (t *table) close(err error) error {
	if t.sheet != nil {
		_ = t.sheet.close() // its error says nothing of what was read
	}
	return err
}

// named puts the sheet's name on a CSVError a sheet's rows gave.
func (t *table) named(err error) error {
	var ce *CSVError
	if t != nil && t.sheet != nil && errors.As(err, &ce) && ce.Sheet == "" {
		ce.Sheet = t.sheet.name
	}
	return err
}

// explain turns encoding/csv's errors into CSVErrors that say what to fix.
func (t *table) explain(err error) error {
	if err == io.EOF {
		return err
	}
	var pe *csv.ParseError
	var ce0 *CSVError
	switch {
	case errors.As(err, &ce0), errors.Is(err, ErrInputTooLarge):
		return err
	case !errors.As(err, &pe):
		return fmt.Errorf("read CSV: %w", err)
	}
	ce := &CSVError{Line: pe.StartLine}
	at := ""
	if pe.Line != pe.StartLine {
		at = fmt.Sprintf(" (at line %d)", pe.Line)
	}
	switch {
	case errors.Is(pe.Err, csv.ErrBareQuote):
		ce.Err = fmt.Errorf("%w: a \" inside an unquoted field%s; put the whole field in double quotes and write each quote inside it twice (\"\")", ErrQuotes, at)
	case errors.Is(pe.Err, csv.ErrQuote):
		if _, err2 := t.cr.Read(); err2 == io.EOF {
			ce.Err = fmt.Errorf("%w: a quoted field starting on this line is never closed; add the closing \"", ErrQuotes)
		} else {
			ce.Err = fmt.Errorf("%w: text after the closing quote of a field%s; a quoted field must end with \" and then the delimiter or the end of the line (write \"\" for a quote inside it)", ErrQuotes, at)
		}
	default:
		ce.Err = fmt.Errorf("%w%s", pe.Err, at)
	}
	return ce
}
