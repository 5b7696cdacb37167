package cli

import (
	"context"
	"flag"
	"os"
	"runtime"
	"strconv"
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
			TerminalWidth:    func() int { w, _, _ := term.GetSize(int(os.Stdout.Fd())); return w },
		}))
	}
	// Most tests wait on processes, sandboxes and timeouts far more than they
	// compute (TestProcess_KeyCheckProvesTheAPI waits 2.5 s of the real
	// clock it tests): more of them run side by side than the cores, unless
	// -test.parallel says otherwise.
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", strconv.Itoa(max(8, runtime.GOMAXPROCS(0))))
	}
	os.Exit(m.Run())
}
