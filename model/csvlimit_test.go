package model

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// zeros is /dev/zero: endless bytes, no line break.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// rows is an endless stream of short lines.
type rows struct{}

var rowBlock = []byte(strings.Repeat("09121234567,hello\n", 4096))

func (rows) Read(p []byte) (int, error) { return copy(p, rowBlock), nil }

func TestCSVInputIsBounded(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    io.Reader
		want string
	}{
		{"/dev/zero", zeros{}, "line 1: input too large: the line is longer than 64 KiB"},
		{"one 300 MB record", io.MultiReader(strings.NewReader("mobile,message\n09121234567,"), io.LimitReader(zeros{}, 300<<20)), "line 2: input too large: the line is longer than 64 KiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			n := 0
			err := ReadPairs(tc.r, func(PairRow) error { n++; return nil })
			if !errors.Is(err, ErrInputTooLarge) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v (after %d rows), want %q", err, n, tc.want)
			}
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("took %s", d)
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
