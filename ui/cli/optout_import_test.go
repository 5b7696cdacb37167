package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/config"
)

// TestOptOutImportIsOneRecord: a file of numbers is one import: one audit
// record with the file's name, its SHA-256 and the counts (not one record
// a number: a million numbers took minutes and a gigabyte that way), and a
// file refused for an invalid row adds nothing and records nothing.
func TestOptOutImportIsOneRecord(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	var file strings.Builder
	file.WriteString("mobile\n")
	for i := range 500 {
		fmt.Fprintf(&file, "0912%07d\n", i)
	}
	if _, errOut, code := w.run(file.String()+"0912\n", "optout", "import", "-"); code != ExitUsage || !strings.Contains(errOut, "stdin line 502: ") {
		t.Fatalf("a file with an invalid row: exit %d %q", code, errOut)
	}
	if trail, _ := config.ReadAudit(t.Context(), w.testPaths()); len(trail) != 0 {
		t.Fatalf("a refused import left %d audit records", len(trail))
	}
	mustRun(t, w, "optout", "add", "09120000007")
	out, _, code := w.run(file.String(), "optout", "import", "-", "--note", "panel export")
	if code != 0 || !strings.Contains(out, "499 added to the opt-out list (every line) from stdin; 1 already on it, 0 invalid") {
		t.Fatalf("import: exit %d %q", code, out)
	}
	trail, err := config.ReadAudit(t.Context(), w.testPaths())
	if err != nil || len(trail) != 2 {
		t.Fatalf("audit trail: %d records (%v), want the add and the import", len(trail), err)
	}
	sum := sha256.Sum256([]byte(file.String()))
	r := trail[1]
	if r.Action != "optout_import" || r.File != "stdin" || r.Digest != "sha256:"+hex.EncodeToString(sum[:]) || r.Note != "panel export" ||
		r.Counts["read"] != 500 || r.Counts["added"] != 499 || r.Counts["already"] != 1 || r.Counts["invalid"] != 0 || r.Profile != "default" {
		t.Errorf("the import's record: %+v", r)
	}
	if n, err := config.CountOptOuts(t.Context(), w.testPaths()); err != nil || n != 500 {
		t.Errorf("the list holds %d (%v), want 500", n, err)
	}
}
