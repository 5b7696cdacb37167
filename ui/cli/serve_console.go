package cli

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/ui/console"
	"github.com/smsdesk/smsdesk/ui/serve"
)

// serveConsole is the console smsdesk serve runs per session (console.New
// on the session's own terminal), and its stop message.
func (a *command) serveConsole(eng *served) (serve.ConsoleFactory, func() tea.Msg) {
	var cs config.ConsoleSettings
	if cfg, err := config.Load(eng.opPaths); err == nil {
		cs = cfg.Console
	}
	return func(ctx context.Context, t serve.Terminal) (serve.Console, []tea.ProgramOption) {
		return console.New(ctx, a.servedOptions(eng, cs, t))
	}, console.Stop
}

// servedOptions are one session's console options. Display settings are
// decided from the client's terminal (TERM, NO_COLOR, TMUX… as its ssh sent
// them) and this host's [console] settings; nothing of the server's own
// terminal or environment is read, so one operator's terminal does not
// change another's. The client's background is not asked before the
// program starts: theme auto is dark.
func (a *command) servedOptions(eng *served, cs config.ConsoleSettings, t serve.Terminal) console.Options {
	opts := console.Options{
		Session: t.App, Demo: eng.demo, Logger: a.logger(), FilesDir: eng.files,
		Input: t.Input, Output: t.Output, Environ: t.Environ, ColorProfile: t.ColorProfile, Width: t.Width, Height: t.Height,
	}
	opts.Display(cs, t.Getenv, nil)
	return opts
}
