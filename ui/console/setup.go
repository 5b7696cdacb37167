package console

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// LoginFunc verifies a key with a harmless authenticated request and stores it
// exactly as `smsdesk login` does (keyring, or the 0600 file when
// insecureStorage is set), then returns a client for it. A keyring that cannot
// be used is an error matching config.ErrKeyringUnavailable.
type LoginFunc func(ctx context.Context, baseURL, apiKey string, insecureStorage bool) (c *client.Client, keyKind string, err error)

// loggedInMsg answers the setup screen's login.
type loggedInMsg struct {
	Client   *client.Client
	KeyKind  string // live or test: the kind of the key now in use
	BaseURL  string
	Insecure bool
	Err      error
	work     int // the key check's work id
}

func (m loggedInMsg) failure() error { return m.Err }

// setupPane is the first-run screen (and the 401 re-entry): base URL and key
// (masked), verified and stored before the console opens.
type setupPane struct {
	c       *common
	w, h    int
	fields  [2]textinput.Model
	focus   int
	working bool
	err     string
	keyring bool // the keyring is unavailable: offer the file or the environment
	reason  string
}

func newSetupPane(c *common) *setupPane {
	base := textinput.New()
	base.Placeholder = "https://sms.example.com/v1"
	base.SetValue(c.profile.BaseURL)
	apiKey := textinput.New()
	apiKey.Placeholder = "sk_live_… or sk_test_…"
	apiKey.EchoMode = textinput.EchoPassword
	apiKey.EchoCharacter = '•'
	for _, f := range []*textinput.Model{&base, &apiKey} {
		f.Prompt = ""
		steadyInput(f, c.dark())
		f.SetWidth(50)
	}
	p := &setupPane{c: c, fields: [2]textinput.Model{base, apiKey}}
	if base.Value() != "" {
		p.focus = 1
	}
	return p
}

func (p *setupPane) SetSize(w, h int) { p.w, p.h = w, h }
func (p *setupPane) busy() bool       { return p.working }

// Focus puts the cursor in the current field.
func (p *setupPane) Focus() tea.Cmd { return p.fields[p.focus].Focus() }

// Blur leaves both fields.
func (p *setupPane) Blur() {
	p.fields[0].Blur()
	p.fields[1].Blur()
}

func (p *setupPane) Editing() bool { return p.fields[0].Focused() || p.fields[1].Focused() }
func (p *setupPane) LeaveField()   { p.Blur() }

// ShortHelp lists the setup screen's keys.
func (p *setupPane) ShortHelp() []key.Binding {
	k := p.c.keys
	if p.keyring {
		return []key.Binding{k.StoreInFile}
	}
	return []key.Binding{k.Submit, k.NextField, k.LeaveField}
}

// FullHelp lists the setup screen's keys.
func (p *setupPane) FullHelp() [][]key.Binding { return [][]key.Binding{p.ShortHelp()} }

// reenter reopens setup after a 401, keeping the base URL.
func (p *setupPane) reenter(reason string) tea.Cmd {
	p.reason = reason
	p.fields[1].SetValue("")
	p.focus = 1
	return p.Focus()
}

func (p *setupPane) Update(msg tea.Msg) tea.Cmd {
	if paste, ok := msg.(tea.PasteMsg); ok && p.Editing() {
		var cmd tea.Cmd
		p.fields[p.focus], cmd = p.fields[p.focus].Update(paste)
		return cmd
	}
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	k := p.c.keys
	if !p.Editing() {
		switch {
		case p.keyring && key.Matches(km, k.StoreInFile):
			return p.login(true)
		case key.Matches(km, k.Enter), key.Matches(km, k.NextField):
			return p.Focus()
		}
		return nil
	}
	switch {
	case key.Matches(km, k.NextField), key.Matches(km, k.PrevField):
		p.fields[p.focus].Blur()
		p.focus = 1 - p.focus
		return p.fields[p.focus].Focus()
	case key.Matches(km, k.Submit):
		return p.login(false)
	case key.Matches(km, k.LeaveField):
		p.LeaveField()
		return nil
	}
	var cmd tea.Cmd
	p.fields[p.focus], cmd = p.fields[p.focus].Update(km)
	return cmd
}

// login verifies and stores the key off the UI goroutine.
func (p *setupPane) login(insecure bool) tea.Cmd {
	base := strings.TrimSpace(p.fields[0].Value())
	apiKey := strings.TrimSpace(p.fields[1].Value())
	switch {
	case base == "":
		p.err = "enter the service's base URL"
		return nil
	case apiKey == "":
		p.err = "enter the API key"
		return nil
	case p.c.opts.Login == nil:
		p.err = "this console cannot store keys; run `smsdesk login` and start it again"
		return nil
	}
	p.working, p.err = true, ""
	p.Blur()
	login := p.c.opts.Login
	ctx, work := p.c.startWork(workKeyCheck, base)
	return func() tea.Msg {
		cl, kind, err := login(ctx, base, apiKey, insecure)
		return loggedInMsg{Client: cl, KeyKind: kind, BaseURL: base, Insecure: insecure, Err: err, work: work}
	}
}

