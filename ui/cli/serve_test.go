package cli

import (
	"strings"
	"testing"
)

// TestServeNeedsOperators: with nobody in the operators file nobody could
// sign in: serve refuses at once (exit 2) and says how to add one, before
// it listens or makes a host key.
func TestServeNeedsOperators(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	_, errOut := e.mustRun(t, ExitUsage, "serve", "--addr", "127.0.0.1:0")
	if !strings.Contains(errOut, "no operators yet") || !strings.Contains(errOut, "smsdesk operators add NAME") {
		t.Errorf("serve without operators: %s", errOut)
	}
	if strings.Contains(errOut, e.sb.Key()) {
		t.Error("the API key is in the output")
	}
	e.mustRun(t, ExitUsage, "serve", "--max-sessions", "0")
}
