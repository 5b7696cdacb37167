//go:build unix

package cli

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/model/eventually"
	"github.com/smsdesk/smsdesk/model/syncbuf"
)

// runSandbox starts `smsdesk sandbox args…` as Main would run it and waits for
// its banner; it returns the base URL printed, the output so far, and a channel
// with the exit code.
func runSandbox(t *testing.T, args ...string) (base string, out *syncbuf.Buffer, errOut *syncbuf.Buffer, done chan int) {
	t.Helper()
	out, errOut = &syncbuf.Buffer{}, &syncbuf.Buffer{}
	done = make(chan int, 1)
	go func() {
		done <- Main(context.Background(), append([]string{"sandbox"}, args...),
			Env{Stdin: strings.NewReader(""), Stdout: out, Stderr: errOut, Getenv: func(string) string { return "" }})
	}()
	re := regexp.MustCompile(`smsdesk sandbox serving (\S+)\n`)
	var m []string
	ended := false
	eventually.True(t, waitLimit, func() bool {
		if m = re.FindStringSubmatch(out.String()); m != nil && strings.Contains(out.String(), "stop with ctrl+c") {
			return true
		}
		select {
		case code := <-done:
			done <- code
			ended = true
		default:
		}
		return ended
	}, func() string { return "sandbox printed no banner:\n" + out.String() + "\n" + errOut.String() })
	if ended {
		return "", out, errOut, done
	}
	return m[1], out, errOut, done
}

func waitExit(t *testing.T, done chan int, out, errOut *syncbuf.Buffer) int {
	t.Helper()
	select {
	case code := <-done:
		return code
	case <-time.After(waitLimit):
		t.Fatalf("sandbox did not stop:\n%s\n%s", out.String(), errOut.String())
		return -1
	}
}

// TestSandboxHygiene: ctrl+c and kill stop the sandbox gracefully with --data
// flushed, even a write made just before; the README's start–stop–start on one
// address works; errors carry one prefix; a wildcard address prints a URL
// smsdesk can use. Not parallel: it signals its own process.
func TestSandboxHygiene(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "sandbox.json")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()

	for i, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		base, out, errOut, done := runSandbox(t, "--addr", addr, "--data", data, "--key", "sk_test_hygiene")
		if base != "http://"+addr+"/api/v1" {
			t.Fatalf("run %d: banner URL %q, want http://%s/api/v1\n%s%s", i+1, base, addr, out.String(), errOut.String())
		}
		// A group made the instant before the signal: the data file's
		// debounced write has not happened yet; only the flush on stop saves it.
		name := "made just before " + sig.String()
		req, _ := http.NewRequest(http.MethodPost, base+"/contact-groups", strings.NewReader(`{"name":"`+name+`"}`))
		req.Header.Set("Authorization", "Bearer sk_test_hygiene")
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("run %d: create group: %v %v", i+1, err, resp)
		}
		resp.Body.Close()
		if err := syscall.Kill(os.Getpid(), sig); err != nil {
			t.Fatal(err)
		}
		if code := waitExit(t, done, out, errOut); code != 0 || !strings.Contains(out.String(), "smsdesk sandbox stopped") {
			t.Fatalf("run %d: %v: exit %d\n%s\n%s", i+1, sig, code, out.String(), errOut.String())
		}
		b, err := os.ReadFile(data)
		if err != nil || !strings.Contains(string(b), name) {
			t.Fatalf("run %d: %v lost the last write: %v\n%.300s", i+1, sig, err, b)
		}
	}

	// The port is busy: one "sandbox:" prefix, not two.
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	_, out, errOut, done := runSandbox(t, "--addr", busy.Addr().String())
	code := waitExit(t, done, out, errOut)
	if code == 0 || strings.Count(errOut.String(), "sandbox:") != 1 || !strings.Contains(errOut.String(), "smsdesk: sandbox: listen on") {
		t.Errorf("busy port: exit %d, stderr %q; want one 'smsdesk: sandbox: listen on …'", code, errOut.String())
	}

	// 0.0.0.0: the printed URL is one smsdesk accepts (loopback), not http://[::]:…
	base, out, errOut, done := runSandbox(t, "--addr", "0.0.0.0:0")
	if !regexp.MustCompile(`^http://127\.0\.0\.1:\d+/api/v1$`).MatchString(base) || !strings.Contains(out.String(), "every interface") {
		t.Errorf("0.0.0.0: banner URL %q\n%s", base, out.String())
	}
	if base != "" {
		resp, err := http.Get(base + "/contact-groups/1/contacts")
		if err != nil {
			t.Errorf("the printed URL does not answer: %v", err)
		} else {
			resp.Body.Close()
		}
	}
	_ = syscall.Kill(os.Getpid(), syscall.SIGINT)
	if code := waitExit(t, done, out, errOut); code != 0 {
		t.Errorf("0.0.0.0 sandbox: exit %d", code)
	}
}
