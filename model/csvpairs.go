package model

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// PairsOptions tune ReadPairsWith.
type PairsOptions struct {
	// MessageColumn names the message column of the header when it is none of
	// the usual names (message, text, body, sms, msg, پیام, متن, پیامک). A file
	// read with it must have a header row, or Columns.
	MessageColumn string
	// NoHeader says the file has no header row and its columns are
	// recipient, message: the operator said so, and a second column that
	// reads like names is then taken as the messages all the same.
	NoHeader bool
	// Columns names a file's columns in order, as a header row would (the
	// file then has none): one of them a recipient name (mobile, to, …),
	// one a message name (or MessageColumn).
	Columns []string
}

// ErrNoMessageColumn: a pairs file's header names a recipient column but no
// message column, so it is most likely a contacts file (mobile,name,…). Its
// other columns are never taken as the message.
var ErrNoMessageColumn = errors.New("no message column")

// ErrLooksLikeContacts: a pairs file without a header row whose second
// column reads like names, the shape of a contacts export: sent as pairs,
// every recipient would get its own name as the text. It is read as pairs
// only when the operator says so (PairsOptions.NoHeader or Columns).
var ErrLooksLikeContacts = errors.New("looks like a contacts file")

// PairsLayout says how a pairs file was read: which columns hold the
// recipient and the message, and whether a header row or the operator said so.
type PairsLayout struct {
	Header bool // the file's first row named the columns
	Said   bool // the operator did (NoHeader or Columns)
	// Recipient and Message name the two columns as the header (or the
	// operator) named them; "" when nothing did.
	Recipient, Message string
	// RecipientAt and MessageAt are the columns' places, from 1.
	RecipientAt, MessageAt int
}

// String reads like `header row: column 1 "mobile" → recipient, column 3
// "text" → message` or `no header (as you said): column 1 → recipient,
// column 2 → message`.
func (l PairsLayout) String() string {
	col := func(at int, name string) string {
		if name == "" {
			return fmt.Sprintf("column %d", at)
		}
		return fmt.Sprintf("column %d %q", at, SanitizeLine(name))
	}
	how := "no header"
	switch {
	case l.Header:
		how = "header row"
	case l.Said && l.Recipient != "":
		how = "no header; columns as you named them"
	case l.Said:
		how = "no header (as you said)"
	}
	return fmt.Sprintf("%s: %s → recipient, %s → message", how, col(l.RecipientAt, l.Recipient), col(l.MessageAt, l.Message))
}

// ReadPairs streams a pairs file (recipient,message) and calls fn for each
// non-blank row; an error from fn stops reading and is returned as is. See
// readTable for the accepted formats. Without a header the columns are
// recipient, message; with one, they are found by name (recipient: mobile,
// phone, number, to, recipient, cell, شماره, موبایل; message: message, text,
// body, پیام). A header with a recipient column and no message column is
// refused (ErrNoMessageColumn), and so is a file without a header whose
// second column reads like names (ErrLooksLikeContacts): a contacts file must
// not send every person their own name. Problems come back as *CSVError.
func ReadPairs(r io.Reader, fn func(PairRow) error) error {
	_, err := ReadPairsWith(r, PairsOptions{}, fn)
	return err
}

// judgeRows is how many rows of a file without a header are looked at (and
// held back) before any goes to fn, to tell messages from names.
const judgeRows = 20

