package cli

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// TestSandboxThatCannotListenLeavesItsDataFile: `smsdesk sandbox --data F`
// on a busy port exits 2 saying so, and neither creates F nor rewrites it
// (it wrote a fresh seed into F before it found the port taken).
func TestSandboxThatCannotListenLeavesItsDataFile(t *testing.T) {
	t.Parallel()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, tt := range []struct {
		name  string
		setup func(t *testing.T, path string) // makes F, or not
	}{
		{"no data file yet", func(*testing.T, string) {}},
		{"a data file from an earlier run", func(t *testing.T, path string) {
			sb, err := sandbox.New(sandbox.Options{Seed: true, DataFile: path})
			if err != nil {
				t.Fatal(err)
			}
			if err := sb.Close(); err != nil {
				t.Fatal(err)
			}
			old := time.Now().Add(-time.Hour)
			if err := os.Chtimes(path, old, old); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "sandbox.json")
			tt.setup(t, path)
			before, _ := os.ReadFile(path)
			beforeInfo, _ := os.Stat(path)
			var out, errOut bytes.Buffer
			code := Main(context.Background(), []string{"sandbox", "--addr", busy.Addr().String(), "--data", path},
				Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }})
			if code != ExitUsage || !strings.Contains(errOut.String(), "listen on "+busy.Addr().String()) || strings.Contains(out.String(), "serving") {
				t.Errorf("exit %d, want 2 naming the address\n%s\n%s", code, out.String(), errOut.String())
			}
			after, err := os.ReadFile(path)
			switch {
			case beforeInfo == nil && err == nil:
				t.Errorf("the sandbox created %s though it could not listen", path)
			case beforeInfo != nil && !bytes.Equal(before, after):
				t.Errorf("the sandbox rewrote %s though it could not listen", path)
			case beforeInfo != nil:
				if info, err := os.Stat(path); err != nil || !info.ModTime().Equal(beforeInfo.ModTime()) {
					t.Errorf("%s was touched: %v", path, err)
				}
			}
			want := 0 // no temporary file left behind either
			if beforeInfo != nil {
				want = 1
			}
			if entries, _ := os.ReadDir(dir); len(entries) != want {
				t.Errorf("files in the directory: %v, want %d", entries, want)
			}
		})
	}
}
