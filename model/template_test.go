package model

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestTemplateRender(t *testing.T) {
	vars := map[string]string{"name": "مریم", "mobile": "09121234567", "city": "Tehran", "کد": "۱۲۳", "empty": ""}
	tests := []struct {
		text, want string
		vars       []string
	}{
		{"", "", nil},
		{"no variables", "no variables", nil},
		{"سلام {name}", "سلام مریم", []string{"name"}},
		{"{Name} from { CITY }", "مریم from Tehran", []string{"name", "city"}},
		{"{name}{name}", "مریممریم", []string{"name"}},
		{"{{literal}} and {{{name}}}", "{literal} and {مریم}", []string{"name"}},
		{"a }} b {{", "a } b {", nil},
		{"کد شما: {کد}", "کد شما: ۱۲۳", []string{"کد"}},
		{"[{empty}]", "[]", []string{"empty"}},
		{"{mobile}\n{city}", "09121234567\nTehran", []string{"mobile", "city"}},
	}
	for _, tt := range tests {
		tp, err := ParseTemplate(tt.text)
		if err != nil {
			t.Errorf("ParseTemplate(%q): %v", tt.text, err)
			continue
		}
		if got := tp.Vars(); !reflect.DeepEqual(got, tt.vars) {
			t.Errorf("ParseTemplate(%q).Vars() = %q, want %q", tt.text, got, tt.vars)
		}
		got, err := tp.Render(vars)
		if err != nil || got != tt.want {
			t.Errorf("Render(%q) = %q, %v; want %q", tt.text, got, err, tt.want)
		}
		if tp.String() != tt.text {
			t.Errorf("String() = %q, want %q", tp.String(), tt.text)
		}
	}
}

func TestParseTemplateErrors(t *testing.T) {
	tests := []struct{ text, want string }{
		{"Hi {name", "the { at character 4 is not closed"},
		{"Hi {na{me}", "the { at character 4 is not closed"},
		{"Hi {name\n}", "the { at character 4 is not closed"},
		{"سلام {نام", "the { at character 6 is not closed"},
		{"Hi name}", "a lone } at character 8"},
		{"Hi {}", "empty {} at character 4"},
		{"Hi {  }", "empty {} at character 4"},
		{"{", "the { at character 1 is not closed"},
	}
	for _, tt := range tests {
		_, err := ParseTemplate(tt.text)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseTemplate(%q) error = %v, want %q", tt.text, err, tt.want)
		}
	}
}

func TestTemplateMissingVariable(t *testing.T) {
	tp, err := ParseTemplate("Hi {name}, your code is {code}")
	if err != nil {
		t.Fatal(err)
	}
	_, err = tp.Render(map[string]string{"name": "Ali"})
	if !errors.Is(err, ErrMissingVariable) || !strings.Contains(err.Error(), "{code}") {
		t.Errorf("Render error = %v, want a missing {code}", err)
	}
	vars := tp.Vars()
	vars[0] = "changed"
	if tp.Vars()[0] != "name" {
		t.Error("Vars returns the template's own slice")
	}
}