// ReadPairsWith is ReadPairs with options; it also says how the file's
// columns were read.
func ReadPairsWith(r io.Reader, opts PairsOptions, fn func(PairRow) error) (_ PairsLayout, err error) {
	pr := &pairsReader{lay: PairsLayout{RecipientAt: 1, MessageAt: 2, Said: opts.NoHeader || len(opts.Columns) > 0},
		recCol: 0, msgCol: 1, width: 2, names: []string{"recipient", "message"}, fn: fn}
	t, err := openTable(r)
	if err != nil {
		return pr.lay, err
	}
	defer func() { err = t.close(t.named(err)) }()
	if err := pr.named(opts); err != nil {
		return pr.lay, err
	}
	pr.judging = !pr.lay.Said // rows held back until they are known to be messages
	first := true
	for {
		rec, line, err := t.next()
		if err == io.EOF {
			return pr.lay, pr.release()
		}
		if err != nil {
			return pr.lay, err
		}
		if first && !pr.lay.Said {
			first = false
			isHeader, err := pr.header(rec, line, opts.MessageColumn)
			if err != nil {
				return pr.lay, err
			}
			if isHeader {
				continue
			}
		}
		if err := pr.take(rec, line); err != nil {
			return pr.lay, err
		}
	}
}

// pairsReader is ReadPairsWith's reading of one file: where its columns
// are, and the rows of a file without a header held back while judging
// whether its messages read like names.
type pairsReader struct {
	lay                   PairsLayout
	recCol, msgCol, width int
	names                 []string
	judging               bool
	held                  []PairRow
	fn                    func(PairRow) error
}

// named takes the columns as the operator named them, when they did.
func (pr *pairsReader) named(opts PairsOptions) error {
	if len(opts.Columns) > 0 {
		hdr, err := namedColumns(opts.Columns, opts.MessageColumn)
		if err != nil {
			return err
		}
		pr.recCol, pr.msgCol, pr.width = hdr.key, hdr.other, len(opts.Columns)
		pr.names = headerNames(opts.Columns)
		pr.lay.Recipient, pr.lay.Message = pr.names[pr.recCol], pr.names[pr.msgCol]
	}
	pr.lay.RecipientAt, pr.lay.MessageAt = pr.recCol+1, pr.msgCol+1
	return nil
}

// header reads the file's first row rec as its header when it is one: its
// columns are then found by name, and nothing is held back.
func (pr *pairsReader) header(rec []string, line int, column string) (bool, error) {
	hdr, err := pairsHeader(rec, line, column)
	if err != nil || hdr == nil {
		return false, err
	}
	pr.recCol, pr.msgCol, pr.width = hdr.key, hdr.other, len(rec)
	pr.names = headerNames(rec)
	pr.lay = PairsLayout{Header: true, Recipient: pr.names[pr.recCol], Message: pr.names[pr.msgCol], RecipientAt: pr.recCol + 1, MessageAt: pr.msgCol + 1}
	pr.judging = false
	return true, nil
}

// take checks row rec's shape and hands it to fn, or holds it back while
// judging (judged once judgeRows are held).
func (pr *pairsReader) take(rec []string, line int) error {
	if err := checkRow(rec, line, pr.width, pr.width, pr.names, pr.recCol, pr.msgCol); err != nil {
		return err
	}
	row := PairRow{Line: line, Recipient: strings.TrimSpace(rec[pr.recCol]), Message: strings.TrimSpace(rec[pr.msgCol])}
	if !pr.judging {
		return pr.fn(row)
	}
	if pr.held = append(pr.held, row); len(pr.held) == judgeRows {
		return pr.release()
	}
	return nil
}

// release judges the rows held back (refusing a file whose messages read
// like names) and hands them to fn.
func (pr *pairsReader) release() error {
	if pr.judging {
		pr.judging = false
		if err := looksLikeContacts(pr.held); err != nil {
			return err
		}
	}
	for _, row := range pr.held {
		if err := pr.fn(row); err != nil {
			return err
		}
	}
	pr.held = nil
	return nil
}

// namedColumns finds the recipient and message columns among the names the
// operator gave a file's columns.
func namedColumns(cols []string, column string) (*header, error) {
	hdr, err := pairsHeader(cols, 1, column)
	if err == nil && hdr != nil {
		return hdr, nil
	}
	msg := "message, text or body"
	if column != "" {
		msg = fmt.Sprintf("%q", SanitizeLine(column))
	}
	return nil, &CSVError{Line: 1, Err: fmt.Errorf("%w: the column names given (%s) need a recipient column (one of %s) and a message column (%s)",
		ErrHeader, SanitizeLine(strings.Join(headerNames(cols), ", ")), strings.Join(recipientAliases[:6], ", "), msg)}
}

