package model

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// zeros is /dev/zero: endless bytes, no line break.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// letters is endless text without a line break.
type letters struct{}

func (letters) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// rows is an endless stream of short lines.
type rows struct{}

var rowBlock = []byte(strings.Repeat("09121234567,hello\n", 4096))

func (rows) Read(p []byte) (int, error) { return copy(p, rowBlock), nil }

func TestCSVInputIsBounded(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    io.Reader
		is   error
		want string
	}{
		{"/dev/zero", zeros{}, ErrNotCSV, "line 1: not a CSV file: it holds NUL bytes"},
		{"endless text", letters{}, ErrInputTooLarge, "line 1: input too large: the line is longer than 64 KiB"},
		{"one 300 MB record", io.MultiReader(strings.NewReader("mobile,message\n09121234567,"), io.LimitReader(letters{}, 300<<20)), ErrInputTooLarge, "line 2: input too large: the line is longer than 64 KiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &countingReader{r: tc.r}
			n := 0
			err := ReadPairs(r, func(PairRow) error { n++; return nil })
			if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v (after %d rows), want %q", err, n, tc.want)
			}
			// Bounded means it stopped reading: counted in bytes, not timed
			// (a 20 s limit stood here).
			t.Logf("read %d bytes", r.n)
			if r.n > 1<<20 {
				t.Errorf("read %d bytes before refusing, want at most 1 MiB", r.n)
			}
		})
	}
}

// A file past MaxCSVBytes is refused (read through the bound alone: parsing
// 15 million rows would cost the suite seconds).
func TestCSVFileSizeIsBounded(t *testing.T) {
	n, err := io.Copy(io.Discard, &boundedReader{r: rows{}})
	if !errors.Is(err, ErrInputTooLarge) || !strings.Contains(err.Error(), "larger than 256 MiB") || n > MaxCSVBytes {
		t.Fatalf("copied %d, err %v", n, err)
	}
}

// TestNotCSV: a workbook, a PDF or binary bytes named .csv are refused with
// what the file is and what to do, not read as rows of garbage.
func TestNotCSV(t *testing.T) {
	tests := []struct {
		name, in string
		want     string
		line     int
	}{
		{"a ZIP that is no workbook", "PK\x03\x04\x14\x00\x06\x00", "not an Excel workbook (.xlsx)", 1},
		{"xls", "\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "old Excel workbook (.xls)", 1},
		{"pdf", "%PDF-1.7\n", "PDF document", 1},
		{"NUL on line 2", "mobile,name\n0912\x001234567,Ali\n", "NUL bytes", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, read := range []func(string) error{
				func(s string) error { _, err := readAllContacts(t, s); return err },
				func(s string) error {
					return ReadPairs(strings.NewReader(s), func(PairRow) error { return nil })
				},
			} {
				err := read(tt.in)
				var ce *CSVError
				if !errors.Is(err, ErrNotCSV) || !errors.As(err, &ce) || ce.Line != tt.line || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("error %v; want ErrNotCSV naming %q at line %d", err, tt.want, tt.line)
				}
			}
		})
	}
	// UTF-16 has NUL bytes and is text: still read.
	rows, err := readAllContacts(t, "\xff\xfem\x00o\x00b\x00i\x00l\x00e\x00\n\x000\x009\x001\x002\x001\x002\x003\x004\x005\x006\x007\x00\n\x00")
	if err != nil || len(rows) != 1 {
		t.Fatalf("UTF-16: %v, %d rows; want 1 row", err, len(rows))
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
