package console

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/model"
)

// TestServedViewer: a console served to a viewer (smsdesk serve) names them
// on the status bar; compose, a new group, a new contact, an import and a
// deletion are each refused naming the role they need, and not one request
// reaches the service for them.
func TestServedViewer(t *testing.T) {
	e := newEnv(t, sandbox.Options{})
	e.opts.Session.Operator = &model.Operator{Name: "vida", Fingerprint: "SHA256:vidafp", Role: model.RoleViewer}
	tm := e.startOnGroup1(t)
	waitFor(t, tm, "vida (viewer)")
	before := e.srv.Requests()
	refused := func(key, want string) {
		t.Helper()
		tm.Send(press(key))
		waitModel(t, tm, key+" refused", func(m *root) bool { return strings.Contains(m.lastErr, want) })
	}
	refused("c", "sending needs the sender role (vida is a viewer)")
	refused("n", "creating a group needs the admin role")
	tm.Send(press("tab")) // the contacts pane
	refused("n", "adding a contact needs the sender role")
	refused("i", "importing contacts needs the sender role")
	refused("d", "deleting a contact needs the admin role")
	if n := e.srv.Requests() - before; n != 0 {
		t.Errorf("%d requests reached the service", n)
	}
}

// TestServedFiles: a served console's file names stay in its files
// directory: an absolute path, .. and a link out of it are refused.
func TestServedFiles(t *testing.T) {
	dir := t.TempDir()
	files := filepath.Join(dir, "files")
	if err := os.Mkdir(files, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc", filepath.Join(files, "etc")); err != nil {
		t.Fatal(err)
	}
	c := &common{opts: &Options{FilesDir: files, HomeDir: "/home/srv"}}
	if p, err := c.filePath("pairs.csv"); err != nil || p != filepath.Join(files, "pairs.csv") {
		t.Errorf("pairs.csv: %q %v", p, err)
	}
	for _, bad := range []string{"/etc/passwd", "../x.csv", "~/x.csv", "etc/passwd", ""} {
		if p, err := c.filePath(bad); err == nil {
			t.Errorf("%q: allowed as %q", bad, p)
		}
	}
	local := &common{opts: &Options{HomeDir: "/home/me"}}
	if p, _ := local.filePath("~/x.csv"); p != "/home/me/x.csv" {
		t.Errorf("a local console's ~/: %q", p)
	}
}
