package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/model"
)

// delivered moves send id's items to states in the ledger, as the
// service's webhooks or a runner's polls do.
func (e *sendEnv) delivered(t *testing.T, id string, states map[int]model.DeliveryState) {
	t.Helper()
	l, err := ledger.Open(context.Background(), filepath.Join(e.env["SMSDESK_STATE_DIR"], ledger.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for idx, st := range states {
		if _, err := l.RecordPoll(context.Background(), ledger.Poll{SendID: id, Index: idx, State: st, At: time.Now(), Asked: true}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestHistoryReport: a send of four Persian messages, one delivered and
// one failed: its report as CSV, JSON and a workbook says so per
// recipient and counted by state; history show and history carry the
// counts; a workbook that is there is refused without --force.
func TestHistoryReport(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	out, _ := e.mustRun(t, 0, "send-pair", "--yes", "--json", "--sender", sandbox.DefaultSender, "--file", e.pairsFile(t, "pairs.csv", 4, nil))
	id := decodeReport(t, out).sendID()
	e.delivered(t, id, map[int]model.DeliveryState{0: model.DeliveryDelivered, 1: model.DeliveryFailed})

	out, _ = e.mustRun(t, 0, "history", "report", id, "--csv")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 5 || lines[0] != strings.Join(reportHeader, ",") {
		t.Fatalf("report --csv:\n%s", out)
	}
	for i, want := range []string{"delivered", "failed", "pending", "pending"} {
		cells := strings.Split(lines[i+1], ",")
		if len(cells) != len(reportHeader) || cells[0] != sandbox.DefaultSender || cells[1] != "0912000000"+string(rune('1'+i)) ||
			cells[4] != "1" || cells[5] != "accepted" || cells[6] != want || cells[7] == "" {
			t.Errorf("report --csv row %d: %q, want delivery %s", i, lines[i+1], want)
		}
	}

	out, _ = e.mustRun(t, 0, "history", "report", id, "--json")
	var rep reportJSON
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if c := rep.Delivery.DeliveryCounts; c != (model.DeliveryCounts{Messages: 4, Delivered: 1, Failed: 1, Pending: 2}) || rep.Delivery.Parts != 4 ||
		len(rep.Rows) != 4 || rep.Rows[0].Delivery == nil || *rep.Rows[0].Delivery != "delivered" || rep.Delivery.States[0].Share != 0.25 {
		t.Errorf("report --json: %+v", rep)
	}

	xlsx := filepath.Join(e.dir, "report.xlsx")
	if _, errOut := e.mustRun(t, 0, "history", "report", id, "--xlsx", xlsx); !strings.Contains(errOut, "4 recipient(s); 1 delivered (25%) · 1 failed (25%) · 2 pending (50%)") {
		t.Errorf("report --xlsx said %q", errOut)
	}
	checkWorkbook(t, xlsx, 4, true)
	if code, _, errOut := e.run(t, "history", "report", id, "--xlsx", xlsx); code != ExitUsage || !strings.Contains(errOut, "is there already") {
		t.Errorf("report --xlsx over a file: exit %d, %q; want refused", code, errOut)
	}
	e.mustRun(t, 0, "history", "report", id, "--xlsx", xlsx, "--force")
	for _, bad := range [][]string{{"--json", "--csv"}, {"--csv", "--xlsx", xlsx}, {"--force"}} {
		if code, _, _ := e.run(t, append([]string{"history", "report", id}, bad...)...); code != ExitUsage {
			t.Errorf("report %v: exit %d, want %d", bad, code, ExitUsage)
		}
	}

	out, _ = e.mustRun(t, 0, "history", "show", id, "--json")
	var show struct {
		Delivery model.DeliveryReport `json:"delivery"`
		Results  []sendResultJSON     `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &show); err != nil {
		t.Fatal(err)
	}
	if show.Delivery.Delivered != 1 || show.Delivery.Failed != 1 || len(show.Results) != 4 || show.Results[0].Delivery != "delivered" ||
		show.Results[1].Delivery != "failed" || show.Results[2].Delivery != "pending" {
		t.Errorf("history show --json: %+v %+v", show.Delivery.DeliveryCounts, show.Results)
	}
	if out, _ = e.mustRun(t, 0, "history", "show", id); !strings.Contains(out, "Delivery: 1 delivered (25%) · 1 failed (25%) · 2 pending (50%)") {
		t.Errorf("history show:\n%s", out)
	}
	if out, _ = e.mustRun(t, 0, "history"); !strings.Contains(out, "\t3000505\t1/4 delivered · 1 failed · 2 pending\t4\t4\t") {
		t.Errorf("history: %q", out)
	}
	out, _ = e.mustRun(t, 0, "history", "--json")
	var list []historyJSON
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 1 || list[0].Delivery.Pending != 2 {
		t.Errorf("history --json: %v %+v", err, list)
	}

	// Latin text: the sheet reads from the left.
	out, _ = e.mustRun(t, 0, "send-pair", "--yes", "--json", "--sender", sandbox.DefaultSender, "--to", "09121110000", "--message", "hello")
	latin := filepath.Join(e.dir, "latin.xlsx")
	e.mustRun(t, 0, "history", "report", decodeReport(t, out).sendID(), "--xlsx", latin)
	checkWorkbook(t, latin, 1, false)
}

// checkWorkbook opens a report's workbook: 0600, one sheet with the
// header and rows rows, a recipient's leading 0 kept, parts a number,
// right to left as rtl says.
func checkWorkbook(t *testing.T, path string, rows int, rtl bool) {
	t.Helper()
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("workbook: %v, mode %v; want 0600", err, fi.Mode())
	}
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if sheets := f.GetSheetList(); !slices.Equal(sheets, []string{reportSheet}) {
		t.Fatalf("sheets %v", sheets)
	}
	got, err := f.GetRows(reportSheet)
	if err != nil || len(got) != rows+1 || !slices.Equal(got[0], reportHeader) {
		t.Fatalf("rows %v, %v", got, err)
	}
	if !strings.HasPrefix(got[1][1], "09") {
		t.Errorf("recipient %q lost its 0", got[1][1])
	}
	if typ, err := f.GetCellType(reportSheet, "E2"); err != nil || typ != excelize.CellTypeUnset && typ != excelize.CellTypeNumber {
		t.Errorf("parts cell type %v, %v; want a number", typ, err)
	}
	view, err := f.GetSheetView(reportSheet, 0)
	if err != nil || view.RightToLeft == nil || *view.RightToLeft != rtl {
		t.Errorf("right to left %v, %v; want %v", view.RightToLeft, err, rtl)
	}
}
