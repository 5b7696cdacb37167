package console

import (
	"context"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/ui/app"
)

// Golden frames at 100×30 under the ASCII profile (see TestMain) for the
// screens the flow tests do not already pin: setup, help and history. The clock
// is fixed, the host is the profile's (sandbox.test), the send id is fixed and
// the rate budget is masked by requireGolden.

func TestSetupScreenGolden(t *testing.T) {
	t.Parallel()
	login := func(context.Context, string, string, bool) (*client.Client, string, error) {
		t.Error("the setup screen logged in without being asked")
		return nil, "", nil
	}
	opts := Options{Login: login, Now: fixedClock,
		Session: testSession(t, nil, app.Profile{Name: "default", BaseURL: "https://sms.example.com/v1"})}
	tm := startProgram(t, opts)
	waitModel(t, tm, "setup shown", func(m *root) bool { return m.screen == screenSetup })
	typeText(tm, "sk_live_secretsecret") // the base URL is the profile's: focus starts on the key
	var frame string
	waitModel(t, tm, "key typed", func(m *root) bool {
		frame = m.text()
		for _, l := range strings.Split(frame, "\n") {
			if strings.Contains(l, "API key") {
				return strings.Count(l, "•") == len("sk_live_secretsecret")
			}
		}
		return false
	})
	if strings.Contains(frame, "secret") {
		t.Fatalf("the key is shown:\n%s", frame)
	}
	requireGolden(t, finalView(t, tm))
}

func TestHelpScreenGolden(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	tm := e.startOnGroup1(t)
	tm.Send(press("?"))
	waitModel(t, tm, "help shown", func(m *root) bool { return m.screen == screenHelp })
	frame := finalView(t, tm)
	// Every binding of the key map is on the help screen.
	for _, group := range DefaultKeyMap().FullHelp() {
		for _, b := range group {
			if !strings.Contains(frame, b.Help().Desc) {
				t.Errorf("help lacks %q (%s)", b.Help().Desc, b.Help().Key)
			}
		}
	}
	requireGolden(t, frame)
}

func TestHistoryGolden(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	paths := e.opts.Session.Paths // a temporary state directory of its own
	writeInterruptedSend(t, paths, "3000505")
	tm := e.startOnGroup1(t)
	tm.Send(press("h"))
	var list string
	waitModel(t, tm, "history listed", func(m *root) bool {
		list = m.text()
		return m.screen == screenHistory && !m.history.loading && len(m.history.entries) == 1
	})
	namedGolden(t, "list", list)
	tm.Send(press("enter"))
	var detail string
	waitModel(t, tm, "send opened", func(m *root) bool {
		detail = m.text()
		return m.history.detail != nil && m.history.detail.state != nil && !m.history.detail.loading
	})
	namedGolden(t, "detail", detail)
	finalView(t, tm)
}
