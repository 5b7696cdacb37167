package cli

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
)

// TestSendCompletionReadsAPage: completing a send id offers the newest
// completeSendsLimit sends whose id begins with what is typed, read from
// the ledger's index: a tab press replayed every send ever made.
func TestSendCompletionReadsAPage(t *testing.T) {
	t.Parallel()
	w := newBenchWorld(t, ledgertest.Backends()[0])
	w.seed(t, completeSendsLimit+50)
	for _, tt := range []struct {
		typed       string
		n           int
		first, last string
	}{
		{"", completeSendsLimit, "seed-0000000", fmt.Sprintf("seed-%07d", completeSendsLimit-1)},
		{"seed-000014", 10, "seed-0000140", "seed-0000149"},
		{"seed-0000149", 1, "seed-0000149", "seed-0000149"},
		{"other", 0, "", ""},
	} {
		var out, errOut strings.Builder
		code := Main(context.Background(), []string{"__complete", "history", "show", tt.typed},
			Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, Getenv: func(k string) string { return w.env[k] }})
		if code != 0 {
			t.Fatalf("__complete history show %q: exit %d %s", tt.typed, code, errOut.String())
		}
		var ids []string
		for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			if id, _, _ := strings.Cut(l, "\t"); id != "" && !strings.HasPrefix(l, ":") {
				ids = append(ids, id)
			}
		}
		if len(ids) != tt.n || tt.n > 0 && (ids[0] != tt.first || ids[len(ids)-1] != tt.last) {
			t.Errorf("completing %q offers %d ids (%.40v…), want %d from %s to %s", tt.typed, len(ids), ids, tt.n, tt.first, tt.last)
		}
	}
}
