package console

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// TestGatedKeysReadTheOperatorsOffTheLoop: a served operator's gated key
// (c compose) reads the operators file in a Cmd, never in Update (issue
// 35): while the read is held the console still answers, and when it
// ends the key does what it does. Update called app.Session.Allow, which
// stats and parses the file: a slow disk froze every key.
func TestGatedKeysReadTheOperatorsOffTheLoop(t *testing.T) {
	e := newEnv(t, sandbox.Options{})
	entry := config.OperatorEntry{Name: "sara", Role: model.RoleSender,
		Key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHJ0EVdyHL3jNdy3VOmrwmO5FivFWp0f2o8s9NFwYgAa sara@laptop"}
	sara := entry.Operator()
	held, release := make(chan struct{}), make(chan struct{})
	var hold sync.Once
	var armed sync.Mutex
	on := false
	e.opts.Session.Operator = &sara
	e.opts.Session.Operators = func() ([]config.OperatorEntry, error) {
		armed.Lock()
		wait := on
		armed.Unlock()
		if wait {
			hold.Do(func() { close(held) })
			<-release
		}
		return []config.OperatorEntry{entry}, nil
	}
	var releaseOnce sync.Once
	tm := e.startOnGroup1(t)
	t.Cleanup(func() { releaseOnce.Do(func() { close(release) }) }) // before the program is quit
	armed.Lock()
	on = true
	armed.Unlock()
	tm.Send(press("c"))
	<-held
	answered := make(chan bool, 1)
	go tm.Send(probeMsg{fn: func(m *root) { answered <- m.screen == screenMain }}) // Send waits for Update to take it
	select {
	case onMain := <-answered:
		if !onMain {
			t.Fatal("the composer opened before the operators file was read")
		}
	case <-time.After(30 * time.Second): // a hang guard: the console answers at once unless Update waits on the file
		t.Fatal("the console did not answer while the operators file was being read: Update reads it")
	}
	releaseOnce.Do(func() { close(release) })
	waitModel(t, tm, "the composer, once the file allowed it", func(m *root) bool {
		return m.screen == screenComposer && !strings.Contains(m.lastErr, "needs")
	})
}
