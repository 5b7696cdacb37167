package serve

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"

	"github.com/smsdesk/smsdesk/config"
)

// nobody is a user id that is not the test's (the files chowned to it
// stand for another user's); chown needs root.
const nobody = 65534

// TestCheckTrusted: the file and its directory must be the serving user's
// (or root's), writable by nobody else, and the file no symlink out of its
// directory; each refusal names the file at fault and the fix.
func TestCheckTrusted(t *testing.T) {
	for _, tc := range []struct {
		name    string
		root    bool // needs chown
		setup   func(t *testing.T, dir, file string) string
		problem string // "" passes
		fix     string
		atFault string // "dir", "file" or "target"
	}{
		{name: "the serving user's 0600 file in a 0700 directory", setup: func(t *testing.T, dir, file string) string { return file }},
		{name: "a file that does not exist yet", setup: func(t *testing.T, dir, file string) string { return filepath.Join(dir, "none.toml") }},
		{name: "a directory that does not exist yet", setup: func(t *testing.T, dir, file string) string { return filepath.Join(dir, "sub", "x.toml") }},
		{name: "a group-writable file", setup: func(t *testing.T, dir, file string) string { chmod(t, file, 0o620); return file },
			problem: "is writable by group or others (mode -rw--w----)", fix: "chmod go-w", atFault: "file"},
		{name: "a directory at 0777", setup: func(t *testing.T, dir, file string) string { chmod(t, dir, 0o777); return file },
			problem: "is writable by group or others (mode -rwxrwxrwx)", fix: "chmod go-w", atFault: "dir"},
		{name: "a symlink to a file outside", setup: func(t *testing.T, dir, file string) string {
			link := filepath.Join(dir, "link.toml")
			outside := filepath.Join(t.TempDir(), "elsewhere.toml")
			if err := os.WriteFile(outside, []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
			symlink(t, outside, link)
			return link
		}, problem: "is a symlink to", fix: "cp --remove-destination", atFault: "link"},
		{name: "a symlink to a file beside it", setup: func(t *testing.T, dir, file string) string {
			link := filepath.Join(dir, "link.toml")
			symlink(t, "operators.toml", link)
			return link
		}},
		{name: "another user's file", root: true, setup: func(t *testing.T, dir, file string) string { chown(t, file); return file },
			problem: "is owned by uid 65534", fix: "chown", atFault: "file"},
		{name: "a symlink beside it to another user's file", root: true, setup: func(t *testing.T, dir, file string) string {
			chown(t, file)
			link := filepath.Join(dir, "link.toml")
			symlink(t, "operators.toml", link)
			return link
		}, problem: "is owned by uid 65534", fix: "chown", atFault: "target"},
		{name: "another user's directory", root: true, setup: func(t *testing.T, dir, file string) string { chown(t, dir); return file },
			problem: "is owned by uid 65534", fix: "chown", atFault: "dir"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.root && os.Getuid() != 0 {
				t.Skip("chown needs root")
			}
			dir := filepath.Join(t.TempDir(), "config")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, "operators.toml")
			if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
			path := tc.setup(t, dir, file)
			err := CheckTrusted("operators file", path)
			if tc.problem == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var u *UntrustedFileError
			if !errors.As(err, &u) {
				t.Fatalf("got %v, want an UntrustedFileError", err)
			}
			want := map[string]string{"dir": dir, "file": file, "target": file, "link": path}[tc.atFault]
			if u.Path != want || !strings.Contains(u.Problem, tc.problem) || !strings.Contains(u.Fix, tc.fix) ||
				!strings.Contains(err.Error(), "operators file: "+want) {
				t.Errorf("got %q (fix %q); want %s %s…, fix %s…", err, u.Fix, want, tc.problem, tc.fix)
			}
		})
	}
}

// TestHostKeyTrusted: another user's host key, or one in a directory
// others may write, is refused naming it.
func TestHostKeyTrusted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	path := filepath.Join(dir, HostKeyFileName)
	if _, _, err := LoadHostKey(path); err != nil {
		t.Fatal(err)
	}
	chmod(t, dir, 0o757)
	if _, _, err := LoadHostKey(path); err == nil || !strings.Contains(err.Error(), "host key: "+dir+" is writable by group or others") {
		t.Errorf("in a 0757 directory: %v", err)
	}
	chmod(t, dir, 0o700)
	if os.Getuid() != 0 {
		t.Skip("chown needs root")
	}
	chown(t, path)
	if _, _, err := LoadHostKey(path); err == nil || !strings.Contains(err.Error(), "host key: "+path+" is owned by uid 65534") {
		t.Errorf("another user's: %v", err)
	}
}

