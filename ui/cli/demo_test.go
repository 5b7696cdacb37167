package cli

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/ui/app"
	"github.com/smsdesk/smsdesk/ui/console"
)

// TestDemoWritesNothing: smsdesk --demo opens the console on the demo engine
// (its own sandbox, config and state in a temporary directory); what the
// console changes there (a new group, a sender line) is kept in that
// directory, nothing lands in the operator's config or state directories,
// and the directory is gone when the console ends.
func TestDemoWritesNothing(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	vars := map[string]string{"TERM": "xterm", "HOME": home,
		"SMSDESK_CONFIG_DIR": filepath.Join(home, "config"), "SMSDESK_STATE_DIR": filepath.Join(home, "state")}
	var demoState string
	env := Env{Stdin: strings.NewReader(""), Stdout: &strings.Builder{}, Stderr: &strings.Builder{}, StdinIsTerminal: true, StdoutIsTerminal: true,
		Getenv: func(k string) string { return vars[k] },
		Console: func(ctx context.Context, o console.Options) error {
			s := o.Session
			demoState = s.Paths.StateDir
			if !o.Demo || s.Client == nil || s.Profile.Name != app.DemoProfile {
				t.Errorf("the demo's options: %+v", o)
			}
			if _, err := s.CreateGroup(ctx, app.NewGroup{Name: "spring"}); err != nil {
				return err
			}
			return o.SaveSenders(append(s.Profile.Senders, "5000"))
		}}
	if code := Main(context.Background(), []string{"--demo"}, env); code != 0 {
		t.Fatalf("smsdesk --demo: exit %d", code)
	}
	err := filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
		if err == nil && path != home {
			t.Errorf("the demo wrote %s", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(demoState); demoState == "" || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the demo's state %q is left behind (%v)", demoState, err)
	}
}
