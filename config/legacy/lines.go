package legacy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// eachLine calls fn with every line of data that is not blank, numbered from
// 1, and whether it ended in a newline (only the last may not). It stops at
// the first error fn returns.
func eachLine(data []byte, fn func(n int, line []byte, complete bool) error) error {
	for n := 1; len(data) > 0; n++ {
		line, rest, complete := bytes.Cut(data, []byte{'\n'})
		data = rest
		if t := bytes.TrimSpace(line); len(t) > 0 {
			if err := fn(n, t, complete); err != nil {
				return err
			}
		}
	}
	return nil
}

// lineAt is the 1-based line of byte offset off in data.
func lineAt(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return 1 + bytes.Count(data[:off], []byte{'\n'})
}

// jsonError is the line a JSON decoding error points at (0 when it names
// none) and its words.
func jsonError(data []byte, err error) (int, string) {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return lineAt(data, syn.Offset), "not valid JSON: " + err.Error()
	case errors.As(err, &typ):
		return lineAt(data, typ.Offset), err.Error()
	}
	return 0, err.Error()
}

// listFile is a versioned JSON file holding one list: an account's opt-outs
// (optouts.json) or its once-only ids (once.json).
type listFile struct {
	path    string // for errors
	key     string // the list's field: "optouts", "sends"
	version int    // the version the file store wrote
	what    string // for errors: "an opt-out list", …
	// empty says why a list that is null or missing is not read as empty.
	empty string
}

// read reads the file and calls fn with each element of its list and the
// line the element starts on.
func (f listFile) read(s *Snapshot, fn func(line int, raw json.RawMessage) error) error {
	data, err := s.readFile(f.path)
	if err != nil {
		return fmt.Errorf("reading %s %s: %w", f.what, f.path, err)
	}
	var head map[string]json.RawMessage
	if err := json.Unmarshal(data, &head); err != nil {
		n, problem := jsonError(data, err)
		return &Error{Path: f.path, Line: n, Problem: problem, Err: err}
	}
	var version int
	if err := json.Unmarshal(head["version"], &version); err != nil || version != f.version {
		return &Error{Path: f.path, Problem: fmt.Sprintf("format version %s, the file store wrote version %d", bytes.TrimSpace(head["version"]), f.version), Err: err}
	}
	if list := bytes.TrimSpace(head[f.key]); len(list) == 0 || string(list) == "null" {
		return &Error{Path: f.path, Problem: fmt.Sprintf("no %q list in it: %s", f.key, f.empty)}
	}
	return f.elements(data, fn)
}

// elements walks the file's list with a decoder, to know where each element
// starts.
func (f listFile) elements(data []byte, fn func(line int, raw json.RawMessage) error) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	bad := func(err error) error {
		return &Error{Path: f.path, Line: lineAt(data, dec.InputOffset()), Problem: err.Error(), Err: err}
	}
	if _, err := dec.Token(); err != nil { // {
		return bad(err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return bad(err)
		}
		if tok != f.key {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return bad(err)
			}
			continue
		}
		if d, err := dec.Token(); err != nil || d != json.Delim('[') {
			return &Error{Path: f.path, Line: lineAt(data, dec.InputOffset()), Problem: fmt.Sprintf("%q is not a list", f.key), Err: err}
		}
		for dec.More() {
			start := dec.InputOffset()
			for start < int64(len(data)) && bytes.IndexByte([]byte(" \t\r\n,"), data[start]) >= 0 {
				start++
			}
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return bad(err)
			}
			if err := fn(lineAt(data, start), raw); err != nil {
				return err
			}
		}
		return nil
	}
	return nil
}

// element decodes one element of the file's list into v; a field of the
// wrong type is an error naming the element's line.
func (f listFile) element(line int, raw json.RawMessage, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return &Error{Path: f.path, Line: line, Problem: err.Error(), Err: err}
	}
	return nil
}
