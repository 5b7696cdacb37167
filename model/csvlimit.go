package model

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// Input bounds: a CSV line (a record, unless a quoted field spans lines) may
// hold at most MaxCSVLine bytes, and a file at most MaxCSVBytes. A message is
// at most 600 characters (1,200 bytes of Persian), so a real line is a few KiB
// at most and a 100,000-row plan well under the file bound; anything larger
// is not a contacts or pairs file (a device, a binary, a runaway export) and is
// refused early, in bounded memory, before it can fill it.
const (
	MaxCSVLine  = 64 << 10
	MaxCSVBytes = 256 << 20
)

// ErrInputTooLarge is returned when a CSV line or file passes the bounds.
var ErrInputTooLarge = errors.New("input too large")

// ErrNotCSV is returned for a file that is plainly not text: a workbook, a
// PDF, an archive, bytes that are not characters.
var ErrNotCSV = errors.New("not a CSV file")

// boundedReader fails once a line or the whole input passes the bounds.
type boundedReader struct {
	r     io.Reader
	total int64 // bytes read
	line  int   // bytes since the last newline
	lines int   // newlines seen
}

func (b *boundedReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	for rest := p[:n]; ; {
		i := bytes.IndexByte(rest, '\n')
		seg := len(rest)
		if i >= 0 {
			seg = i
		}
		if b.line += seg; b.line > MaxCSVLine {
			return 0, &CSVError{Line: b.lines + 1, Err: fmt.Errorf("%w: the line is longer than %d KiB (no line break in it): is this really a CSV file?", ErrInputTooLarge, MaxCSVLine>>10)}
		}
		if i < 0 {
			break
		}
		b.lines++
		b.line = 0
		rest = rest[i+1:]
	}
	if b.total += int64(n); b.total > MaxCSVBytes {
		return 0, fmt.Errorf("%w: the file is larger than %d MiB; split it into smaller files", ErrInputTooLarge, MaxCSVBytes>>20)
	}
	return n, err
}
