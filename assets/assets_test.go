package assets

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/smsdesk/smsdesk/model"
)

func TestSeedIsValid(t *testing.T) {
	var s SeedData
	dec := json.NewDecoder(bytes.NewReader(Seed()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		t.Fatalf("seed.json: %v", err)
	}
	if len(s.Senders) == 0 {
		t.Error("seed.json: no sender lines")
	}
	if n := len(s.Groups); n < 3 || n > 4 {
		t.Errorf("seed.json: %d groups, want 3 or 4", n)
	}
	for _, g := range s.Groups {
		if g.Name == "" || utf8.RuneCountInString(g.Name) > 100 || utf8.RuneCountInString(g.Description) > 255 {
			t.Errorf("group %q: name must be 1..100 runes and description ≤255", g.Name)
		}
		if len(g.Contacts) == 0 && g.Generate == 0 {
			t.Errorf("group %q: no contacts", g.Name)
		}
		seen := map[string]bool{}
		for _, c := range g.Contacts {
			m, err := model.NormalizeMobile(c.Mobile, model.FormatLocal)
			if err != nil {
				t.Errorf("group %q contact %q: %v", g.Name, c.Name, err)
				continue
			}
			if seen[m] {
				t.Errorf("group %q: duplicate mobile %s", g.Name, m)
			}
			seen[m] = true
			if strings.HasSuffix(m, "0000") {
				t.Errorf("group %q: %s ends in 0000, which the sandbox always fails", g.Name, m)
			}
		}
	}
}

func TestSeedReturnsCopy(t *testing.T) {
	a := Seed()
	a[0] = 'X'
	if b := Seed(); b[0] == 'X' {
		t.Fatal("Seed shares its buffer with callers")
	}
}

func TestSamples(t *testing.T) {
	tests := []struct {
		name     string
		header   []string
		rows     int
		validate func(t *testing.T, row []string)
	}{
		{"pairs.csv", []string{"recipient", "message"}, 10, func(t *testing.T, row []string) {
			if _, err := model.NormalizeMobile(row[0], model.FormatLocal); err != nil {
				t.Errorf("pairs.csv: %v", err)
			}
			if n := utf8.RuneCountInString(row[1]); n == 0 || n > 600 {
				t.Errorf("pairs.csv: message of %d runes", n)
			}
		}},
		{"contacts.csv", []string{"mobile", "name"}, 8, func(t *testing.T, row []string) {
			if _, err := model.NormalizeMobile(row[0], model.FormatLocal); err != nil {
				t.Errorf("contacts.csv: %v", err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("samples", tt.name))
			if err != nil {
				t.Fatal(err)
			}
			recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			if len(recs) != tt.rows+1 {
				t.Fatalf("%s: %d records, want header + %d", tt.name, len(recs), tt.rows)
			}
			if strings.Join(recs[0], ",") != strings.Join(tt.header, ",") {
				t.Errorf("%s: header %v, want %v", tt.name, recs[0], tt.header)
			}
			for _, row := range recs[1:] {
				tt.validate(t, row)
			}
		})
	}
}
