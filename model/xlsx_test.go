package model

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

// workbook builds an .xlsx in memory: each sheet's rows by cell values
// (numbers stay numbers, as Excel keeps a mobile typed without its 0).
func workbook(t *testing.T, sheets ...sheetData) []byte {
	t.Helper()
	f := excelize.NewFile()
	defer func() { _ = f.Close() }()
	for i, s := range sheets {
		if i == 0 {
			if err := f.SetSheetName("Sheet1", s.name); err != nil {
				t.Fatal(err)
			}
		} else if _, err := f.NewSheet(s.name); err != nil {
			t.Fatal(err)
		}
		for r, row := range s.rows {
			for c, v := range row {
				cell, err := excelize.CoordinatesToCellName(c+1, r+1)
				if err != nil {
					t.Fatal(err)
				}
				if err := f.SetCellValue(s.name, cell, v); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	var b bytes.Buffer
	if err := f.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

type sheetData struct {
	name string
	rows [][]any
}

// TestContactsFromAWorkbook: a contacts sheet reads as its CSV would: the
// header's names, a mobile kept as a number (its 0 lost) and one in Persian
// digits both normalise, a blank row is skipped, rows are Excel's numbers.
func TestContactsFromAWorkbook(t *testing.T) {
	wb := workbook(t, sheetData{"مخاطبان", [][]any{
		{"نام", "موبایل"},
		{"علی", 9121234567},
		{},
		{"سارا", "۰۹۳۵۱۲۳۴۵۶۷"},
		{"Big", 989121234568},
	}})
	var got []ContactRow
	if err := ReadContacts(bytes.NewReader(wb), func(r ContactRow) error { got = append(got, r); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		line         int
		name, mobile string
	}{{2, "علی", "09121234567"}, {4, "سارا", "09351234567"}, {5, "Big", "09121234568"}}
	if len(got) != len(want) {
		t.Fatalf("rows %+v, want %d", got, len(want))
	}
	for i, w := range want {
		m, err := NormalizeMobile(got[i].Mobile, FormatLocal)
		if got[i].Line != w.line || got[i].Name != w.name || err != nil || m != w.mobile {
			t.Errorf("row %d: line %d name %q mobile %q (%q, %v); want line %d %q %q", i, got[i].Line, got[i].Name, got[i].Mobile, m, err, w.line, w.name, w.mobile)
		}
	}
}

// TestPairsFromANamedSheet: --sheet picks the sheet; a sheet not there is
// refused naming the sheets there are; a row's error names the sheet and
// the row.
func TestPairsFromANamedSheet(t *testing.T) {
	wb := workbook(t,
		sheetData{"notes", [][]any{{"nothing here"}}},
		sheetData{"send", [][]any{{"recipient", "message"}, {"09121234567", "سلام"}, {"9351234567", "درود"}}},
		sheetData{"bad", [][]any{{"recipient", "message"}, {"09121234567", "ok"}, {"09121234567"}}},
	)
	var got []PairRow
	if err := ReadPairs(WithSheet(bytes.NewReader(wb), "send"), func(r PairRow) error { got = append(got, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Message != "سلام" || got[1].Recipient != "9351234567" || got[1].Line != 3 {
		t.Errorf("pairs %+v", got)
	}

	err := ReadPairs(WithSheet(bytes.NewReader(wb), "Send me"), func(PairRow) error { return nil })
	if err == nil || !strings.Contains(err.Error(), `no sheet "Send me"`) || !strings.Contains(err.Error(), `"notes", "send", "bad"`) {
		t.Errorf("a sheet not there: %v", err)
	}

	err = ReadPairs(WithSheet(bytes.NewReader(wb), "bad"), func(PairRow) error { return nil })
	var ce *CSVError
	if !errors.As(err, &ce) || ce.Sheet != "bad" || ce.Line != 3 || !strings.HasPrefix(NameCSVError(err, "in.xlsx").Error(), `in.xlsx sheet "bad" row 3`) {
		t.Errorf("a short row: %v", err)
	}
}

// TestCellText: numbers Excel keeps in exponent form are written out whole;
// anything else is the cell as it is.
func TestCellText(t *testing.T) {
	for in, want := range map[string]string{
		"9.121234567E9": "9121234567", "9.121234567e+09": "9121234567", "1.5E0": "1.5E0",
		"Emad": "Emad", "09121234567": "09121234567", "E": "E", "": "",
	} {
		if got := cellText(in); got != want {
			t.Errorf("cellText(%q) = %q, want %q", in, got, want)
		}
	}
}
