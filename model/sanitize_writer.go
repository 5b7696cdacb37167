package model

import (
	"io"
	"sync"
	"unicode/utf8"
)

// SanitizingWriter writes everything through Sanitize (and RedactURLs: a
// URL's user name and password never reach the terminal): whatever a caller
// prints — a service's message, a file's name, a row's text — reaches the
// terminal without escape sequences, control characters (but newline and
// tab) or bidi overrides, so that one forgotten call cannot put a service's
// escape sequence on the operator's terminal. A UTF-8 sequence cut between
// two writes is held back until the next, so Persian text split by a writer
// stays whole. Output for programs (JSON) and deliberate terminal control
// (a progress bar's carriage return) must use the writer underneath.
//
// It is safe for concurrent use (a send's progress, its retry notices and
// the stop message share stderr): writes go through one at a time.
type SanitizingWriter struct {
	mu   sync.Mutex
	w    io.Writer
	tail []byte // an incomplete UTF-8 sequence from the last write
}

// NewSanitizingWriter wraps w.
func NewSanitizingWriter(w io.Writer) *SanitizingWriter { return &SanitizingWriter{w: w} }

// Write sanitises p and writes it; it reports len(p) when the write
// underneath succeeds.
func (s *SanitizingWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	buf := append(s.tail, p...)
	s.tail = nil
	if cut := incompleteTail(buf); cut > 0 {
		s.tail = append([]byte(nil), buf[len(buf)-cut:]...)
		buf = buf[:len(buf)-cut]
	}
	if _, err := io.WriteString(s.w, RedactURLs(Sanitize(string(buf)))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// incompleteTail is how many bytes at the end of b begin a UTF-8 sequence
// that is not finished yet (0 when b ends whole).
func incompleteTail(b []byte) int {
	for n := 1; n <= utf8.UTFMax-1 && n <= len(b); n++ {
		c := b[len(b)-n]
		if c < utf8.RuneSelf {
			return 0 // ASCII ends it
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(b[len(b)-n:]) {
				return n
			}
			return 0
		}
	}
	return 0
}
