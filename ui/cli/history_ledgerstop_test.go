package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
)

// TestASendTheLedgerStoppedReadsStopped: a send whose journal write failed
// as its first chunk went (the ledger takes its end again, as after a
// connection the server ended) reads stopped, stop_cause ledger, with the
// write's error as why, in history --json and history show. It read
// interrupted with stopped, stop_cause and error all null (issue 39 §7.3;
// seen by hand with pg_terminate_backend mid-send).
func TestASendTheLedgerStoppedReadsStopped(t *testing.T) {
	for _, b := range ledgertest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			w := newCLIWorld(t)
			installed := w.failLedgerAtFirstChunk(t, b, ledgertest.FailRecordsButTheEnd)
			file := w.reminders(t, 6)
			_, errOut, code := w.run("", "send-pair", "--file", file, "--chunk-size", "2", "--sender", sandbox.DefaultSender, "--yes")
			if err := installed(); err != nil {
				t.Fatal(err)
			}
			if code == 0 || !strings.Contains(errOut, "(test)") {
				t.Fatalf("send-pair: exit %d, want the failed write named:\n%s", code, errOut)
			}
			out, errOut, code := w.run("", "history", "--json")
			var hist []historyJSON
			if err := json.Unmarshal([]byte(out), &hist); code != 0 || err != nil || len(hist) != 1 {
				t.Fatalf("history --json: exit %d, %v\n%s\n%s", code, err, out, errOut)
			}
			h := hist[0]
			if h.Status != "stopped" || h.StopCause == nil || *h.StopCause != "ledger" || h.Stopped == nil || !strings.Contains(*h.Stopped, "(test)") {
				t.Errorf("history --json: status %q, stop_cause %v, stopped %v; want stopped, ledger, the write's error\n%s", h.Status, h.StopCause, h.Stopped, out)
			}
			if h.Counts.Unknown != 2 || h.Counts.NotSent != 4 {
				t.Errorf("counts %+v, want the chunk in flight unknown and the rest not sent", h.Counts)
			}
			out, errOut, code = w.run("", "history", "show", h.ID)
			if code != 0 || !strings.Contains(out, "(stopped)") || !strings.Contains(out, "Stopped: a write to the ledger failed (") || strings.Contains(out, "the service refused") {
				t.Errorf("history show: exit %d\n%s\n%s", code, out, errOut)
			}
		})
	}
}
