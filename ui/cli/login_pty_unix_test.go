//go:build unix

package cli

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// TestProcess_LoginPromptOnATerminal: login's masked prompt on a real
// terminal (a pty) shows its label before the key is typed, then bullets,
// never the key. It drew through the sanitising writer, and on a terminal
// nothing showed at all, label or bullets (seen by hand in tmux); it now
// draws on the terminal's own stderr, as questions do.
func TestProcess_LoginPromptOnATerminal(t *testing.T) {
	t.Parallel()
	sb, root := serveSandbox(t, sandbox.Options{}, nil)
	cmd := exec.Command(os.Args[0], "login", "--insecure-storage", "--base-url", root+"/api/v1")
	cmd.Env = []string{envRunAsSmsdesk + "=1", "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "TERM=xterm-256color"}
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 24, Cols: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	screen := make(chan string) // what the terminal shows, as it grows
	go func() {
		defer close(screen)
		var all []byte
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			all = append(all, buf[:n]...)
			if n > 0 {
				screen <- string(all)
			}
			if err != nil {
				return
			}
		}
	}()
	failsafe := time.NewTimer(time.Minute) // bounds a failure; the test waits on what the terminal shows
	defer failsafe.Stop()
	waitFor := func(want string) string {
		t.Helper()
		var last string
		for {
			select {
			case s, ok := <-screen:
				if !ok {
					t.Fatalf("the terminal closed without %q:\n%q", want, last)
				}
				if last = s; strings.Contains(s, want) {
					return s
				}
			case <-failsafe.C:
				_ = cmd.Process.Kill()
				t.Fatalf("no %q on the terminal:\n%q", want, last)
			}
		}
	}
	waitFor("API key (input hidden): ")
	if _, err := tty.Write([]byte(sb.Key())); err != nil {
		t.Fatal(err)
	}
	// Bullets show as the key is typed. The renderer draws what changed
	// (a busy machine delivers the key in pieces, and the line is then
	// drawn in parts, with cursor moves between), so the bytes need not
	// hold them all in one run: one bullet drawn is the mask at work.
	waitFor("•")
	if _, err := tty.Write([]byte("\r")); err != nil {
		t.Fatal(err)
	}
	out := waitFor("Logged in")
	if err := cmd.Wait(); err != nil {
		t.Fatalf("login: %v\n%q", err, out)
	}
	for range screen { // the reader ends with the terminal
	}
	if strings.Contains(out, sb.Key()) {
		t.Fatalf("the prompt drew the key:\n%q", out)
	}
}
