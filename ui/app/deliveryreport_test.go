package app

import (
	"testing"

	"github.com/smsdesk/smsdesk/model"
)

// TestGroupOf: a report finds the group of a send to a group (its
// contacts' names) from the source GroupSource wrote, and none in a file's.
func TestGroupOf(t *testing.T) {
	for _, tc := range []struct {
		source string
		want   model.ID
		ok     bool
	}{
		{GroupSource("12", "").Name, "12", true},
		{GroupSource("12", "Newsletter").Name, "12", true},
		{GroupSource("7", "مشتریان (ویژه)").Name, "7", true},
		{FileSource("pairs.csv").Name, "", false},
		{"--to/--message", "", false},
		{"group", "", false},
	} {
		if got, ok := groupOf(tc.source); got != tc.want || ok != tc.ok {
			t.Errorf("groupOf(%q) = %q, %v; want %q, %v", tc.source, got, ok, tc.want, tc.ok)
		}
	}
}