// looksLikeContacts refuses rows (of a file without a header) whose
// messages read like names: more than half of them are name-shaped, and
// they are not one text for everyone ("Happy Nowruz" to all is a message).
func looksLikeContacts(rows []PairRow) error {
	var named []string // the first three, for the message
	shaped, distinct := 0, map[string]bool{}
	for _, r := range rows {
		if !nameShaped(r.Message) {
			continue
		}
		shaped++
		if !distinct[r.Message] && len(named) < 3 {
			named = append(named, SanitizeLine(r.Message))
		}
		distinct[r.Message] = true
	}
	if shaped*2 <= len(rows) || (len(distinct) < 2 && len(rows) > 1) {
		return nil
	}
	return &CSVError{Line: rows[0].Line, Err: fmt.Errorf("%w: no header row, and column 2 reads like names (%s), where each row's message should be",
		ErrLooksLikeContacts, strings.Join(named, ", "))}
}

// nameShaped reports whether s reads like a person's name rather than a
// message: one to four words of letters (a hyphen, an apostrophe or the
// Persian half-space inside), at most 40 characters, no digits and no
// punctuation that would end a sentence.
func nameShaped(s string) bool {
	s = strings.TrimSpace(s)
	words := strings.Fields(s)
	if len(words) == 0 || len(words) > 4 || utf8.RuneCountInString(s) > 40 {
		return false
	}
	for _, r := range s {
		switch {
		case unicode.IsLetter(r), unicode.IsMark(r), r == ' ', r == '\u200c', r == '-', r == '\'', r == '’':
		default:
			return false
		}
	}
	return true
}

// pairsHeader decides whether rec (a pairs file's first row) is a header and
// finds its recipient and message columns. The message column is one of
// messageAliases, or the column named column when given; a header without one
// is an error (ErrNoMessageColumn), never a guess.
func pairsHeader(rec []string, line int, column string) (*header, error) {
	want := foldHeader(column)
	h, digits := findPairsColumns(rec, want)
	cols := strings.Join(headerNames(rec), ", ")
	switch {
	case h.key < 0 && (h.other >= 0 || want != "") && !digits:
		return nil, &CSVError{Line: line, Err: fmt.Errorf("%w: no recipient column (the header has %s); name it one of %s", ErrHeader, cols, strings.Join(recipientAliases[:6], ", "))}
	case h.key < 0 && want != "":
		return nil, &CSVError{Line: line, Err: fmt.Errorf("%w: message column %q was asked for, but the file has no header row (line %d looks like data)", ErrHeader, column, line)}
	case h.key < 0:
		return nil, nil // no header: recipient, message
	case h.other < 0 && want != "":
		return nil, &CSVError{Line: line, Err: fmt.Errorf("%w: %w %q (the header has %s)", ErrHeader, ErrNoMessageColumn, column, cols)}
	case h.other < 0:
		return nil, &CSVError{Line: line, Err: fmt.Errorf("%w: %w: the header has %s and none of message, text or body; this looks like a contacts file, not a pairs file", ErrHeader, ErrNoMessageColumn, cols)}
	}
	return &h, nil
}

// findPairsColumns finds, among a first row's cells, the first message
// column (named want, folded, when given; else one of messageAliases) and
// the first recipient column (-1 each when none), and whether any cell
// holds a digit (a header does not).
func findPairsColumns(rec []string, want string) (h header, digits bool) {
	h = header{key: -1, other: -1}
	for i, cell := range rec {
		f := foldHeader(cell)
		isMessage := f == want
		if want == "" {
			isMessage = contains(messageAliases, f)
		}
		switch {
		case h.other < 0 && isMessage:
			h.other = i
		case h.key < 0 && contains(recipientAliases, f):
			h.key = i
		}
		if strings.ContainsFunc(cell, isDigitRune) {
			digits = true
		}
	}
	return h, digits
}
