package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// calcFile is a file LibreOffice Calc 7.4 wrote (testdata/calc/README.md).
func calcFile(name string) string { return filepath.Join("testdata", "calc", name) }

// TestSpreadsheetExports: files as Calc exports them. The Unicode ones plan
// fine; the default export, which writes "?" for every Persian letter, is
// refused by line before anything goes, for a send and for an import.
func TestSpreadsheetExports(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	for _, f := range []string{"utf8-comma.csv", "utf8-semicolon.csv", "utf16-tab.txt"} {
		out, _ := e.mustRun(t, 0, "send-pair", "--dry-run", "--sender", sandbox.DefaultSender, "--file", calcFile(f))
		if !strings.Contains(out, "UCS-2") || !strings.Contains(out, "سلام مریم") {
			t.Errorf("%s: the dry run does not show the Persian text:\n%s", f, out)
		}
	}
	code, _, stderr := e.run(t, "send-pair", "--dry-run", "--sender", sandbox.DefaultSender, "--file", calcFile("question-marks.csv"))
	for _, want := range []string{"question-marks.csv line 2", "question-marks.csv line 3", "the text is question marks", "save it as CSV UTF-8"} {
		if code != ExitUsage || !strings.Contains(stderr, want) {
			t.Errorf("send-pair of Calc's ? export: exit %d, stderr lacks %q:\n%s", code, want, stderr)
		}
	}
	if strings.Contains(stderr, "line 4") {
		t.Errorf("the Latin row was refused too:\n%s", stderr)
	}

	gid := strings.TrimSpace(func() string { o, _ := e.mustRun(t, 0, "groups", "create", "calc"); return o }())
	before := e.sb.RequestsTo("POST", "/contacts")
	code, _, stderr = e.run(t, "contacts", "import", gid, calcFile("question-marks.csv"))
	if code != ExitUsage || !strings.Contains(stderr, "question-marks.csv line 2: name: the text is question marks") {
		t.Errorf("import of Calc's ? export: exit %d\n%s", code, stderr)
	}
	if n := e.sb.RequestsTo("POST", "/contacts") - before; n != 0 {
		t.Errorf("the refused import added %d contacts", n)
	}
	e.mustRun(t, 0, "contacts", "import", gid, calcFile("utf16-tab.txt"))
	if n := e.sb.RequestsTo("POST", "/contacts") - before; n != 3 {
		t.Errorf("the UTF-16 import made %d requests, want its 3 rows", n)
	}
}

// TestImportRefusesForeignNumbersFirst: a number outside Iran stops the
// import before the first contact is added, as send-pair refuses it; it
// was added row by row until the service refused it.
func TestImportRefusesForeignNumbersFirst(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	gid := strings.TrimSpace(func() string { o, _ := e.mustRun(t, 0, "groups", "create", "foreign"); return o }())
	file := filepath.Join(e.dir, "c.csv")
	writeFile(t, file, "mobile,name\n09121110001,Ali\n+14155550100,Bob\n09121110003,Sara\n")
	before := e.sb.RequestsTo("POST", "/contacts")
	code, _, stderr := e.run(t, "contacts", "import", gid, file)
	if code != ExitUsage || !strings.Contains(stderr, "c.csv line 3") || !strings.Contains(stderr, "+14155550100") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	if n := e.sb.RequestsTo("POST", "/contacts") - before; n != 0 {
		t.Errorf("%d contacts added before the refusal", n)
	}
}
