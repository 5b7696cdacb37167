package config

import (
	"errors"
	"fmt"
)

// ErrCorruptFile is matched by errors.Is for every *FileError.
var ErrCorruptFile = errors.New("corrupt file")

// FileError says that a file smsdesk keeps cannot be read, where, and how to
// recover. Nothing else is lost: each file stands alone.
type FileError struct {
	Path     string
	Line     int    // 1-based; 0 when unknown
	Problem  string // what is wrong, for people
	Recovery string // what to do next
	Err      error  // the underlying error; nil when its text could hold a secret
}

// Error says what is wrong and what to do next.
func (e *FileError) Error() string {
	loc := e.Path
	if e.Line > 0 {
		loc = fmt.Sprintf("%s, line %d", e.Path, e.Line)
	}
	msg := loc + ": " + e.Problem
	if e.Recovery != "" {
		msg += "; " + e.Recovery
	}
	return msg
}

// Unwrap returns the underlying error.
func (e *FileError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrCorruptFile) true.
func (e *FileError) Is(target error) bool { return target == ErrCorruptFile }

// lineOf returns the 1-based line of byte offset off in data.
func lineOf(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line := 1
	for _, b := range data[:off] {
		if b == '\n' {
			line++
		}
	}
	return line
}
