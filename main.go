// Command smsdesk is a terminal console and command line for the operators of an
// SMS service. main only wires the packages together: the command line (ui/cli)
// reads flags and config and builds the client; the console (ui/console) is
// handed over to when no command is given.
package main

import (
	"context"
	"os"

	"golang.org/x/term"

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
		TerminalWidth: func() int {
			w, _, err := term.GetSize(int(os.Stdout.Fd()))
			if err != nil {
				return 0
			}
			return w
		},
		Console: console.Run,
	}
	os.Exit(cli.Main(context.Background(), os.Args[1:], env))
}
