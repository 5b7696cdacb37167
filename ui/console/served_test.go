package console

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/model"
)

// TestServedViewer: a console served to a viewer (smsdesk serve) names them
// on the status bar; compose, a new group, tracking and untracking a group
// (the list every operator sees), a new contact, an import and a deletion
// are each refused naming the role they need, and not one request
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
	refused("t", "tracking a group needs the sender role")
	refused("u", "untracking a group needs the sender role")
	tm.Send(press("tab")) // the contacts pane
	refused("n", "adding a contact needs the sender role")
	refused("i", "importing contacts needs the sender role")
	refused("d", "deleting a contact needs the admin role")
	refused("e", "exporting needs the sender role") // contacts with full numbers into a file on the server
	if n := e.srv.Requests() - before; n != 0 {
		t.Errorf("%d requests reached the service", n)
	}
	// The footer offers none of them (it did: c, n, d and i, each refused),
	// and still the keys a viewer has.
	waitModel(t, tm, "a viewer's footer", func(m *root) bool {
		f := ansi.Strip(m.footer())
		return strings.Contains(f, "/ filter") && !strings.Contains(f, "e export") &&
			!strings.Contains(f, "c compose") && !strings.Contains(f, "n new") && !strings.Contains(f, "d delete") && !strings.Contains(f, "i import")
	})
	tm.Send(press("shift+tab")) // the groups pane
	waitModel(t, tm, "a viewer's groups footer", func(m *root) bool {
		f := ansi.Strip(m.footer())
		return m.focus == 0 && strings.Contains(f, "enter open") && !strings.Contains(f, "track group") && !strings.Contains(f, "untrack")
	})
}

// TestFooterForRole: each role's footer (on the contact table) shows the
// keys it may use, and a console at this machine's own terminal (no
// operator) shows them all.
func TestFooterForRole(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		role  model.Role // "" for no operator
		shown []string
		not   []string
	}{
		{"", []string{"c compose", "n new", "d delete contact", "i import CSV"}, nil},
		{model.RoleSender, []string{"c compose", "n new", "i import CSV", "e export CSV"}, []string{"d delete contact"}},
		{model.RoleAdmin, []string{"c compose", "n new", "d delete contact", "i import CSV"}, nil},
		{model.RoleViewer, []string{"/ filter", "r refresh"}, []string{"c compose", "n new", "d delete contact", "i import CSV", "e export CSV"}},
	} {
		m := mainScreenRoot(t, 120, 30)
		if tt.role != "" {
			m.c.session.Operator = &model.Operator{Name: "op", Role: tt.role}
		}
		f := ansi.Strip(m.footer())
		for _, w := range tt.shown {
			if !strings.Contains(f, w) {
				t.Errorf("role %q: footer %q lacks %q", tt.role, f, w)
			}
		}
		for _, w := range tt.not {
			if strings.Contains(f, w) {
				t.Errorf("role %q: footer %q offers %q", tt.role, f, w)
			}
		}
	}
}

// TestActionKeysGateByAction: a key is offered or not by the action it
// carries, not by its help words: renamed, a viewer's d and i are still
// not offered, and a key without an action is offered whatever its words
// (the gate used to be keyed on the help text "delete contact").
func TestActionKeysGateByAction(t *testing.T) {
	t.Parallel()
	m := mainScreenRoot(t, 120, 30)
	k := m.c.keys
	k.Delete.SetHelp("d", "remove person")
	k.Import.SetHelp("i", "load people")
	k.Refresh.SetHelp("r", "delete contact") // the old gate's words, on a key that changes nothing
	m.c.session.Operator = &model.Operator{Name: "op", Role: model.RoleViewer}
	f := ansi.Strip(m.footer())
	for _, w := range []string{"d remove person", "i load people"} {
		if strings.Contains(f, w) {
			t.Errorf("a viewer's footer %q offers %q", f, w)
		}
	}
	if !strings.Contains(f, "r delete contact") {
		t.Errorf("a viewer's footer %q lacks the refresh key", f)
	}
	if err := m.c.session.Allow(k.Delete.Action); err == nil {
		t.Error("the delete key's action is allowed to a viewer")
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
	// What the operator is shown: names inside the files directory, never
	// the server's paths; what an error wraps is kept.
	path := filepath.Join(files, "sub", "x.csv")
	if got := c.shownPath(path); got != filepath.Join("sub", "x.csv") {
		t.Errorf("shown as %q", got)
	}
	err := c.shownErr(fmt.Errorf("writing %s: %w", path, fs.ErrPermission))
	if err.Error() != "writing sub/x.csv: permission denied" || !errors.Is(err, fs.ErrPermission) {
		t.Errorf("shown as %q (wraps the cause: %v)", err, errors.Is(err, fs.ErrPermission))
	}
	if got := c.shownErr(fmt.Errorf("reading %s", files)).Error(); got != "reading the files directory" {
		t.Errorf("the directory itself shown as %q", got)
	}
	if got := local.shownPath("/home/me/x.csv"); got != "/home/me/x.csv" {
		t.Errorf("a local console's path shown as %q", got)
	}
}

// TestStatusBarKeepsWhoIsSignedIn: an error too long to share the status
// bar is said whole on lines of its own above it, and the bar keeps the
// profile and who is signed in ("default · ✗ creating a group needs…"
// lost the operator; then the error was cut at 80 columns: issue 40 item 4).
func TestStatusBarKeepsWhoIsSignedIn(t *testing.T) {
	t.Parallel()
	const said = "✗ creating a group needs the admin role (vida is a viewer); nothing was done"
	for _, w := range []int{80, 100} {
		m := mainScreenRoot(t, w, 24)
		m.c.session.Operator = &model.Operator{Name: "vida", Role: model.RoleViewer}
		m.Update(statusMsg{Err: errors.New(said[len("✗ "):])})
		bar := ansi.Strip(m.statusBar())
		if !strings.Contains(bar, "vida (viewer)") {
			t.Errorf("at %d columns: %q", w, bar)
		}
		frame := m.text()
		if !strings.Contains(strings.Join(strings.Fields(frame), " "), said) {
			t.Errorf("at %d columns the error is not said whole:\n%s", w, frame)
		}
		if lines := strings.Split(frame, "\n"); len(lines) != 24 || !strings.HasPrefix(lines[21], " ✗ creating a group") {
			t.Errorf("at %d columns the error is not on the lines above the bar:\n%s", w, frame)
		}
	}
}
