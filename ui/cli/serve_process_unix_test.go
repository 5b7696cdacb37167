//go:build unix

package cli

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/model/eventually"
	"github.com/smsdesk/smsdesk/model/syncbuf"
	"github.com/smsdesk/smsdesk/ui/serve"
)

// serveWait bounds each wait on the served process (a deadlock guard).
const serveWait = 20 * time.Second

// servedProc is smsdesk serve as a real process on 127.0.0.1, with sara
// (sender) in its operators file.
type servedProc struct {
	w      *procWorld
	cmd    *exec.Cmd
	out    *bytes.Buffer
	errOut *syncbuf.Buffer
	addr   string
	// hostKey is the host key file the banner names.
	hostKey string
	sara    gossh.Signer
	stopped bool
}

// startServe starts smsdesk serve --addr 127.0.0.1:0 args… in dir and waits
// for its banner; the test's end kills it if it has not been stopped.
func startServe(t *testing.T, w *procWorld, dir string, args ...string) *servedProc {
	t.Helper()
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	signer, _ := gossh.NewSignerFromKey(priv)
	line := strings.TrimSpace(string(gossh.MarshalAuthorizedKey(signer.PublicKey())))
	w.mustRun(t, "operators", "add", "sara", "--key", line)
	cmd, out, errOut := w.command("", append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &servedProc{w: w, cmd: cmd, out: out, errOut: errOut, sara: signer}
	t.Cleanup(func() {
		if !p.stopped {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	banner := regexp.MustCompile(`at (127\.0\.0\.1:\d+)\n(?s:.*)Host key (SHA256:\S+) \(([^,)]+)`)
	var m []string
	eventually.True(t, serveWait, func() bool { m = banner.FindStringSubmatch(errOut.String()); return m != nil },
		func() string { return "no banner:\n" + errOut.String() })
	p.addr, p.hostKey = m[1], m[3]
	return p
}

// console signs sara in with a terminal of cols×rows and waits for the
// console's status bar.
func (p *servedProc) console(t *testing.T, cols, rows int) (*gossh.Client, *gossh.Session, io.Writer, *syncbuf.Buffer) {
	t.Helper()
	c, err := gossh.Dial("tcp", p.addr, &gossh.ClientConfig{User: "sara", Auth: []gossh.AuthMethod{gossh.PublicKeys(p.sara)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: serveWait})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	var screen syncbuf.Buffer
	sess.Stdout = &screen
	in, err := sess.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.RequestPty("xterm-256color", rows, cols, nil); err != nil {
		t.Fatal(err)
	}
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	eventually.Contains(t, serveWait, &screen, "sara (sender)")
	return c, sess, in, &screen
}

// stop sends SIGTERM and waits for the exit code.
func (p *servedProc) stop(t *testing.T) (code int, stderr string) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = p.w.wait(t, p.cmd, p.cmd.Wait(), p.out, p.errOut)
	p.stopped = true
	return code, stderr
}

// TestProcess_ServeWritesOnlyItsOwnDirs: smsdesk serve started as a real
// process from a working directory of its own (0755, empty): an operator
// signs in and draws the console, the server stops on SIGTERM; the
// directory is still empty and still 0755, and the host key is in the
// state directory. (wish.NewServer without a host key wrote id_ed25519
// and id_ed25519.pub into the working directory and chmodded it 0700.)
func TestProcess_ServeWritesOnlyItsOwnDirs(t *testing.T) {
	t.Parallel()
	w := newProcWorld(t, sandbox.Options{Seed: true}, nil)
	work := filepath.Join(t.TempDir(), "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(work, 0o755); err != nil { // whatever the umask
		t.Fatal(err)
	}
	p := startServe(t, w, work)
	c, sess, in, _ := p.console(t, 160, 30)
	_, _ = in.Write([]byte("q"))
	_ = sess.Wait()
	c.Close()
	if code, stderr := p.stop(t); code != 0 {
		t.Fatalf("serve: exit %d\n%s", code, stderr)
	}
	entries, err := os.ReadDir(work)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("serve wrote %s into its working directory", e.Name())
	}
	if fi, err := os.Stat(work); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("the working directory is %v (%v), want 0755 as it was", fi.Mode().Perm(), err)
	}
	if !strings.HasPrefix(p.hostKey, w.home) || filepath.Dir(p.hostKey) == work {
		t.Errorf("host key at %s, want it in the state directory under %s", p.hostKey, w.home)
	}
	if _, err := os.Stat(p.hostKey); err != nil {
		t.Errorf("host key: %v", err)
	}
}

// sessionBudget is what one served console may cost the server, at any
// size a client asks for (BENCHMARKS.md has the figures).
const sessionBudget = 50 << 20

// TestProcess_ServeSessionMemory: a client asking for a 100000×100000
// terminal gets a console drawn at 500×200 (a real screen's size), and
// costs the server less than sessionBudget of RSS once it has drawn and
// moved; measured on the server process, after a first small session so
// that what every session shares is counted already.
func TestProcess_ServeSessionMemory(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc to read a process's RSS from")
	}
	if raceEnabled { // the server is this test binary: under -race its RSS is the detector's too (75.8 MB measured)
		t.Skip("RSS is measured without the race detector, whose shadow memory is in it")
	}
	w := newProcWorld(t, sandbox.Options{Seed: true}, nil)
	p := startServe(t, w, w.home)
	rss := func() int64 {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(data), "\n") {
			if f := strings.Fields(l); len(f) == 3 && f[0] == "VmRSS:" && f[2] == "kB" {
				kb, _ := strconv.ParseInt(f[1], 10, 64)
				return kb << 10
			}
		}
		t.Fatal("no VmRSS")
		return 0
	}
	c, sess, in, _ := p.console(t, 80, 24)
	_, _ = in.Write([]byte("q"))
	_ = sess.Wait()
	c.Close()
	before := rss()
	_, _, in, screen := p.console(t, 100000, 100000)
	if size := fmt.Sprintf("size=%dx%d", serve.MaxWidth, serve.MaxHeight); !strings.Contains(p.errOut.String(), size) {
		t.Errorf("the console is not drawn at %s:\n%s", size, p.errOut.String())
	}
	_, _ = in.Write([]byte("?"))                              // the help screen: the whole frame drawn again
	eventually.Contains(t, serveWait, screen, "smsdesk keys") // the help screen
	after := rss()
	t.Logf("server RSS %d MB with a small session, %d MB with a 100000x100000 one: %+.1f MB", before>>20, after>>20, float64(after-before)/(1<<20))
	if after-before > sessionBudget {
		t.Errorf("one session at 100000x100000 costs %.1f MB of RSS, over the %d MB budget", float64(after-before)/(1<<20), sessionBudget>>20)
	}
}
