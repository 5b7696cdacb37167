package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInputFileErrors: a file that is missing, a directory or unreadable is
// refused (exit 2) naming it once and what is wrong, for the pairs and the
// contacts files alike; nothing reaches the service.
func TestInputFileErrors(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	dir := t.TempDir()
	locked := filepath.Join(dir, "locked.csv")
	writeFile(t, locked, "mobile,message\n09121234567,hi\n")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	_, readable := os.ReadFile(locked) // root reads it all the same
	missing := filepath.Join(dir, "nope.csv")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"send-pair", "--file", missing, "--sender", "3000505", "--dry-run"}, "pairs file " + missing + ": no such file"},
		{[]string{"send-pair", "--file", dir, "--sender", "3000505", "--dry-run"}, "pairs file " + dir + " is a directory, not a CSV file"},
		{[]string{"contacts", "import", "1", missing}, "contacts file " + missing + ": no such file"},
		{[]string{"contacts", "import", "1", dir}, "contacts file " + dir + " is a directory, not a CSV file"},
		{[]string{"send-pair", "--file", locked, "--sender", "3000505", "--dry-run"}, "pairs file " + locked + ": permission denied"},
	} {
		if strings.Contains(tc.want, "permission") && readable == nil {
			continue
		}
		before := w.srv.Requests()
		_, errOut, code := w.run("", tc.args...)
		path := strings.Fields(tc.want)[2]
		if code != ExitUsage || !strings.Contains(errOut, tc.want) || strings.Count(errOut, strings.TrimSuffix(path, ":")) != 1 {
			t.Errorf("%v: exit %d\n%s\nwant %q", tc.args, code, errOut, tc.want)
		}
		if w.srv.Requests() != before {
			t.Errorf("%v: %d requests", tc.args, w.srv.Requests()-before)
		}
	}
}
