package cli

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/model/eventually"
	"github.com/smsdesk/smsdesk/model/syncbuf"
)

// TestServeDemo: smsdesk serve --demo on 127.0.0.1: the banner names the
// address and the host key's fingerprint (the key the client is shown);
// an operator's ssh with a PTY gets the console, signed in by name; the
// first signal (the context here) stops it with exit 0; nothing is
// written to the state directory and no key is printed.
func TestServeDemo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfgDir, stateDir := filepath.Join(dir, "config"), filepath.Join(dir, "state")
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	signer, _ := gossh.NewSignerFromKey(priv)
	line := strings.TrimSpace(string(gossh.MarshalAuthorizedKey(signer.PublicKey())))
	if _, err := config.AddOperator(config.PathsIn(cfgDir, stateDir), config.OperatorEntry{Name: "sara", Key: line, Role: model.RoleSender}); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"SMSDESK_CONFIG_DIR": cfgDir, "SMSDESK_STATE_DIR": stateDir, "HOME": dir}
	var stderr syncbuf.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	code := make(chan int, 1)
	go func() {
		code <- Main(ctx, []string{"serve", "--demo", "--addr", "127.0.0.1:0"},
			Env{Stdin: strings.NewReader(""), Stdout: &stderr, Stderr: &stderr, Getenv: func(k string) string { return env[k] }})
	}()
	banner := regexp.MustCompile(`at (127\.0\.0\.1:\d+)\n(?s:.*)Host key (SHA256:\S+)`)
	var m []string
	eventually.True(t, waitLimit, func() bool { m = banner.FindStringSubmatch(stderr.String()); return m != nil },
		func() string { return "no banner: " + stderr.String() })
	addr, fingerprint := m[1], m[2]
	c, err := gossh.Dial("tcp", addr, &gossh.ClientConfig{User: "sara", Auth: []gossh.AuthMethod{gossh.PublicKeys(signer)}, Timeout: waitLimit,
		HostKeyCallback: func(_ string, _ net.Addr, k gossh.PublicKey) error {
			if got := gossh.FingerprintSHA256(k); got != fingerprint {
				return fmt.Errorf("host key %s, the banner said %s", got, fingerprint)
			}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	var out syncbuf.Buffer
	sess.Stdout = &out
	if _, err := sess.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := sess.RequestPty("xterm-256color", 30, 160, nil); err != nil {
		t.Fatal(err)
	}
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	eventually.Contains(t, waitLimit, &out, "demo · sara (sender)")
	cancel() // SIGTERM's path
	select {
	case got := <-code:
		if got != 0 {
			t.Errorf("exit %d\n%s", got, stderr.String())
		}
	case <-time.After(waitLimit):
		t.Fatal("serve did not stop")
	}
	if !strings.Contains(stderr.String(), "msg=login operator=sara") || !strings.Contains(stderr.String(), "Stopped") ||
		strings.Contains(stderr.String(), "sk_test_sandbox") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	if _, err := os.Stat(stateDir); !os.IsNotExist(err) {
		t.Errorf("the demo wrote to the state directory: %v", err)
	}
}
