package console

import (
	"context"
	"log/slog"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/ui/app"
)

// client is the session's client, nil before the setup screen.
func (c *common) client() *client.Client { return c.session.Client }

// common is the one shared context handed to every pane at construction: size,
// styles, keys, the client, logger and profile. It is never global.
type common struct {
	ctx    context.Context
	width  int
	height int
	styles *Styles
	theme  Theme
	keys   *KeyMap
	// session is the application layer's session: profile, client (nil
	// until the setup screen has produced one), state directory.
	session *app.Session
	// profile is the session's profile (a pointer into it: the setup
	// screen's key changes its key kind for everyone).
	profile *app.Profile
	// rules are the profile's settings as the config file held them when
	// last read (rules.go): what the status bar, the clock, the composer's
	// plan and the time form show and check. rulesErr says the file did
	// not read (rules are then the ones read before).
	rules    app.Profile
	rulesErr string
	logger   *slog.Logger
	now      func() time.Time
	spin     string // current spinner frame, for panes with work in flight
	// bidi is true while right-to-left text is reordered for display
	// (fitText); the bidi key switches it.
	bidi bool
	opts *Options

	// showModal and closeModal open and close a form or dialog at once (the
	// root owns the modal slot).
	showModal  func(modal) tea.Cmd
	closeModal func()
	// switchTo moves to another screen at once; back goes back to the
	// screen the current one was entered from (navigate.go).
	switchTo func(screen) tea.Cmd
	back     func() tea.Cmd
	// openViewer shows a text in full (a row's detail); esc comes back.
	openViewer func(title string, text []string) tea.Cmd
	// log adds a line to the message log (L).
	log func(text string)
	// work is the background work in flight, each piece with its owner's
	// id and context (worklog.go).
	work *workList
	// writes are the writes to the state directory that Cmds make, waited
	// for when the console ends (statewrites.go).
	writes *stateWrites
	// gates counts the gated keys asked (gate.go): only the last one's
	// answer acts; gating while it is awaited.
	gates  int
	gating bool
}

// dark reports whether the theme is for a dark background (the bubbles'
// own styles come in a light and a dark form).
func (c *common) dark() bool { return c.theme.Name != LightTheme.Name }

// host is the service host for the status bar.
func (c *common) host() string {
	return hostOf(c.profile.BaseURL)
}

// forRole drops from a key help list the action keys (gated) whose action
// the session's operator may not take (a served viewer's footer offered c,
// n, d and i, each refused when pressed); the keys still answer, with the
// role needed.
func (c *common) forRole(keys []key.Binding, gated ...ActionKey) []key.Binding {
	if c.session == nil || c.session.Operator == nil {
		return keys
	}
	out := keys[:0:0]
	for _, b := range keys {
		if !c.refusedKey(b, gated) {
			out = append(out, b)
		}
	}
	return out
}

// refusedKey reports whether b is one of the gated keys and the operator's
// role, as last read, does not allow its action (no file is read for a
// footer: the key itself asks Allow).
func (c *common) refusedKey(b key.Binding, gated []ActionKey) bool {
	for _, g := range gated {
		if g.is(b) {
			return !c.session.May(g.Action)
		}
	}
	return false
}
