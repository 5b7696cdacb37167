package cli

import (
	"encoding/json"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// TestSendJSONTotals: send-pair --json fills totals (parts, cost) for a
// real send as for a dry run; a real send's were null.
func TestSendJSONTotals(t *testing.T) {
	w := newCLIWorld(t)
	for _, set := range [][]string{{"senders", sandbox.DefaultSender}, {"sender", sandbox.DefaultSender}, {"price_gsm7", "100"}, {"price_ucs2", "150"}} {
		if _, errOut, code := w.run("", "config", "set", set[0], set[1]); code != 0 {
			t.Fatal(errOut)
		}
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"dry run", []string{"--dry-run"}},
		{"send", []string{"--yes"}},
	} {
		args := append([]string{"send-pair", "--to", "09121234567", "--message", "hello", "--to", "09351234567", "--message", "سلام", "--json"}, tc.args...)
		out, errOut, code := w.run("", args...)
		var rep struct {
			Totals *struct {
				Recipients int    `json:"recipients"`
				Parts      int    `json:"parts"`
				CostRial   *int64 `json:"cost_rial"`
			} `json:"totals"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 {
			t.Fatalf("%s: exit %d %v\n%s\n%s", tc.name, code, err, out, errOut)
		}
		if rep.Totals == nil || rep.Totals.Recipients != 2 || rep.Totals.Parts != 2 || rep.Totals.CostRial == nil || *rep.Totals.CostRial != 250 {
			t.Errorf("%s: totals %+v\n%s", tc.name, rep.Totals, out)
		}
	}
}
