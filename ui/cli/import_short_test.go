package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/model"
)

// TestImportShortRowIsOneInvalidRow: a row with 1 of 2 columns is one more
// invalid row named by its line: refused with the others without
// --skip-invalid, skipped under it while the other rows are added (it used
// to stop the whole file with a usage error either way).
func TestImportShortRowIsOneInvalidRow(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	gid := strings.TrimSpace(mustRun(t, w, "groups", "create", "Short rows"))
	file := filepath.Join(w.dir, "short.csv")
	writeFile(t, file, "mobile,name\n09121111111,Ali\n09122222222\n09123333333,Sara\n")
	before := w.srv.Requests()
	_, errOut, code := w.run("", "contacts", "import", gid, file)
	if code != ExitUsage || !strings.Contains(errOut, "short.csv line 3: column name: missing: the row has 1 of 2 columns") {
		t.Fatalf("import without --skip-invalid: exit %d\n%s", code, errOut)
	}
	if w.srv.Requests() != before {
		t.Fatal("a refused import reached the service")
	}
	out, errOut, code := w.run("", "contacts", "import", gid, file, "--skip-invalid", "--json")
	var res struct {
		Counts map[string]int    `json:"counts"`
		Rows   []model.ImportRow `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("import --json: %v\n%s\n%s", err, out, errOut)
	}
	if code != ExitService || res.Counts["added"] != 2 || res.Counts["invalid"] != 1 || len(res.Rows) != 3 {
		t.Fatalf("import --skip-invalid: exit %d, %+v\n%s", code, res, errOut)
	}
	for _, r := range res.Rows {
		if r.Line == 3 && (r.Status != model.ImportInvalid || !strings.Contains(r.Error, "1 of 2 columns")) {
			t.Errorf("line 3: %+v, want invalid for its missing column", r)
		}
	}
}
