package cli

import (
	"bytes"
	"strings"
	"testing"
)

// testFactory is a factory over buffers, with no environment (no HOME:
// nothing found on this machine), for tests that build one command and
// call its run function, or its runF, without Main.
func testFactory(t *testing.T, env map[string]string) (f *Factory, out, errOut *bytes.Buffer) {
	t.Helper()
	out, errOut = &bytes.Buffer{}, &bytes.Buffer{}
	f = newFactory(nil, Env{Stdin: strings.NewReader(""), Stdout: out, Stderr: errOut, Getenv: func(k string) string { return env[k] }})
	return f, out, errOut
}
