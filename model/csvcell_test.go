package model

import "testing"

func TestCSVCell(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Ali", "Ali"},
		{"=HYPERLINK(\"http://x\",\"click\")", "'=HYPERLINK(\"http://x\",\"click\")"},
		{"+1+cmd|' /C calc'!A0", "'+1+cmd|' /C calc'!A0"},
		{"-2+3", "'-2+3"},
		{"@SUM(A1:A9)", "'@SUM(A1:A9)"},
		{"\t=1", "'\t=1"},
		{"\r=1", "'=1"}, // CR is a control: removed, then the = leads
		{"+989121234567", "+989121234567"},
		{"+98 912 123 4567", "+98 912 123 4567"},
		{"+98912abc", "'+98912abc"},
		{"09121234567", "09121234567"},
		{"سلام =1", "سلام =1"},
		{"\x1b[31m=red", "'=red"},
		{"", ""},
	} {
		if got := CSVCell(tc.in); got != tc.want {
			t.Errorf("CSVCell(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
