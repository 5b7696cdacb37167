package model

import "strings"

// CSVCell makes a cell of a CSV file smsdesk writes safe to open in a
// spreadsheet: a cell starting with = + - @, a tab or a carriage return
// would be read as a formula (=HYPERLINK(…), +1+cmd|…, @SUM(…)), so it gets
// a leading apostrophe, as OWASP advises. A plain phone number (+989…, digits
// and spaces only) is left alone: a spreadsheet reads it as a number, which
// runs nothing, and smsdesk's own import keeps reading it. Control
// characters are removed (Sanitize) and line breaks kept, quoted by the CSV
// writer.
func CSVCell(s string) string {
	s = Sanitize(s)
	if s == "" || !strings.ContainsRune("=+-@\t\r", rune(s[0])) || plainNumber(s) {
		return s
	}
	return "'" + s
}

// plainNumber reports "+" then only digits and spaces (a phone number).
func plainNumber(s string) bool {
	if len(s) < 2 || s[0] != '+' {
		return false
	}
	for _, c := range s[1:] {
		if c != ' ' && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// CSVRow applies CSVCell to every cell of a record, in place.
func CSVRow(rec []string) []string {
	for i, c := range rec {
		rec[i] = CSVCell(c)
	}
	return rec
}
