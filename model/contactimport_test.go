package model

import (
	"strings"
	"testing"
)

func TestPreviewImport(t *testing.T) {
	rows := []ContactRow{
		{Line: 2, Mobile: "09121111111", Name: "Ali"},
		{Line: 3, Mobile: "not-a-number", Name: "Bad"},
		{Line: 4, Mobile: "+98 912 111 1111", Name: "Dup"},
		{Line: 5, Mobile: "09122222222", Name: strings.Repeat("ن", MaxContactName+1)},
		{Line: 6, Mobile: "09123333333", Name: "Already"},
		{Line: 7, Mobile: "09124444444", Name: strings.Repeat("ن", MaxContactName)},
		{Line: 8, Mobile: "09125555555", Problem: "column name: missing: the row has 1 of 2 columns"},
	}
	p := PreviewImport(rows, ImportOptions{Format: FormatLocal}, []string{"+989123333333"})
	lines := func(rs []ImportRow) (out []int) {
		for _, r := range rs {
			out = append(out, r.Line)
		}
		return out
	}
	if got := lines(p.Valid); len(got) != 2 || got[0] != 2 || got[1] != 7 {
		t.Errorf("valid lines %v, want [2 7]", got)
	}
	if got := lines(p.Already); len(got) != 1 || got[0] != 6 || p.Already[0].Error != AlreadyInGroup || p.Already[0].Status != ImportSkipped {
		t.Errorf("already %+v, want line 6 skipped", p.Already)
	}
	want := map[int]string{3: "letter", 4: "duplicate of line 2", 5: "at most 255", 8: "1 of 2 columns"}
	if len(p.Invalid) != len(want) {
		t.Fatalf("invalid %+v, want lines 3, 4, 5, 8", p.Invalid)
	}
	for _, r := range p.Invalid {
		if !strings.Contains(r.Error, want[r.Line]) || r.Status != ImportInvalid {
			t.Errorf("line %d: %q, want it to say %q", r.Line, r.Error, want[r.Line])
		}
	}
	if p.Total() != len(rows) || p.Valid[0].Mobile != "09121111111" {
		t.Errorf("total %d, first valid %+v", p.Total(), p.Valid[0])
	}
}
