package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/model/eventually"
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

// TestDemoDeliversAndReplies: --demo wires the campaign loop as it runs
// for real: after a send, its sandbox's signed webhook events reach the
// demo's receiver and every message's delivery lands in the ledger (the
// history detail shows it live), and a few seconds later the first
// recipient's «لغو ۱۱» arrives in the inbox and opts that number out of
// the line. The test waits on those states, never on the seconds.
func TestDemoDeliversAndReplies(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	vars := map[string]string{"TERM": "xterm", "HOME": home,
		"SMSDESK_CONFIG_DIR": filepath.Join(home, "config"), "SMSDESK_STATE_DIR": filepath.Join(home, "state")}
	env := Env{Stdin: strings.NewReader(""), Stdout: &strings.Builder{}, Stderr: &strings.Builder{}, StdinIsTerminal: true, StdoutIsTerminal: true,
		Getenv: func(k string) string { return vars[k] },
		Console: func(ctx context.Context, o console.Options) error {
			s := o.Session
			rows := []model.PairRow{{Line: 2, Recipient: "09120000001", Message: "hello"}, {Line: 3, Recipient: "09120000002", Message: "hello"}}
			p, err := s.PrepareSend(ctx, app.SendRequest{Plan: s.Plan(s.Profile.Sender, rows), Source: app.FileSource("pairs.csv")})
			if err != nil || p.Refusal != nil {
				return fmt.Errorf("prepare: %v %v", err, p.Refusal)
			}
			x, err := p.Start(ctx, app.SendOptions{})
			if err != nil {
				return err
			}
			for range x.Events() {
			}
			if _, err := x.Finish(); err != nil {
				return err
			}
			eventually.True(t, 3*time.Minute, func() bool {
				d, err := config.SendDeliveries(ctx, s.Paths, x.ID())
				if err != nil || len(d) != 2 {
					return false
				}
				for _, r := range d {
					if !r.State.Final() {
						return false
					}
				}
				return true
			}, func() string {
				d, err := config.SendDeliveries(ctx, s.Paths, x.ID())
				return fmt.Sprintf("deliveries %+v %v", d, err)
			})
			var in []app.InboxMessage
			eventually.True(t, 3*time.Minute, func() bool {
				in, err = s.Inbox(ctx, app.InboxQuery{})
				return err == nil && len(in) == 1
			}, func() string { return fmt.Sprintf("inbox %+v %v", in, err) })
			if m := in[0]; m.Sender != "09120000001" || m.Line != s.Profile.Sender || m.Action != model.ReplyOptOut || m.SendID != x.ID() {
				t.Errorf("the demo's reply: %+v", m)
			}
			l, err := s.OptOuts(ctx)
			if err != nil || len(l) != 1 || l[0].Mobile != "09120000001" || l[0].Sender != s.Profile.Sender || l[0].Source != model.OptOutReply {
				t.Errorf("the opt-out list after the reply: %+v %v", l, err)
			}
			return nil
		}}
	if code := Main(context.Background(), []string{"--demo"}, env); code != 0 {
		t.Fatalf("exit %d: %s", code, env.Stderr)
	}
}