// TestUntrustedWhileServing: the operators file becomes writable by others
// while sara is signed in: her session is closed saying so, and every
// sign-in is refused until it is repaired.
func TestUntrustedWhileServing(t *testing.T) {
	w := newWorld(t, worldOptions{})
	sara := w.open("sara", nil)
	sara.waitFor("operator=sara")
	file := w.paths.OperatorsFile()
	chmod(t, file, 0o666)
	var ee *gossh.ExitError
	if err := sara.ended(); !errors.As(err, &ee) || ee.ExitStatus() != 1 {
		t.Errorf("sara's session ended with %v, want exit 1", err)
	}
	sara.waitFor("smsdesk serve: the operators file of this server can no longer be trusted")
	if c, err := w.dial("reza"); err == nil {
		c.Close()
		t.Error("reza signed in with the operators file writable by others")
	}
	if log := w.log.String(); !strings.Contains(log, "operators file: "+file+" is writable by group or others") {
		t.Errorf("the log does not name the file:\n%s", log)
	}
	chmod(t, file, 0o600)
	c, err := w.dial("reza")
	if err != nil {
		t.Fatalf("once repaired: %v", err)
	}
	c.Close()
}

func chmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func chown(t *testing.T, path string) {
	t.Helper()
	if err := os.Chown(path, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	// t.TempDir's cleanup removes it as root all the same.
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// TestCheckStrictModes: the config file, the state directory and all in
// it, and the directories above them: the first that another user may
// change is named; a clean tree passes, under a root-owned sticky /tmp.
func TestCheckStrictModes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spoil func(t *testing.T, p config.Paths) string // the path at fault ("" none)
	}{
		{"clean", func(t *testing.T, p config.Paths) string { return "" }},
		{"config.toml 0666", func(t *testing.T, p config.Paths) string { chmod(t, p.ConfigFile, 0o666); return p.ConfigFile }},
		{"the config directory 0770", func(t *testing.T, p config.Paths) string { chmod(t, p.ConfigDir, 0o770); return p.ConfigDir }},
		{"sends/ 0777", func(t *testing.T, p config.Paths) string {
			d := filepath.Join(p.StateDir, "sends")
			chmod(t, d, 0o777)
			return d
		}},
		{"the state directory 0777", func(t *testing.T, p config.Paths) string { chmod(t, p.StateDir, 0o777); return p.StateDir }},
		{"an opt-out list 0666", func(t *testing.T, p config.Paths) string {
			f := filepath.Join(p.StateDir, "accounts", "a1", "optouts.json")
			chmod(t, f, 0o666)
			return f
		}},
		{"the ledger's -shm 0664", func(t *testing.T, p config.Paths) string {
			f := filepath.Join(p.StateDir, "smsdesk.db-shm")
			chmod(t, f, 0o664)
			return f
		}},
		{"a symlink in the state to a 0666 file", func(t *testing.T, p config.Paths) string {
			out := filepath.Join(filepath.Dir(p.StateDir), "elsewhere.json")
			if err := os.WriteFile(out, nil, 0o666); err != nil {
				t.Fatal(err)
			}
			chmod(t, out, 0o666)
			link := filepath.Join(p.StateDir, "link.json")
			symlink(t, out, link)
			return link
		}},
		{"a directory above 0777", func(t *testing.T, p config.Paths) string {
			d := filepath.Dir(p.StateDir)
			chmod(t, d, 0o777)
			return d
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "home")
			p := config.PathsIn(filepath.Join(root, "config"), filepath.Join(root, "state"))
			for _, d := range []string{p.ConfigDir, filepath.Join(p.StateDir, "sends"), filepath.Join(p.StateDir, "accounts", "a1")} {
				if err := os.MkdirAll(d, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			for _, f := range []string{p.ConfigFile, filepath.Join(p.StateDir, "smsdesk.db"), filepath.Join(p.StateDir, "smsdesk.db-shm"),
				filepath.Join(filepath.Join(p.StateDir, "sends"), "s1.jsonl"), filepath.Join(p.StateDir, "accounts", "a1", "optouts.json")} {
				if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			want := tc.spoil(t, p)
			err := CheckStrictModes(p)
			if want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var u *UntrustedFileError
			if !errors.As(err, &u) || u.Path != want || !strings.Contains(err.Error(), want+" is writable by group or others") {
				t.Errorf("got %v; want %s named", err, want)
			}
		})
	}
}
