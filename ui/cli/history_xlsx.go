package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// reportSheet is the workbook's one sheet.
const reportSheet = "Delivery"

// writeXLSX writes the report to o.XLSX as a workbook: a header row, then
// one row per recipient through excelize's StreamWriter (100,000 rows
// without holding the sheet's XML), the sheet right to left when most
// messages are; parts a number, every other cell text (a recipient keeps
// its leading 0, and no cell is ever a formula). The file is made 0600
// beside where it goes and renamed there; one that is there already is
// refused unless --force.
func (o *historyReportOptions) writeXLSX(ctx context.Context, rep *app.SendReport, zone *time.Location) (err error) {
	path := o.XLSX
	shown := model.SanitizeLine(path)
	if _, err := os.Lstat(path); err == nil && !o.Force {
		return &ExitError{Code: ExitUsage, Kind: "usage", Err: fmt.Errorf("%s is there already", shown), Hint: "name a new file, or add --force to replace it"}
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("writing the report to %s: %w", shown, err)
	}
	f := excelize.NewFile()
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("writing the report to %s: %w", shown, cerr)
		}
	}()
	if err := fillReportSheet(ctx, f, rep, zone); err != nil {
		return fmt.Errorf("writing the report to %s: %w", shown, err)
	}
	if err := saveAtomically(f, path); err != nil {
		return fmt.Errorf("writing the report to %s: %w", shown, err)
	}
	printf(o.IO.ErrOut, "✓ Report of send %s written to %s: %s recipient(s); %s\n", rep.Entry.ID, shown,
		model.Thousands(int64(rep.Len())), deliverySummary(rep.Delivery.DeliveryCounts))
	return nil
}

// deliverySummary is the counts for a line, or that none was accepted.
func deliverySummary(c model.DeliveryCounts) string {
	if c.Messages == 0 {
		return "none accepted"
	}
	return deliveryShares(c)
}

// fillReportSheet writes the report into f's one sheet.
func fillReportSheet(ctx context.Context, f *excelize.File, rep *app.SendReport, zone *time.Location) error {
	if err := f.SetSheetName(f.GetSheetName(0), reportSheet); err != nil {
		return err
	}
	// The sheet's view is written as the stream starts: set it first.
	rtl := reportRightToLeft(rep.Entry.State.Items)
	if err := f.SetSheetView(reportSheet, 0, &excelize.ViewOptions{RightToLeft: &rtl}); err != nil {
		return err
	}
	sw, err := f.NewStreamWriter(reportSheet)
	if err != nil {
		return err
	}
	bold, err := f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}})
	if err != nil {
		return err
	}
	for i, w := range []float64{12, 14, 20, 48, 7, 12, 11, 20, 30} {
		if err := sw.SetColWidth(i+1, i+1, w); err != nil {
			return err
		}
	}
	if err := sw.SetPanes(&excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
		return err
	}
	head := make([]any, len(reportHeader))
	for i, h := range reportHeader {
		head[i] = excelize.Cell{StyleID: bold, Value: h}
	}
	if err := sw.SetRow("A1", head); err != nil {
		return err
	}
	row, next := make([]any, len(reportHeader)), 2
	err = rep.EachRow(ctx, func(r app.ReportRow) error { // written as made: the rows are never held
		for j, c := range reportRowCells(r, zone) {
			row[j] = model.SanitizeLine(c)
		}
		row[4] = r.Parts
		next++
		return sw.SetRow("A"+strconv.Itoa(next-1), row)
	})
	if err != nil {
		return err
	}
	return sw.Flush()
}

// reportRightToLeft reports whether most of the send's messages are
// right to left (Persian): the sheet then reads from the right.
func reportRightToLeft(items []model.SentItem) bool {
	n := 0
	for _, it := range items {
		if model.RightToLeft(it.Message) {
			n++
		}
	}
	return n*2 > len(items)
}

// saveAtomically writes f to a new 0600 file beside path and renames it
// to path: a reader never sees half a workbook, and a failed write leaves
// nothing behind.
func saveAtomically(f *excelize.File, path string) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".smsdesk-report-*.xlsx")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp.Name())
		}
	}()
	if err := tmp.Chmod(0o600); err != nil {
		_ = tmp.Close()
		return err
	}
	if _, err := f.WriteTo(tmp); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
