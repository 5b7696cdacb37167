package config

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"runtime"

	"github.com/smsdesk/smsdesk/model"
)

// OptOutSpool holds an import's numbers between the read of its file and
// the write of them to the ledger, so that the ledger's transaction reads
// a local copy, never the import's input: a pipe that stalls while it is
// read holds no lock on the ledger (an import read inside its transaction
// held SQLite's write lock for as long as its pipe stayed open, and every
// send waited on it). A few numbers are kept in memory; past
// spoolInMemory they go to a temporary file in the state directory (0600),
// which is unlinked as soon as it is made where the system allows it (so a
// process killed, or stopped with ctrl+c, leaves nothing behind) and is
// removed by Close elsewhere. A number is a line of the spool: an
// OptOutKey's digits.
type OptOutSpool struct {
	dir   string
	limit int // bytes kept in memory before the spool spills to a file

	mem  bytes.Buffer // the numbers, one a line, until spilled
	file *os.File     // once spilled
	w    *bufio.Writer
	name string // the file's name while it has one (Windows)
	n    int
}

// spoolInMemory is how many bytes of numbers (about 75,000 numbers) an
// import keeps in memory before it spools them to a file: a million
// numbers are 13 MB on disk, and the import's memory stays that of its
// check (the numbers it has seen).
const spoolInMemory = 1 << 20

// NewOptOutSpool makes an empty spool whose file, if it needs one, goes in
// p's state directory. Close it.
func NewOptOutSpool(p Paths) *OptOutSpool {
	return &OptOutSpool{dir: p.StateDir, limit: spoolInMemory}
}

// Add keeps one number (an OptOutKey).
func (s *OptOutSpool) Add(mobile string) error {
	s.n++
	if s.file == nil && s.mem.Len()+len(mobile)+1 > s.limit {
		if err := s.spill(); err != nil {
			return err
		}
	}
	if s.file == nil {
		s.mem.WriteString(mobile)
		s.mem.WriteByte('\n')
		return nil
	}
	if _, err := s.w.WriteString(mobile); err != nil {
		return s.failed(err)
	}
	if err := s.w.WriteByte('\n'); err != nil {
		return s.failed(err)
	}
	return nil
}

// Len is how many numbers the spool holds.
func (s *OptOutSpool) Len() int { return s.n }

// Spilled reports whether the spool went to a file.
func (s *OptOutSpool) Spilled() bool { return s.file != nil }

// spill moves the numbers held in memory to a new temporary file.
func (s *OptOutSpool) spill() error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("spooling the import: %w", err)
	}
	f, err := os.CreateTemp(s.dir, ".optout-import-*")
	if err != nil {
		return fmt.Errorf("spooling the import in %s: %w", s.dir, err)
	}
	// CreateTemp makes it 0600 already; said again for a umask or a
	// system that does otherwise.
	if err := f.Chmod(0o600); err != nil && runtime.GOOS != "windows" {
		_ = f.Close()           // the error above is the one to report
		_ = os.Remove(f.Name()) // a leftover is harmless: the error above is the one to report
		return fmt.Errorf("spooling the import: %w", err)
	}
	if runtime.GOOS == "windows" {
		s.name = f.Name() // an open file is not removed there: Close does
	} else if err := os.Remove(f.Name()); err != nil {
		_ = f.Close() // the error above is the one to report
		return fmt.Errorf("spooling the import: %w", err)
	}
	s.file, s.w = f, bufio.NewWriterSize(f, 64<<10)
	if _, err := s.w.Write(s.mem.Bytes()); err != nil {
		return s.failed(err)
	}
	s.mem = bytes.Buffer{}
	return nil
}

func (s *OptOutSpool) failed(err error) error {
	return fmt.Errorf("spooling the import in %s: %w", s.dir, err)
}

// numbers yields every number in the order added, from the start each
// time it is ranged over (a transaction tried again reads them again).
func (s *OptOutSpool) numbers() iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		var r io.Reader = bytes.NewReader(s.mem.Bytes())
		if s.file != nil {
			if err := s.w.Flush(); err != nil {
				yield("", s.failed(err))
				return
			}
			r = io.NewSectionReader(s.file, 0, 1<<62)
		}
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			if !yield(sc.Text(), nil) {
				return
			}
		}
		if err := sc.Err(); err != nil {
			yield("", s.failed(err))
		}
	}
}

// entries is every number of the spool as an opt-out like entry.
func (s *OptOutSpool) entries(entry model.OptOut) iter.Seq2[model.OptOut, error] {
	return func(yield func(model.OptOut, error) bool) {
		for m, err := range s.numbers() {
			e := entry
			e.Mobile = m
			if !yield(e, err) || err != nil {
				return
			}
		}
	}
}

// Close drops the numbers and removes the spool's file (if it has one
// that is not gone already).
func (s *OptOutSpool) Close() error {
	s.mem = bytes.Buffer{}
	if s.file == nil {
		return nil
	}
	err := s.file.Close()
	if s.name != "" {
		if rerr := os.Remove(s.name); rerr != nil && !errors.Is(rerr, os.ErrNotExist) && err == nil {
			err = rerr
		}
	}
	s.file, s.w, s.name = nil, nil, ""
	return err
}
