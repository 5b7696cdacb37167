package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestContactsExportNotSentAsPairs: a spreadsheet export of number, name
// without a header, given to send-pair --file --yes, is refused before any
// request (exit 2, code input, naming the file and what it looks like);
// --no-header or --columns say it is pairs after all, and it is read so
// (issue 27 item 1: every recipient got its own first name as the text).
func TestContactsExportNotSentAsPairs(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	file := filepath.Join(w.dir, "export.csv")
	writeFile(t, file, "09121234567,Ali\n09351234567,Sara\n09901234567,Reza Karimi\n")
	before := w.srv.Requests()
	_, errOut, code := w.run("", "send-pair", "--file", file, "--sender", "3000505", "--yes")
	if code != ExitUsage || !strings.Contains(errOut, "export.csv line 1: looks like a contacts file: no header row, and column 2 reads like names (Ali, Sara, Reza Karimi)") ||
		!strings.Contains(errOut, "--no-header") {
		t.Fatalf("a contacts export as pairs: exit %d\n%s", code, errOut)
	}
	_, errOut, code = w.run("", "send-pair", "--file", file, "--sender", "3000505", "--yes", "--json")
	var refusal struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal([]byte(errOut), &refusal)
	if code != ExitUsage || refusal.Error.Code != "input" || w.srv.Requests() != before || len(w.srv.Sent()) != 0 {
		t.Fatalf("--json: exit %d, code %q, %d requests, %d sent; want 2, input and nothing asked\n%s", code, refusal.Error.Code, w.srv.Requests()-before, len(w.srv.Sent()), errOut)
	}
	_, errOut, code = w.run("", "send-pair", "--file", file, "--sender", "3000505", "--dry-run", "--no-header")
	if code != 0 || !strings.Contains(errOut, "export.csv: no header (as you said): column 1 → recipient, column 2 → message") {
		t.Fatalf("--no-header: exit %d\n%s", code, errOut)
	}
	_, errOut, code = w.run("", "send-pair", "--file", file, "--sender", "3000505", "--yes", "--columns", "mobile,message")
	if code != 0 || len(w.srv.Sent()) != 3 || w.srv.Sent()[0].Message != "Ali" || !strings.Contains(errOut, `column 1 "mobile" → recipient, column 2 "message" → message`) {
		t.Fatalf("--columns mobile,message: exit %d, %d sent\n%s", code, len(w.srv.Sent()), errOut)
	}
	for _, bad := range [][]string{
		{"--no-header", "--columns", "mobile,message"},
		{"--no-header", "--template", "Hi {name}"},
		{"--no-header", "--message-column", "x"},
	} {
		args := append([]string{"send-pair", "--file", file, "--sender", "3000505", "--dry-run"}, bad...)
		if _, errOut, code := w.run("", args...); code != ExitUsage {
			t.Errorf("%v: exit %d, want 2\n%s", bad, code, errOut)
		}
	}
}
