package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// writeWorkbook writes an .xlsx of sheets (name, rows) into dir. Mobiles
// go in as numbers where the rows say so: Excel keeps them without their 0.
func writeWorkbook(t *testing.T, path string, sheets map[string][][]any, order ...string) {
	t.Helper()
	f := excelize.NewFile()
	defer func() { _ = f.Close() }()
	for i, name := range order {
		if i == 0 {
			if err := f.SetSheetName("Sheet1", name); err != nil {
				t.Fatal(err)
			}
		} else if _, err := f.NewSheet(name); err != nil {
			t.Fatal(err)
		}
		for r, row := range sheets[name] {
			cell, err := excelize.CoordinatesToCellName(1, r+1)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.SetSheetRow(name, cell, &row); err != nil {
				t.Fatal(err)
			}
		}
	}
	var b bytes.Buffer
	if err := f.Write(&b); err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, b.String())
}

// TestWorkbooksReadAsTheirCSV (issue 42 §7): send-pair, contacts import and
// optout import read an .xlsx as they read CSV, the first sheet or --sheet's;
// a number kept as a number gets its 0 back; a sheet not there is refused
// naming those there are; --sheet without a file is a usage error; what a
// file is comes from its bytes (a CSV named .xlsx reads as CSV).
func TestWorkbooksReadAsTheirCSV(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	book := filepath.Join(e.dir, "campaign.xlsx")
	writeWorkbook(t, book, map[string][][]any{
		"contacts": {{"name", "mobile"}, {"Ali", 9121234567}, {"Sara", "۰۹۳۵۱۲۳۴۵۶۷"}},
		"pairs":    {{"recipient", "message"}, {9121234567, "سلام علی"}, {"09351234567", "درود سارا"}},
	}, "contacts", "pairs")

	out, _ := e.mustRun(t, 0, "send-pair", "--dry-run", "--sender", sandbox.DefaultSender, "--file", book, "--sheet", "pairs")
	for _, want := range []string{"09121234567", "سلام علی", "09351234567", "درود سارا"} {
		if !strings.Contains(out, want) {
			t.Errorf("the dry run of the pairs sheet lacks %q:\n%s", want, out)
		}
	}

	gid := strings.TrimSpace(func() string { o, _ := e.mustRun(t, 0, "groups", "create", "book"); return o }())
	before := e.sb.RequestsTo("POST", "/contacts")
	e.mustRun(t, 0, "contacts", "import", gid, book)
	if n := e.sb.RequestsTo("POST", "/contacts") - before; n != 2 {
		t.Errorf("the first sheet's import added %d contacts, want 2", n)
	}
	list, _ := e.mustRun(t, 0, "contacts", "list", gid)
	for _, want := range []string{"09121234567", "09351234567"} {
		if !strings.Contains(list, want) {
			t.Errorf("the imported contacts lack %s:\n%s", want, list)
		}
	}

	e.mustRun(t, 0, "optout", "import", book, "--sheet", "contacts")
	opted, _ := e.mustRun(t, 0, "optout", "list")
	if !strings.Contains(opted, "09121234567") || !strings.Contains(opted, "09351234567") {
		t.Errorf("the opt-out list after the sheet's import:\n%s", opted)
	}

	code, _, stderr := e.run(t, "send-pair", "--dry-run", "--sender", sandbox.DefaultSender, "--file", book, "--sheet", "Pairs 2")
	if code != ExitUsage || !strings.Contains(stderr, `no sheet "Pairs 2"`) || !strings.Contains(stderr, `"contacts", "pairs"`) {
		t.Errorf("a sheet not there: exit %d\n%s", code, stderr)
	}
	code, _, stderr = e.run(t, "send-pair", "--dry-run", "--to", "09121234567", "--message", "hi", "--sheet", "pairs")
	if code != ExitUsage || !strings.Contains(stderr, "--sheet names a sheet of --file's workbook") {
		t.Errorf("--sheet without --file: exit %d\n%s", code, stderr)
	}

	named := e.file(t, "really-a.csv.xlsx", "recipient,message\n09131234567,plain CSV\n")
	out, _ = e.mustRun(t, 0, "send-pair", "--dry-run", "--sender", sandbox.DefaultSender, "--file", named)
	if !strings.Contains(out, "plain CSV") {
		t.Errorf("a CSV named .xlsx:\n%s", out)
	}
}
