package cli

import (
	"context"
	"flag"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"golang.org/x/term"
)

// envRunAsSmsdesk makes the test binary run as smsdesk (the command line of
// main.go, without the console): the process-level tests start it as a real
// process, with its own stdio, signals and environment, without a build.
const envRunAsSmsdesk = "SMSDESK_TEST_RUN_AS_SMSDESK"

// envClockOffset moves the clock of the test binary run as smsdesk by a
// duration (time.ParseDuration): a process test schedules a send, then
// runs the scheduler "after its time" without waiting for it. Read by the
// test binary only; smsdesk itself has no such setting.
const envClockOffset = "SMSDESK_TEST_CLOCK_OFFSET"

// envLookWait is the test binary's bound on a runner's looks at the
// ledger (Env.LookWait, time.ParseDuration): a process test holds the
// ledger's lock for its whole length and waits for a look to give up
// without waiting the real 25 s. Read by the test binary only.
const envLookWait = "SMSDESK_TEST_LOOK_WAIT"

func TestMain(m *testing.M) {
	if os.Getenv(envRunAsSmsdesk) == "1" {
		env := Env{
			Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv,
			StdinIsTerminal:  term.IsTerminal(int(os.Stdin.Fd())),
			StdoutIsTerminal: term.IsTerminal(int(os.Stdout.Fd())),
			TerminalWidth:    func() int { w, _, _ := term.GetSize(int(os.Stdout.Fd())); return w },
		}
		if d, err := time.ParseDuration(os.Getenv(envLookWait)); err == nil {
			env.LookWait = d
		}
		if off, err := time.ParseDuration(os.Getenv(envClockOffset)); err == nil && off != 0 {
			env.Now = func() time.Time { return time.Now().Add(off) }
		}
		os.Exit(Main(context.Background(), os.Args[1:], env))
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
