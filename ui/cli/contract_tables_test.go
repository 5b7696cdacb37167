package cli

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// TestTablesToAPipeAreTabSeparated: when stdout is not a terminal, every
// table is rows of cells separated by one tab, without a header or padding
// (gh's rule), so that a script can cut -f them; a tab inside a cell is a
// space. On a terminal the same tables have a header and aligned columns.
func TestTablesToAPipeAreTabSeparated(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	gid := strings.TrimSpace(mustRun(t, w, "groups", "create", "Spring\tcampaign"))
	id := strings.TrimSpace(mustRun(t, w, "contacts", "add", gid, "09121234567", "--name", "Sara\tAhmadi"))
	for _, tt := range []struct {
		args   []string
		want   string // one whole row
		header string // the terminal's header begins so
	}{
		{[]string{"groups", "list"}, gid + "\tSpring campaign\t", "ID  "},
		{[]string{"contacts", "list", gid}, id + "\tSara Ahmadi\t09121234567", "ID  "},
		{[]string{"config", "get"}, "chunk_size\t100\tdefault", "SETTING  "},
		{[]string{"config", "path"}, "config file\t" + w.env["SMSDESK_CONFIG_DIR"], "WHAT  "},
	} {
		out := mustRun(t, w, tt.args...)
		rows := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		found := false
		for _, r := range rows {
			found = found || r == tt.want || strings.HasPrefix(r, tt.want)
			if strings.Contains(r, "  ") || strings.HasSuffix(r, " ") || !strings.Contains(r, "\t") {
				t.Errorf("%v: row %q is padded or not tab-separated", tt.args, r)
			}
		}
		if !found || strings.HasPrefix(out, tt.header) {
			t.Errorf("%v to a pipe: want the row %q and no header:\n%s", tt.args, tt.want, out)
		}
		w.screen = 200
		out = mustRun(t, w, tt.args...)
		w.screen = 0
		if !strings.HasPrefix(out, tt.header) || strings.Contains(out, "\t") {
			t.Errorf("%v on a terminal: want a header %q and no tabs:\n%s", tt.args, tt.header, out)
		}
	}
	// A dry run's table keeps each message whole on a pipe (cut to 40 on a
	// terminal).
	long := "A message long enough to be cut on a terminal, whole on a pipe: 4821"
	out := mustRun(t, w, "send-pair", "--to", "09121234567", "--message", long, "--sender", "3000505", "--dry-run")
	if !strings.Contains(out, "\t09121234567\tGSM-7\t1\t"+long+"\n") {
		t.Errorf("dry run to a pipe:\n%s", out)
	}
	w.screen = 120
	out = mustRun(t, w, "send-pair", "--to", "09121234567", "--message", long, "--sender", "3000505", "--dry-run")
	w.screen = 0
	if !strings.Contains(out, "  A message long enough to be cut on a te…\n") {
		t.Errorf("dry run on a terminal:\n%s", out)
	}
	// cut -f1 of the contacts is their ids.
	out = mustRun(t, w, "contacts", "list", gid)
	if first, _, _ := strings.Cut(out, "\t"); first != id {
		t.Errorf("cut -f1 of contacts list = %q, want %s", first, id)
	}
}

// TestHistoryFitsTheTerminal: the history table fits the terminal's width
// (it wrapped at both 80 and 120 columns): DELIVERY is dropped first, then
// columns are narrowed, then dropped, in a fixed order; ID, ACCEPTED and
// STATUS stay. A terminal wide enough has them all; a pipe has them all,
// tab-separated.
func TestHistoryFitsTheTerminal(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	for i, name := range []string{"a.csv", "b.csv"} {
		e.mustRun(t, 0, "send-pair", "--yes", "--allow-repeat", "--sender", sandbox.DefaultSender, "--file", e.pairsFile(t, name, 2+i, nil))
	}
	all := []string{"ID", "TIME", "PROFILE", "SENDER", "TOTAL", "ACCEPTED", "REJECTED", "FAILED", "UNKNOWN", "NOT SENT", "OPTED OUT", "STATUS", "DELIVERY"}
	dropOrder := []string{"DELIVERY", "SENDER", "PROFILE", "OPTED OUT", "FAILED", "REJECTED", "UNKNOWN", "NOT SENT", "TIME", "TOTAL"}
	for _, columns := range []int{80, 120, 200, 60} {
		_, out, _ := e.runOn(t, context.Background(), columns, "history")
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != 3 {
			t.Fatalf("history at %d columns: %d lines\n%s", columns, len(lines), out)
		}
		for _, l := range lines {
			if n := ansi.StringWidth(l); n > columns {
				t.Errorf("history at %d columns: a line of %d:\n%s", columns, n, out)
			}
		}
		got := headerOf(lines[0], all)
		var dropped []string
		for _, c := range all {
			if !slices.Contains(got, c) {
				dropped = append(dropped, c)
			}
		}
		// What gives way does so in the fixed order; ID, ACCEPTED and STATUS
		// stay, and the status is whole.
		if !slices.Equal(sorted(dropped), sorted(dropOrder[:len(dropped)])) {
			t.Errorf("history at %d columns dropped %v, not the first of %v\n%s", columns, dropped, dropOrder, out)
		}
		if !slices.Contains(got, "ID") || !slices.Contains(got, "ACCEPTED") || !strings.HasSuffix(lines[1], " complete") {
			t.Errorf("history at %d columns: %v\n%s", columns, got, out)
		}
		switch {
		case columns >= 200 && len(dropped) > 0:
			t.Errorf("history at %d columns dropped %v\n%s", columns, dropped, out)
		case columns <= 120 && len(dropped) == 0:
			t.Errorf("history at %d columns: the test's table should not fit whole (dropped %v)\n%s", columns, dropped, out)
		}
		if len(dropped) > 1 && regexp.MustCompile(`\d\d:\d\d:\d\d`).MatchString(lines[1]) {
			t.Errorf("history at %d columns: the time keeps its seconds while columns are dropped\n%s", columns, out)
		}
	}
	out, _ := e.mustRun(t, 0, "history")
	for _, row := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if n := len(strings.Split(row, "\t")); n != len(all) {
			t.Errorf("history to a pipe: %d cells, want %d: %q", n, len(all), row)
		}
	}
}

func sorted(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }

// headerOf is the known column names in a header line, in order.
func headerOf(line string, known []string) []string {
	var out []string
	for _, k := range known {
		if i := strings.Index(line, k); i >= 0 && (i == 0 || line[i-1] == ' ') && (i+len(k) == len(line) || line[i+len(k)] == ' ') {
			out = append(out, k)
		}
	}
	return out
}
