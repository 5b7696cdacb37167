package app

import (
	"testing"

	"github.com/smsdesk/smsdesk/model"
)

// TestGroupSource: a send's source names the group once, by id alone when
// its name is the one tracking by id gives it ("group 1"; the confirmation
// said "Source: group group 1 (1)").
func TestGroupSource(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		id         model.ID
		name, want string
	}{
		{"1", "", "group 1"},
		{"1", "group 1", "group 1"},
		{"4", "Newsletter", "group Newsletter (4)"},
		{"2", "group 1", "group group 1 (2)"},
		{"5", "a\x1b[2Jb", "group ab (5)"},
	} {
		if got := GroupSource(tc.id, tc.name).Name; got != tc.want {
			t.Errorf("GroupSource(%q, %q) = %q, want %q", tc.id, tc.name, got, tc.want)
		}
	}
}
