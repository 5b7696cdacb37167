package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// TestRepeatGuardIsTheAccounts: a second profile on the same service and
// key, its base URL spelled another way, is refused the pairs the first
// profile sent (exit 2, naming that send; nothing sent). The guard's scope
// is the account, not the profile (issue 27 item 5: it sent 20 of 20
// again without a word).
func TestRepeatGuardIsTheAccounts(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	delete(e.env, "SMSDESK_BASE_URL") // each profile's own spelling of it
	cfg := "active = \"default\"\n" +
		"[profiles.default]\nbase_url = \"" + e.base + "/api/v1\"\nrate_per_minute = 6000\nsender = \"" + sandbox.DefaultSender + "\"\n" +
		"[profiles.second]\nbase_url = \"" + e.base + "/api/\"\nrate_per_minute = 6000\nsender = \"" + sandbox.DefaultSender + "\"\n"
	if err := os.WriteFile(filepath.Join(e.env["SMSDESK_CONFIG_DIR"], "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	file := e.pairsFile(t, "pairs.csv", 20, nil)
	code, out, stderr := e.run(t, "send-pair", "--file", file, "--yes", "--json")
	if code != 0 {
		t.Fatalf("the first profile's send: exit %d\n%s", code, stderr)
	}
	rep := decodeReport(t, out)
	if code != 0 || rep.Counts.Accepted != 20 {
		t.Fatalf("the first profile's send: exit %d, %+v\n%s", code, rep.Counts, stderr)
	}
	code, _, stderr = e.run(t, "--profile", "second", "send-pair", "--file", file, "--yes")
	if code != ExitUsage || !strings.Contains(stderr, "20 of 20 pairs were already accepted") || !strings.Contains(stderr, rep.sendID()) {
		t.Errorf("the second profile's send: exit %d\n%s", code, stderr)
	}
	if n := len(e.sb.Sent()); n != 20 {
		t.Errorf("the service holds %d messages, want the first send's 20", n)
	}
}
