//go:build unix

package cli

import (
	"crypto/ed25519"
	"crypto/rand"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/model/syncbuf"
)

// serveWait bounds each wait on the served process (a deadlock guard).
const serveWait = 20 * time.Second

// TestProcess_ServeWritesOnlyItsOwnDirs: smsdesk serve started as a real
// process from a working directory of its own (0755, empty): an operator
// signs in and draws the console, the server stops on SIGTERM; the
// directory is still empty and still 0755, and the host key is in the
// state directory. (wish.NewServer without a host key wrote id_ed25519
// and id_ed25519.pub into the working directory and chmodded it 0700.)
func TestProcess_ServeWritesOnlyItsOwnDirs(t *testing.T) {
	t.Parallel()
	w := newProcWorld(t, sandbox.Options{Seed: true}, nil)
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	signer, _ := gossh.NewSignerFromKey(priv)
	line := strings.TrimSpace(string(gossh.MarshalAuthorizedKey(signer.PublicKey())))
	w.mustRun(t, "operators", "add", "sara", "--key", line)

	work := filepath.Join(t.TempDir(), "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(work, 0o755); err != nil { // whatever the umask
		t.Fatal(err)
	}
	cmd, out, errOut := w.command("", "serve", "--addr", "127.0.0.1:0")
	cmd.Dir = work
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()
	banner := regexp.MustCompile(`at (127\.0\.0\.1:\d+)\n(?s:.*)Host key (SHA256:\S+) \(([^,)]+)`)
	var m []string
	for deadline := time.Now().Add(serveWait); ; time.Sleep(5 * time.Millisecond) {
		if m = banner.FindStringSubmatch(errOut.String()); m != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no banner:\n%s", errOut.String())
		}
	}
	addr, hostKeyFile := m[1], m[3]
	c, err := gossh.Dial("tcp", addr, &gossh.ClientConfig{User: "sara", Auth: []gossh.AuthMethod{gossh.PublicKeys(signer)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: serveWait})
	if err != nil {
		t.Fatal(err)
	}
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
	if err := sess.RequestPty("xterm-256color", 30, 160, nil); err != nil {
		t.Fatal(err)
	}
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(serveWait); !strings.Contains(screen.String(), "sara (sender)"); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no console:\n%q", screen.String())
		}
	}
	_, _ = in.Write([]byte("q"))
	_ = sess.Wait()
	c.Close()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := w.wait(t, cmd, cmd.Wait(), out, errOut)
	stopped = true
	if code != 0 {
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
	if !strings.HasPrefix(hostKeyFile, w.home) || filepath.Dir(hostKeyFile) == work {
		t.Errorf("host key at %s, want it in the state directory under %s", hostKeyFile, w.home)
	}
	if _, err := os.Stat(hostKeyFile); err != nil {
		t.Errorf("host key: %v", err)
	}
}
