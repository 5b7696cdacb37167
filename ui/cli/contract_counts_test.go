package cli

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/model/eventually"
	"github.com/smsdesk/smsdesk/model/syncbuf"
)

// TestJSONCountsAndStops: send-pair --json always has counts, with what
// the plan knows on a dry run and a refusal (every recipient not sent,
// zeros for the rest; they were null); and "interrupted" means a signal:
// a send the service stopped (credit) or that stopped after unknown
// outcomes is interrupted: false, with stopped and stop_cause (it said
// interrupted: true with no signal sent).
func TestJSONCountsAndStops(t *testing.T) {
	t.Parallel()
	credit := int64(2)
	e := newSendEnvOpts(t, sandbox.Options{Credit: &credit, NoCreditEndpoint: true}, nil)
	good := e.pairsFile(t, "good.csv", 4, nil)
	bad := e.pairsFile(t, "bad.csv", 3, map[int]string{1: "0912"})
	notSent := func(n int) model.StateCounts { return model.StateCounts{Total: n, NotSent: n} }

	_, dry, _ := e.run(t, "send-pair", "--json", "--dry-run", "--sender", sandbox.DefaultSender, "--file", good)
	_, refused, _ := e.run(t, "send-pair", "--json", "--yes", "--sender", sandbox.DefaultSender, "--file", bad)
	_, sent, _ := e.run(t, "send-pair", "--json", "--yes", "--chunk-size", "1", "--sender", sandbox.DefaultSender, "--file", good)
	_, repeat, _ := e.run(t, "send-pair", "--json", "--yes", "--sender", sandbox.DefaultSender, "--file", good)
	for _, tt := range []struct {
		name, out string
		counts    model.StateCounts
		stopped   bool
		cause     string
	}{
		{"dry run", dry, notSent(4), false, ""},
		{"refused rows", refused, notSent(3), false, ""},
		{"repeat refused", repeat, notSent(4), false, ""},
		{"stopped for credit", sent, model.StateCounts{Total: 4, Accepted: 2, NotSent: 2}, true, "credit"},
	} {
		rep := decodeReport(t, tt.out)
		switch {
		case rep.Counts == nil:
			t.Errorf("%s: counts null\n%s", tt.name, tt.out)
		case *rep.Counts != tt.counts:
			t.Errorf("%s: counts %+v, want %+v", tt.name, *rep.Counts, tt.counts)
		}
		if rep.Interrupted || (rep.Stopped != nil) != tt.stopped || tt.stopped && (rep.StopCause == nil || *rep.StopCause != tt.cause) {
			t.Errorf("%s: interrupted %v, stopped %v, stop_cause %v; want false, %v, %q", tt.name, rep.Interrupted, rep.Stopped, rep.StopCause, tt.stopped, tt.cause)
		}
	}

	// Two chunks in a row without a certain answer (500s): the engine stops
	// by itself. Unknown outcomes, exit 3; no signal: not interrupted.
	sc := &scripted{faults: map[int]string{1: "500", 2: "500"}}
	u := newSendEnv(t, sc.wrap)
	code, out, _ := u.run(t, "send-pair", "--json", "--yes", "--chunk-size", "1", "--sender", sandbox.DefaultSender, "--file", u.pairsFile(t, "p.csv", 4, nil))
	rep := decodeReport(t, out)
	if code != ExitUnknown || rep.Interrupted || rep.StopCause == nil || *rep.StopCause != "unknown" || rep.Counts == nil || rep.Counts.Unknown != 2 || rep.Counts.NotSent != 2 {
		t.Errorf("stopped after unknowns: exit %d, interrupted %v, stop_cause %v, counts %+v\n%s", code, rep.Interrupted, rep.StopCause, rep.Counts, out)
	}
	// On a terminal it reads "(stopped)", not "(interrupted)".
	sc2 := &scripted{faults: map[int]string{1: "500", 2: "500"}}
	u2 := newSendEnv(t, sc2.wrap)
	_, out, _ = u2.run(t, "send-pair", "--yes", "--chunk-size", "1", "--sender", sandbox.DefaultSender, "--file", u2.pairsFile(t, "p.csv", 4, nil))
	if !strings.Contains(out, "(stopped)") || strings.Contains(out, "(interrupted)") {
		t.Errorf("stopped after unknowns, for people:\n%s", out)
	}
}

// TestOneRecipientReadsAsOne: the summary and the question count one as
// one ("1 recipients", "1 messages (1 SMS parts)" were printed), and a
// question that cannot be asked is quoted whole before why ("…recipients?:
// stdin is not a terminal" read as one broken sentence).
func TestOneRecipientReadsAsOne(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	_, errOut := e.mustRun(t, ExitUsage, "send-pair", "--to", "09121234567", "--message", "Your code is 4821", "--sender", sandbox.DefaultSender)
	for _, want := range []string{"1 recipient · 1 GSM-7 → 1 part\n", "The message, as it will be sent:\n",
		`stdin is not a terminal, so smsdesk cannot ask "Send 1 message (1 SMS part) from 3000505 to 1 recipient?": pass --yes to go ahead`} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	_, errOut = e.mustRun(t, ExitUsage, "send-pair", "--to", "09121234567", "--message", "a", "--to", "09121234568", "--message", "b", "--sender", sandbox.DefaultSender)
	if !strings.Contains(errOut, "2 recipients · ") || !strings.Contains(errOut, `"Send 2 messages (2 SMS parts) from 3000505 to 2 recipients?"`) || !strings.Contains(errOut, "First 2 of 2 messages") {
		t.Errorf("two:\n%s", errOut)
	}
}

// TestJSONRefusedAsItStarts: a send refused as it starts (another run took
// its pairs while it asked) prints the plan's report with its counts under
// --json, as a refusal at the check does; stdout was empty.
func TestJSONRefusedAsItStarts(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	file := e.pairsFile(t, "pairs.csv", 3, nil)
	args := []string{"send-pair", "--file", file, "--sender", sandbox.DefaultSender, "--json"}
	answer, typed := io.Pipe()
	var stdout, stderr syncbuf.Buffer
	done := make(chan int, 1)
	go func() {
		done <- Main(context.Background(), args, Env{Stdin: answer, Stdout: &stdout, Stderr: &stderr, Getenv: e.getenv, StdinIsTerminal: true})
	}()
	eventually.Contains(t, waitLimit, &stderr, "[y/N]")
	e.mustRun(t, 0, append(args[:len(args)-1], "--yes")...)
	if _, err := typed.Write([]byte("y\n")); err != nil {
		t.Fatal(err)
	}
	if code := <-done; code != ExitUsage {
		t.Fatalf("exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	rep := decodeReport(t, stdout.String())
	if rep.Counts == nil || *rep.Counts != (model.StateCounts{Total: 3, NotSent: 3}) || rep.ID != nil {
		t.Errorf("refused as it starts: counts %+v, id %v\n%s", rep.Counts, rep.ID, stdout.String())
	}
}