func TestPairsFromTemplate(t *testing.T) {
	var contacts []ContactRow
	err := ReadContacts(strings.NewReader("نام,موبایل,city,code\nمریم,09121234567,Shiraz,11\nAli,0913 123 4567,,22\n"), func(r ContactRow) error {
		contacts = append(contacts, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	tp, _ := ParseTemplate("سلام {name} ({mobile}) از {City}، کد {code}")
	pairs, err := PairsFromTemplate(tp, contacts)
	if err != nil {
		t.Fatal(err)
	}
	want := []PairRow{
		{2, "09121234567", "سلام مریم (09121234567) از Shiraz، کد 11", nil},
		{3, "0913 123 4567", "سلام Ali (0913 123 4567) از ، کد 22", []string{EmptyVariableProblem("city")}},
	}
	if !reflect.DeepEqual(pairs, want) {
		t.Errorf("pairs = %+v\nwant %+v", pairs, want)
	}

	// Without a header only name and mobile exist.
	plain := []ContactRow{{Line: 1, Mobile: "09121234567", Name: "Ali"}, {Line: 2, Mobile: "09131234567"}}
	tp, _ = ParseTemplate("{name}: {code}")
	_, err = PairsFromTemplate(tp, plain)
	var ce *CSVError
	if !errors.As(err, &ce) || ce.Line != 1 || !errors.Is(err, ErrMissingVariable) {
		t.Fatalf("error = %v, want line 1 missing {code}", err)
	}
	if want := "line 1: missing variable {code}; the file has {mobile}, {name}"; err.Error() != want {
		t.Errorf("error = %q\nwant    %q", err, want)
	}

	tp, _ = ParseTemplate("{name} {mobile}")
	pairs, err = PairsFromTemplate(tp, plain)
	if err != nil || pairs[1].Message != " 09131234567" {
		t.Errorf("name/mobile always available: %+v, %v", pairs, err)
	}

	// A row that lacks a column another row has is named by its line.
	mixed := []ContactRow{
		{Line: 2, Mobile: "09121234567", Fields: map[string]string{"mobile": "09121234567", "city": "Qom"}},
		{Line: 7, Mobile: "09131234567", Fields: map[string]string{"mobile": "09131234567", "age": "3"}},
	}
	tp, _ = ParseTemplate("{city}")
	_, err = PairsFromTemplate(tp, mixed)
	if want := "line 7: missing variable {city}; the file has {mobile}, {name}, {age}"; err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant    %s", err, want)
	}
}

func TestTemplateFallback(t *testing.T) {
	vars := map[string]string{"name": "", "city": "  ", "code": "42"}
	tests := []struct {
		text, want string
		empty      []string
	}{
		{"Hi {name|friend}, code {code}", "Hi friend, code 42", nil},
		{"Hi {name | dear friend }", "Hi dear friend", nil},
		{"Hi {name|}!", "Hi !", nil},                                         // an empty fallback is a choice
		{"Hi {name}, from {city}", "Hi , from   ", []string{"name", "city"}}, // reported, never silent
		{"{name}{name}", "", []string{"name"}},
		{"{code|0000}", "42", nil},
		{"{name|a|b}", "a|b", nil},
		{"{{name|x}}", "{name|x}", nil},
	}
	for _, tt := range tests {
		tp, err := ParseTemplate(tt.text)
		if err != nil {
			t.Fatalf("ParseTemplate(%q): %v", tt.text, err)
		}
		got, empty, err := tp.Fill(vars)
		if err != nil || got != tt.want || !reflect.DeepEqual(empty, tt.empty) {
			t.Errorf("Fill(%q) = %q, %q, %v; want %q, %q", tt.text, got, empty, err, tt.want, tt.empty)
		}
	}
	tp, _ := ParseTemplate("{nmae|friend}")
	if _, _, err := tp.Fill(vars); !errors.Is(err, ErrMissingVariable) {
		t.Errorf("a fallback does not hide a column that does not exist: %v", err)
	}
	if _, err := ParseTemplate("{|friend}"); err == nil {
		t.Error("{|friend} has no variable name and must be refused")
	}
}

func TestPairsFromTemplateEmptyVariable(t *testing.T) {
	contacts := []ContactRow{
		{Line: 1, Mobile: "09121234567", Name: "Ali"},
		{Line: 2, Mobile: "09131234567"},
		{Line: 3, Mobile: "09141234567", Name: "  "},
	}
	tp, _ := ParseTemplate("Hi {name}, welcome")
	rows, err := PairsFromTemplate(tp, contacts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows[0].Problems) != 0 || len(rows[1].Problems) != 1 || len(rows[2].Problems) != 1 {
		t.Fatalf("problems: %+v", rows)
	}
	plan := BuildPlan("3000505", rows, PlanOptions{})
	bad := plan.Invalid()
	if len(bad) != 2 || bad[0].Line != 2 || bad[1].Line != 3 || !strings.Contains(bad[0].Problems[0], "empty {name}") ||
		!strings.Contains(bad[0].Problems[0], "{name|friend}") {
		t.Fatalf("plan problems: %+v", bad)
	}
	tp, _ = ParseTemplate("Hi {name|friend}, welcome")
	rows, _ = PairsFromTemplate(tp, contacts)
	plan = BuildPlan("3000505", rows, PlanOptions{})
	if !plan.OK() || plan.Items[1].Message != "Hi friend, welcome" {
		t.Fatalf("with a fallback: %+v", plan.Items)
	}
}
