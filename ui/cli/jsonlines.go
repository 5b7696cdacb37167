package cli

import "io"

// jsonLines writes JSON Lines: one compact object a line, each written as
// soon as it is decided, controls escaped as printJSON escapes them. A big
// job's output then streams instead of arriving as one document at the end
// (a 20,000-row import's --json is 2.9 MB at once).
type jsonLines struct {
	w   io.Writer
	err error // the first write that failed; later lines are dropped
}

// emit writes v as one line.
func (j *jsonLines) emit(v any) {
	if j.err != nil {
		return
	}
	b, err := marshalJSON(v)
	if err != nil {
		j.err = err
		return
	}
	_, j.err = j.w.Write(append(escapeControls(b), '\n'))
}
