package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/itchyny/gojq"

	"github.com/smsdesk/smsdesk/model"
)

// jqFilter is --jq: a jq expression applied to a command's --json output
// (gh's --jq), run by gojq in-process.
type jqFilter struct {
	expr string
	code *gojq.Code
	out  io.Writer     // the real stdout
	buf  *bytes.Buffer // what the command printed, in place of stdout
}

// compileJQ checks --jq before the command runs, so that a typo costs no
// request.
func compileJQ(expr string) (*gojq.Code, error) {
	q, err := gojq.Parse(expr)
	if err != nil {
		return nil, usageError("--jq %q: %v", expr, err)
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return nil, usageError("--jq %q: %v", expr, err)
	}
	return code, nil
}

// run applies the filter to the JSON the command printed: a string result is
// printed raw (without control characters, escape sequences and bidi
// controls), anything else as compact JSON, one result a line.
func (f *jqFilter) run() error {
	if f.buf.Len() == 0 {
		return nil // the command printed nothing (its error went to stderr)
	}
	var v any
	dec := json.NewDecoder(f.buf)
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("--jq: the output is not JSON: %w", err)
	}
	iter := f.code.Run(normalizeNumbers(v))
	for {
		r, ok := iter.Next()
		if !ok {
			return nil
		}
		if err, isErr := r.(error); isErr {
			return withKind(ExitUsage, "usage", fmt.Errorf("--jq %q: %w", f.expr, err))
		}
		if s, isStr := r.(string); isStr {
			// Raw, as text for people is: a service's escape sequence in a
			// name must not reach the terminal (| @json keeps it, escaped).
			fmt.Fprintln(f.out, model.Sanitize(s))
			continue
		}
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		if _, err := f.out.Write(append(escapeControls(b), '\n')); err != nil {
			return err
		}
	}
}

// normalizeNumbers turns json.Number into int or float64, which gojq knows;
// ids longer than float64's 53 bits stay exact as ints.
func normalizeNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return int(i)
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalizeNumbers(e)
		}
	}
	return v
}