// answer handles the login's outcome; true means the console may open.
func (p *setupPane) answer(msg loggedInMsg) bool {
	p.working = false
	if msg.Err == nil {
		p.keyring, p.err = false, ""
		p.fields[1].SetValue("")
		return true
	}
	if errors.Is(msg.Err, config.ErrKeyringUnavailable) {
		p.keyring = true
		p.err = errorLine(msg.Err)
		return false
	}
	p.err = errorLine(msg.Err)
	if errors.Is(msg.Err, client.ErrUnauthorized) {
		p.err = "the service refused this key (401): check it and enter it again"
		p.fields[1].SetValue("")
		p.focus = 1
	}
	p.fields[p.focus].Focus()
	return false
}

func (p *setupPane) View() string {
	st := p.c.styles
	// The reason and the error wrap (what to do comes last); the rest fits.
	wrap := func(s lipgloss.Style, text string) string {
		l := p.c.paragraphs(text, max(p.w-2, 20), 0, nil) // the service's words may be Persian
		return s.Render(strings.Join(l[:min(len(l), formErrLines)], "\n"))
	}
	lines := []string{st.Title.Render("Welcome to smsdesk — sign in"), ""}
	if p.reason != "" {
		lines = append(lines, wrap(st.Warn, p.reason), "")
	}
	lines = append(lines,
		"The key is verified with a harmless request, then kept in the system keyring",
		"(never shown again, never written to logs). Profile: "+model.SanitizeLine(p.profileName()),
		"")
	labels := [2]string{"Base URL", "API key"}
	for i := range p.fields {
		mark := "  "
		if i == p.focus {
			mark = "› "
		}
		lines = append(lines, mark+st.Label.Render(fit(labels[i], 9))+" ["+fitView(p.fields[i].View(), 51)+"]")
	}
	lines = append(lines, "")
	switch {
	case p.working:
		lines = append(lines, st.Muted.Render(p.c.spin+" verifying the key…"))
	case p.keyring:
		lines = append(lines, wrap(st.Error, "✗ "+p.err), "",
			"The system keyring cannot be used here (common on SSH and headless servers). Either:",
			"  f  store the key in a 0600 file in the config directory (plain text: insecure storage), or",
			"  q  quit, then export SMSDESK_API_KEY=… in this shell and start smsdesk again.")
	case p.err != "":
		lines = append(lines, wrap(st.Error, "✗ "+p.err))
	default:
		lines = append(lines, st.Muted.Render("enter: verify and save · tab: next field · ctrl+c: leave the field"))
	}
	return st.PaneFocused.Render(block(strings.Join(lines, "\n"), p.w-2, p.h-2))
}

func (p *setupPane) profileName() string {
	if p.c.profile.Name == "" {
		return "default"
	}
	return p.c.profile.Name
}

// loggedIn opens the console once setup has produced a client.
func (m *root) loggedIn(msg loggedInMsg) tea.Cmd {
	m.c.work.end(msg.work)
	if !m.setup.answer(msg) {
		return nil
	}
	// The session now uses this client and key: the confirmation says the
	// key kind of the key in use, not the one found at start.
	m.c.session.Client = msg.Client
	m.c.profile.BaseURL, m.c.profile.KeyKind = msg.BaseURL, msg.KeyKind
	m.lastErr = ""
	note := "signed in"
	if msg.Insecure {
		note = "signed in · warning: the key is stored in a plain-text 0600 file"
	}
	if m.c.opts.KeyFromEnv {
		// This session uses the key just entered; the next start takes the
		// environment's again.
		m.c.opts.KeyFromEnv = false
		note += " · SMSDESK_API_KEY still holds the refused key: fix or unset it before the next start"
	}
	m.screen, m.trail = screenMain, nil
	m.focus = 0
	m.note = note // at once; the message also logs it
	return tea.Batch(m.groups.Focus(), m.groups.load(), cmdOf(statusMsg{Text: note}))
}

// unauthorized sends the operator to re-enter the key after a 401.
func (m *root) unauthorized(err error) tea.Cmd {
	if m.c.opts.Login == nil || m.screen == screenSetup || m.results.running() {
		return nil
	}
	m.active().Blur()
	m.screen, m.trail = screenSetup, nil
	if m.c.opts.KeyFromEnv {
		return m.setup.reenter(fmt.Sprintf("The service refused the key in SMSDESK_API_KEY (401): %s. A key entered here serves this session and is stored, but SMSDESK_API_KEY wins over a stored key at the next start: fix or unset it.", errorLine(err)))
	}
	return m.setup.reenter(fmt.Sprintf("The service refused the key (401): %s. Enter the key again.", errorLine(err)))
}
