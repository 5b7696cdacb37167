package cli

import (
	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/ui/serve"
)

// serveConsole is the console smsdesk serve runs per session, and its stop
// message. The console (ui/console) is still on bubbletea v1 in this build;
// wish's middleware runs bubbletea v2 programs, so there is none to serve
// until the console's move to v2 (issue 21) lands.
func (a *command) serveConsole(eng *served) (serve.ConsoleFactory, func() tea.Msg) {
	return nil, nil
}
