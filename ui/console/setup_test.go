package console

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/ui/app"
)

// First run: no client opens setup; an unavailable keyring offers the file
// (f) or the environment; the key is never shown.
func TestSetupKeyringFallback(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	var calls []bool
	login := func(ctx context.Context, base, key string, insecure bool) (*client.Client, string, error) {
		calls = append(calls, insecure)
		if !insecure {
			return nil, "", fmt.Errorf("storing the key: %w", config.ErrKeyringUnavailable)
		}
		c, err := client.New(base, key)
		return c, config.KeyKind(key), err
	}
	sess := testSession(t, nil, app.Profile{})
	trackSeed(t, sess.Paths, "default")
	m := newRoot(t.Context(), Options{Login: login, Now: fixedClock, Session: sess})
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
	if strings.Contains(m.text(), e.srv.Key()) {
		t.Fatal("the key is shown on screen")
	}
	run := func(cmd tea.Cmd) {
		if cmd != nil {
			m.Update(cmd())
		}
	}
	run(m.active().Update(press("enter")))
	if v := m.text(); !strings.Contains(v, "store the key in a 0600 file") || !strings.Contains(v, "SMSDESK_API_KEY") {
		t.Fatalf("keyring unavailable: choices not offered:\n%s", v)
	}
	run(m.active().Update(press("f")))
	if len(calls) != 2 || calls[0] || !calls[1] {
		t.Fatalf("login calls (insecure?) %v; want keyring first, then file", calls)
	}
	if m.screen != screenMain || m.c.client() == nil || m.setup.keyring {
		t.Fatalf("after login: screen %v, note %q", m.screen, m.note)
	}
	// The confirmation names the kind of the key now in use: it said "unknown
	// kind of key" for the rest of a session begun on the setup screen.
	if want := config.KeyKind(e.srv.Key()); want == "" || m.c.profile.KeyKind != want || m.c.session.Profile.KeyKind != want {
		t.Fatalf("key kind after setup: profile %q, session %q; want %q", m.c.profile.KeyKind, m.c.session.Profile.KeyKind, want)
	}
}

// TestRefusedKeyFromTheEnvironment: a 401 for a key that came from
// SMSDESK_API_KEY says that the variable wins over a stored key, before and
// after a new key is entered (it would be refused again at the next start).
func TestRefusedKeyFromTheEnvironment(t *testing.T) {
	t.Parallel()
	for _, fromEnv := range []bool{false, true} {
		t.Run(fmt.Sprint("from env ", fromEnv), func(t *testing.T) {
			e := newEnv(t, sandbox.Options{})
			bad, err := client.New(e.clientBase(), "sk_test_refusedrefused")
			if err != nil {
				t.Fatal(err)
			}
			login := func(ctx context.Context, base, key string, insecure bool) (*client.Client, string, error) {
				c, err := client.New(base, key)
				return c, config.KeyKind(key), err
			}
			sess := testSession(t, bad, app.Profile{BaseURL: e.clientBase()})
			trackSeed(t, sess.Paths, "default")
			m := newRoot(t.Context(), Options{KeyFromEnv: fromEnv, Login: login, Now: fixedClock, Session: sess})
			m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
			m.Update(statusMsg{Err: &client.APIError{Method: "GET", Path: "/contact-groups/1/contacts", Status: 401, Code: "unauthorized"}})
			if m.screen != screenSetup {
				t.Fatal("a 401 did not open the setup screen")
			}
			said := strings.Contains(strings.Join(strings.Fields(m.text()), " "), "SMSDESK_API_KEY wins")
			if said != fromEnv {
				t.Errorf("setup names SMSDESK_API_KEY: %v, want %v\n%s", said, fromEnv, m.text())
			}
			for _, r := range e.srv.Key() { // the key field has the focus
				m.Update(press(string(r)))
			}
			if cmd := m.active().Update(press("enter")); cmd != nil {
				m.Update(cmd()) // signed in; the loads it starts are not run here
			}
			if m.screen != screenMain {
				t.Fatalf("after a good key: screen %v", m.screen)
			}
			if warned := strings.Contains(m.note, "SMSDESK_API_KEY still holds the refused key"); warned != fromEnv {
				t.Errorf("status note %q: warns of SMSDESK_API_KEY %v, want %v", m.note, warned, fromEnv)
			}
		})
	}
}
