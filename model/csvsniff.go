package model

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// sniffSize is how much of a file is examined for its encoding and delimiter.
const sniffSize = 64 << 10

// sniffRecords is how many records the delimiter sniffer compares.
const sniffRecords = 10

// delimiters are the candidates, in order of preference when the sample cannot
// tell them apart: comma, semicolon (Excel in many locales), tab (Excel's
// "Unicode text") and the Arabic semicolon U+061B.
var delimiters = [...]rune{',', ';', '\t', '؛'}

// openTable prepares a CSV stream: it detects the text encoding (UTF-8 with or
// without BOM; UTF-16 LE or BE with BOM, or without one when the text is
// plainly ASCII-range UTF-16) and the delimiter, and returns a reader that
// holds only a small buffer of the file at a time.
func openTable(r io.Reader) (*table, error) {
	sheet := ""
	if c, ok := r.(sheetChoice); ok {
		r, sheet = c.Reader, c.sheet
	}
	head := make([]byte, 4)
	n, err := io.ReadFull(r, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, fmt.Errorf("read CSV: %w", err)
	}
	head = head[:n]
	r = io.MultiReader(bytes.NewReader(head), r)
	if isWorkbook(head) {
		return openSheet(r, sheet)
	}
	br := bufio.NewReaderSize(&boundedReader{r: r}, sniffSize)
	if what := binaryKind(head); what != "" {
		return nil, &CSVError{Line: 1, Err: fmt.Errorf("%w: it is %s; save it as CSV (in Excel: File → Save As → CSV UTF-8) and use that file", ErrNotCSV, what)}
	}
	dr := decoded(br, head)
	sample, err := dr.Peek(sniffSize)
	if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, fmt.Errorf("read CSV: %w", err)
	}
	if i := bytes.IndexByte(sample, 0); i >= 0 {
		return nil, &CSVError{Line: 1 + bytes.Count(sample[:i], []byte{'\n'}), Err: fmt.Errorf("%w: it holds NUL bytes, so it is not text; save it as CSV (UTF-8) and use that file", ErrNotCSV)}
	}
	cr := csv.NewReader(dr)
	cr.Comma = sniffDelimiter(sample, len(sample) < sniffSize)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	return &table{cr: cr}, nil
}

// decoded reads br, whose first bytes are head, as UTF-8: past a UTF-8
// BOM, or through a UTF-16 decoder (little or big endian) when a BOM says so
// or the text is plainly ASCII-range UTF-16 (every other byte 0).
func decoded(br *bufio.Reader, head []byte) *bufio.Reader {
	var dec *encoding.Decoder
	switch {
	case bytes.HasPrefix(head, []byte{0xef, 0xbb, 0xbf}):
		_, _ = br.Discard(3)
	case bytes.HasPrefix(head, []byte{0xff, 0xfe}):
		dec = unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM).NewDecoder()
	case bytes.HasPrefix(head, []byte{0xfe, 0xff}):
		dec = unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM).NewDecoder()
	case len(head) == 4 && head[0] != 0 && head[1] == 0 && head[2] != 0 && head[3] == 0:
		dec = unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM).NewDecoder()
	case len(head) == 4 && head[0] == 0 && head[1] != 0 && head[2] == 0 && head[3] != 0:
		dec = unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM).NewDecoder()
	}
	if dec == nil {
		return br
	}
	return bufio.NewReaderSize(transform.NewReader(br, dec), sniffSize)
}

// binaryKind names the kind of file a head of 4 bytes starts, when it is a
// kind operators mistake for CSV; "" otherwise.
func binaryKind(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte{0xd0, 0xcf, 0x11, 0xe0}):
		return "an old Excel workbook (.xls)"
	case bytes.HasPrefix(head, []byte("%PDF")):
		return "a PDF document"
	}
	return ""
}

// sniffDelimiter picks the delimiter of a CSV sample. For each candidate it
// counts, per record (quotes respected), the delimiters outside quotes. A
// candidate scores for every record it splits into fields of which one looks
// like a phone number or a header alias, then for splitting every record into
// the same number of fields; ties go to the earlier candidate in delimiters.
// complete says the sample is the whole file (its last record is whole).
func sniffDelimiter(sample []byte, complete bool) rune {
	type score struct {
		plausible int
		counts    []int
	}
	var scores [len(delimiters)]score
	var fields [len(delimiters)][]string
	var cur [len(delimiters)][]byte
	inQuotes := false
	records := 0
	flush := func() {
		blank := true
		for d := range delimiters {
			fields[d] = append(fields[d], string(cur[d]))
			for _, f := range fields[d] {
				if len(bytes.TrimSpace([]byte(f))) > 0 {
					blank = false
				}
			}
		}
		if !blank {
			records++
			for d := range delimiters {
				scores[d].counts = append(scores[d].counts, len(fields[d])-1)
				for _, f := range fields[d] {
					if looksLikeNumber(f) || contains(recipientAliases, foldHeader(f)) {
						scores[d].plausible++
						break
					}
				}
			}
		}
		for d := range delimiters {
			fields[d], cur[d] = fields[d][:0], cur[d][:0]
		}
	}
	for i := 0; i < len(sample) && records < sniffRecords; {
		r, size := utf8.DecodeRune(sample[i:])
		if r == utf8.RuneError && size == 1 && !complete && len(sample)-i < utf8.UTFMax {
			break // a rune cut by the end of the sample
		}
		i += size
		switch {
		case r == '"':
			inQuotes = !inQuotes
		case r == '\n' && !inQuotes:
			flush()
			continue
		}
		for d, c := range delimiters {
			if r == c && !inQuotes {
				fields[d] = append(fields[d], string(cur[d]))
				cur[d] = cur[d][:0]
			} else {
				cur[d] = utf8.AppendRune(cur[d], r)
			}
		}
	}
	if complete && records < sniffRecords {
		flush()
	}
	best, bestKey := delimiters[0], -1
	for d, sc := range scores {
		used, same := false, true
		for _, n := range sc.counts {
			used = used || n > 0
			same = same && n == sc.counts[0]
		}
		if !used {
			continue
		}
		key := sc.plausible * 2
		if same {
			key++
		}
		if key > bestKey {
			best, bestKey = delimiters[d], key
		}
	}
	return best
}

// looksLikeNumber reports whether s is plausibly a phone number: at least seven
// digits (ASCII, Persian or Arabic-Indic) and otherwise only + and the usual
// separators.
func looksLikeNumber(s string) bool {
	digits := 0
	for _, r := range s {
		switch {
		case isDigitRune(r):
			digits++
		case r == '+' || r == ' ' || r == '-' || r == '(' || r == ')' || r == '.' || r == '\r' || isNumberSeparator(r):
		default:
			return false
		}
	}
	return digits >= 7
}
