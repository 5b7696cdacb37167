// Command smsdesk is a terminal console and command line for the operators of an
// SMS service. main only wires the packages together: the command line (ui/cli)
// reads flags and config and builds the client; the console (ui/console) is
// handed over to when no command is given.
package main

import (
	"context"
	"os"

	"golang.org/x/term"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/cli"
	"github.com/smsdesk/smsdesk/ui/console"
)

func main() {
	env := cli.Env{
		Stdin:            os.Stdin,
		Stdout:           os.Stdout,
		Stderr:           os.Stderr,
		Getenv:           os.Getenv,
		StdinIsTerminal:  term.IsTerminal(int(os.Stdin.Fd())),
		StdoutIsTerminal: term.IsTerminal(int(os.Stdout.Fd())),
		Console:          runConsole,
	}
	os.Exit(cli.Main(context.Background(), os.Args[1:], env))
}

// runConsole opens the console with what the command line resolved.
func runConsole(ctx context.Context, o cli.ConsoleOptions) error {
	p := o.Profile.WithDefaults()
	format, err := model.ParseNumberFormat(p.NumberFormat)
	if err != nil {
		format = model.FormatLocal
	}
	window, err := p.Window()
	if err != nil {
		window = config.DefaultRepeatWindow
	}
	paths := o.Paths
	opts := console.Options{
		Client: o.Client,
		Profile: console.Profile{
			Name:               o.ProfileName,
			BaseURL:            o.BaseURL,
			Sender:             p.Sender,
			Senders:            p.Senders,
			RatePerMinute:      p.RatePerMinute,
			ChunkSize:          p.ChunkSize,
			NumberFormat:       format,
			KeyKind:            o.KeyKind,
			Prices:             model.Prices{GSM7: p.PriceGSM7, UCS2: p.PriceUCS2},
			RepeatWindow:       window,
			AllowInternational: p.AllowInternational,
		},
		Paths:    &paths,
		StateDir: o.Paths.StateDir,
		Demo:     o.Demo,
		Logger:   o.Logger,
	}
	if o.Login != nil {
		opts.Login = o.Login
	}
	opts.SaveSenders = o.SaveSenders
	opts.Retries = o.Retries
	return console.Run(ctx, opts)
}
