package cli

import (
	"context"
	"os"
	"testing"

	"golang.org/x/term"
)

// envRunAsSmsdesk makes the test binary run as smsdesk (the command line of
// main.go, without the console): the process-level tests start it as a real
// process, with its own stdio, signals and environment, without a build.
const envRunAsSmsdesk = "SMSDESK_TEST_RUN_AS_SMSDESK"

func TestMain(m *testing.M) {
	if os.Getenv(envRunAsSmsdesk) == "1" {
		os.Exit(Main(context.Background(), os.Args[1:], Env{
			Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv,
			StdinIsTerminal:  term.IsTerminal(int(os.Stdin.Fd())),
			StdoutIsTerminal: term.IsTerminal(int(os.Stdout.Fd())),
		}))
	}
	os.Exit(m.Run())
}
