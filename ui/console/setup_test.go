package console

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
)

// First run: no client opens setup; an unavailable keyring offers the file
// (f) or the environment; the key is never shown.
func TestSetupKeyringFallback(t *testing.T) {
	e := newEnv(t, sandbox.Options{})
	var calls []bool
	login := func(ctx context.Context, base, key string, insecure bool) (*client.Client, error) {
		calls = append(calls, insecure)
		if !insecure {
			return nil, fmt.Errorf("storing the key: %w", config.ErrKeyringUnavailable)
		}
		return client.New(base, key)
	}
	m := newRoot(t.Context(), Options{Login: login, Groups: e.groups, Now: fixedClock})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	if m.screen != screenSetup {
		t.Fatal("no client should open the setup screen")
	}
	m.Init()
	for _, r := range e.clientBase() {
		m.Update(press(string(r)))
	}
	m.send("tab")
	for _, r := range e.srv.Key() {
		m.Update(press(string(r)))
	}
	if strings.Contains(m.View(), e.srv.Key()) {
		t.Fatal("the key is shown on screen")
	}
	run := func(cmd tea.Cmd) {
		if cmd != nil {
			m.Update(cmd())
		}
	}
	run(m.active().Update(press("enter")))
	if v := m.View(); !strings.Contains(v, "store the key in a 0600 file") || !strings.Contains(v, "SMSDESK_API_KEY") {
		t.Fatalf("keyring unavailable: choices not offered:\n%s", v)
	}
	run(m.active().Update(press("f")))
	if len(calls) != 2 || calls[0] || !calls[1] {
		t.Fatalf("login calls (insecure?) %v; want keyring first, then file", calls)
	}
	if m.screen != screenMain || m.c.client == nil || m.setup.keyring {
		t.Fatalf("after login: screen %v, note %q", m.screen, m.note)
	}
}
