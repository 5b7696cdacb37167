package model

import (
	"strings"
	"testing"
)

// TestGroupAndContactLimits: the service's field limits, counted in
// characters (not bytes) without the spaces around, at and over each.
func TestGroupAndContactLimits(t *testing.T) {
	fa := func(n int) string { return strings.Repeat("ف", n) } // two bytes a character
	for _, tt := range []struct {
		what, got, want string
	}{
		{"group name at the limit", GroupNameProblem(fa(MaxGroupName)), ""},
		{"group name with spaces around", GroupNameProblem("  " + fa(MaxGroupName) + "  "), ""},
		{"group name over", GroupNameProblem(fa(MaxGroupName + 1)), "group name is 101 characters; the service takes at most 100"},
		{"group name empty", GroupNameProblem(" \t"), "a group needs a name"},
		{"description at the limit", GroupDescriptionProblem(fa(MaxGroupDescription)), ""},
		{"description over", GroupDescriptionProblem(fa(MaxGroupDescription + 1)), "description is 256 characters; the service takes at most 255"},
		{"contact name at the limit", ContactNameProblem(fa(MaxContactName)), ""},
		{"contact name over", ContactNameProblem(fa(MaxContactName + 1)), "name is 256 characters; the service takes at most 255"},
		{"contact name of question marks", ContactNameProblem("????? ???"), "name: "},
		{"no contact name", ContactNameProblem(""), ""},
	} {
		if tt.want == "" && tt.got != "" || tt.want != "" && !strings.HasPrefix(tt.got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.what, tt.got, tt.want)
		}
	}
	for _, tt := range []struct {
		mobile string
		opts   ImportOptions
		want   string // the number, or the start of the problem
	}{
		{"۰۹۱۲ ۱۱۱ ۰۰۰۱", ImportOptions{}, "09121110001"},
		{"09121110001", ImportOptions{Format: FormatE164}, "+989121110001"},
		{"+14155550100", ImportOptions{}, "foreign number +14155550100"},
		{"+14155550100", ImportOptions{AllowInternational: true}, "+14155550100"},
		{"12345", ImportOptions{}, `mobile "12345": `},
	} {
		n, p := ContactMobileProblem(tt.mobile, tt.opts)
		if n+p == "" || !strings.HasPrefix(n+p, tt.want) || (n != "" && p != "") {
			t.Errorf("%q %+v: %q, %q; want %q", tt.mobile, tt.opts, n, p, tt.want)
		}
	}
}

func TestCounted(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "0 items"}, {1, "1 item"}, {2, "2 items"}, {1200, "1,200 items"}} {
		if got := Counted(tc.n, "item"); got != tc.want {
			t.Errorf("Counted(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
