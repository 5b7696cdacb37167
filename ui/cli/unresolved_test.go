package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// TestUnresolvedSend: a send that ended with every recipient given a
// verdict, some of them unknown, is "unresolved" in history, not
// "complete" (complete false); --status unresolved lists it, and the
// README's --jq example for the sends that need a look finds it (issue 27
// item 7: history said "complete" and the example missed it).
func TestUnresolvedSend(t *testing.T) {
	t.Parallel()
	e := newSendEnvOpts(t, sandbox.Options{DropEvery: 2}, nil) // the second chunk's answer is lost
	file := e.pairsFile(t, "pairs.csv", 4, nil)
	code, out, _ := e.run(t, "send-pair", "--file", file, "--sender", sandbox.DefaultSender, "--yes", "--json", "--chunk-size", "2")
	rep := decodeReport(t, out)
	if code != ExitUnknown || rep.Counts.Unknown != 2 {
		t.Fatalf("send: exit %d, %+v", code, rep.Counts)
	}
	id := rep.sendID()
	out, _ = e.mustRun(t, 0, "history", "--json")
	var hist []historyJSON
	if err := json.Unmarshal([]byte(out), &hist); err != nil || len(hist) != 1 || hist[0].Status != "unresolved" || hist[0].Complete {
		t.Fatalf("history --json: %v\n%s", err, out)
	}
	if out, _ := e.mustRun(t, 0, "history"); !strings.Contains(out, "unresolved · 2 unknown") {
		t.Errorf("history:\n%s", out)
	}
	if out, _ := e.mustRun(t, 0, "history", "--status", "unresolved", "--json=id"); !strings.Contains(out, id) {
		t.Errorf("history --status unresolved:\n%s", out)
	}
	if out, _ := e.mustRun(t, 0, "history", "--status", "complete", "--json=id"); strings.Contains(out, id) {
		t.Errorf("history --status complete lists it:\n%s", out)
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`smsdesk history --json --jq '([^']+)'`).FindSubmatch(readme)
	if m == nil {
		t.Fatal("the README has no history --jq example")
	}
	if out, _ := e.mustRun(t, 0, "history", "--json", "--jq", string(m[1])); strings.TrimSpace(out) != id {
		t.Errorf("the README's example %s found %q, want %s", m[1], out, id)
	}
}
