package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// TestHistoryFilters: --limit, --status, --since and the profile filter
// (another profile sees none of these sends unless --all-profiles).
func TestHistoryFilters(t *testing.T) {
	e := newSendEnv(t, nil)
	for i, name := range []string{"a.csv", "b.csv"} {
		file := e.pairsFile(t, name, 3+i, nil)
		e.mustRun(t, 0, "send-pair", "--yes", "--allow-repeat", "--sender", sandbox.DefaultSender, "--file", file)
	}
	count := func(args ...string) int {
		t.Helper()
		out, _ := e.mustRun(t, 0, append([]string{"history", "--json"}, args...)...)
		var list []map[string]any
		if err := json.Unmarshal([]byte(out), &list); err != nil {
			t.Fatalf("history %v: %v\n%s", args, err, out)
		}
		return len(list)
	}
	cfg := filepath.Join(e.dir, "config", "config.toml")
	b, _ := os.ReadFile(cfg)
	if err := os.WriteFile(cfg, append(b, []byte("[profiles.other]\nrate_per_minute = 6000\n")...), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want int
	}{
		{nil, 2},
		{[]string{"--limit", "1"}, 1},
		{[]string{"--status", "complete"}, 2},
		{[]string{"--status", "interrupted"}, 0},
		{[]string{"--since", "1h"}, 2},
		{[]string{"--since", "2000-01-01"}, 2},
		{[]string{"--since", "2999-01-01"}, 0},
		{[]string{"--profile", "other"}, 0},
		{[]string{"--profile", "other", "--all-profiles"}, 2},
	} {
		if got := count(tt.args...); got != tt.want {
			t.Errorf("history %v: %d sends, want %d", tt.args, got, tt.want)
		}
	}
	for _, bad := range [][]string{{"--status", "nope"}, {"--since", "yesterday"}, {"--limit", "-1"}} {
		if code, _, _ := e.run(t, append([]string{"history"}, bad...)...); code != ExitUsage {
			t.Errorf("history %v: exit %d, want 2", bad, code)
		}
	}
	out, _ := e.mustRun(t, 0, "history")
	if !regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [A-Z+\-0-9]+`).MatchString(out) {
		t.Errorf("history's TIME has no zone:\n%s", out)
	}
}
