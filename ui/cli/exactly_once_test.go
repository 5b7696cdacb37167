package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
	"github.com/smsdesk/smsdesk/model/eventually"
	"github.com/smsdesk/smsdesk/model/syncbuf"
)

// stoppedSend makes a send of n pairs that the service stops after its
// second chunk (credit gone): 200 accepted, the rest resumable.
func stoppedSend(t *testing.T, n int) (*sendEnv, string) {
	t.Helper()
	var e *sendEnv
	posts := 0
	e = newSendEnv(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/sms/send-pair") {
				if posts++; posts == 3 {
					e.sb.SetCredit(0)
				}
			}
			h.ServeHTTP(w, r)
		})
	})
	file := e.pairsFile(t, "pairs.csv", n, nil)
	out, _ := e.mustRun(t, ExitService, "send-pair", "--file", file, "--sender", sandbox.DefaultSender, "--yes")
	id := regexp.MustCompile(`Send (\S+):`).FindStringSubmatch(out)
	if id == nil {
		t.Fatalf("no send id in %q", out)
	}
	e.sb.SetCredit(1_000_000)
	return e, id[1]
}

func noDuplicates(t *testing.T, e *sendEnv, want int) {
	t.Helper()
	sent := e.sb.Sent()
	seen := map[string]bool{}
	for _, s := range sent {
		k := s.Recipient + "\x00" + s.Message
		if seen[k] {
			t.Fatalf("%s got its message twice", s.Recipient)
		}
		seen[k] = true
	}
	if len(sent) != want {
		t.Fatalf("the sandbox delivered %d, want %d", len(sent), want)
	}
}

// TestResumeDecidesUnderTheLock: B runs `send-pair --resume ID` and waits at
// its y/N prompt; meanwhile A resumes the same send with --yes and finishes.
// B's yes must find nothing left (it once sent every pair again).
func TestResumeDecidesUnderTheLock(t *testing.T) {
	t.Parallel()
	e, id := stoppedSend(t, 600)
	pr, pw := io.Pipe()
	var bErr syncbuf.Buffer
	done := make(chan int, 1)
	go func() {
		done <- Main(context.Background(), []string{"send-pair", "--resume", id},
			Env{Stdin: pr, StdinIsTerminal: true, Stdout: io.Discard, Stderr: &bErr, Getenv: e.getenv})
	}()
	eventually.Contains(t, waitLimit, &bErr, "[y/N]")                                                            // B asks
	if _, stderr := e.mustRun(t, 0, "send-pair", "--resume", id, "--yes"); !strings.Contains(stderr, "Time: ") { // A
		t.Errorf("the resume did not say its time, as a new send does:\n%s", stderr)
	}
	noDuplicates(t, e, 600)
	if _, err := io.WriteString(pw, "y\n"); err != nil {
		t.Fatal(err)
	}
	code := <-done
	noDuplicates(t, e, 600)
	if code != 0 || !strings.Contains(bErr.String(), "Nothing left to send: another run of send "+id+" finished it") {
		t.Fatalf("B: exit %d\n%s", code, bErr.String())
	}
}

// TestResumeAfterATornIntent: one intent record of a send is damaged (a
// bad disk, a hand's edit). The ledger is damaged: history says so and how
// to restore it, and the resume is refused; nothing is sent again (a torn
// intent's recipients may have been accepted).
func TestResumeAfterATornIntent(t *testing.T) {
	t.Parallel()
	e, id := stoppedSend(t, 600)
	before := len(e.sb.Sent())
	// Records: the plan, chunk 0's intent and outcome, chunk 1's intent, …
	ledgertest.DamageRecord(t, filepath.Join(e.dir, "state", "smsdesk.db"), id, 4, `{"type":"intent","chunk":1,`+strings.Repeat("\u0000", 20))
	code, _, stderr := e.run(t, "history", "show", id)
	if code == 0 || !strings.Contains(stderr, "is damaged") || !strings.Contains(stderr, "backup") {
		t.Errorf("history show (exit %d) did not name the damage:\n%s", code, stderr)
	}
	code, _, stderr = e.run(t, "send-pair", "--resume", id, "--yes")
	if code == 0 || !strings.Contains(stderr, "damaged") || !strings.Contains(stderr, "nothing was sent") {
		t.Errorf("resume (exit %d) did not refuse naming the damage:\n%s", code, stderr)
	}
	if n := len(e.sb.Sent()); n != before {
		t.Errorf("%d messages went after the damage", n-before)
	}
	noDuplicates(t, e, before)
}

// TestSendToADeadService: a send to a port nobody listens on says so on
// stderr at its first failure, gives up within retry_for (on a fake clock:
// no real waiting), leaves every item "not sent", exits 1 and can be resumed.
func TestSendToADeadService(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	e.env["SMSDESK_BASE_URL"] = "http://" + dead + "/api/v1"
	file := e.pairsFile(t, "pairs.csv", 100, nil)
	clock := newFakeClock()
	var stdout, stderr syncbuf.Buffer
	code := Main(context.Background(), []string{"send-pair", "--file", file, "--sender", sandbox.DefaultSender, "--yes"},
		Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: e.getenv, Now: clock.Now, Sleep: clock.Sleep})
	if waited := clock.Slept(); waited > 65*time.Second {
		t.Errorf("took %s on the send's clock, want about retry_for (30 s) per step", waited)
	}
	out, errOut := stdout.String(), stderr.String()
	if code != ExitService {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, ExitService, out, errOut)
	}
	first := strings.SplitN(errOut, "\n", 2)[0]
	if !strings.Contains(errOut, "smsdesk: service unreachable (cannot connect to "+dead+" (connection refused)") ||
		!strings.Contains(errOut, "retry 2 in") {
		t.Errorf("no word of the dead service on stderr (first line %q):\n%s", first, errOut)
	}
	for _, want := range []string{"0 accepted", "100 not sent", "could not be reached for 30s", "To continue: smsdesk send-pair --resume "} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
}

// Outputs cannot be turned against their reader: CSV cells that a
// spreadsheet would run are neutralised; --json keeps the data exact with
// every control escaped (\u009b, the 8-bit CSI, included); a journal's id
// with an escape sequence in it is printed sanitised.
func TestOutputsAreSafe(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	gid := strings.TrimSpace(first(e.mustRun(t, 0, "groups", "create", "Team")))
	e.mustRun(t, 0, "contacts", "add", gid, "09121234567", "--name", "=HYPERLINK(\"http://evil.example\",\"click\")")
	e.mustRun(t, 0, "contacts", "add", gid, "09131234567", "--name", "@SUM(A1:A9)")
	out, _ := e.mustRun(t, 0, "contacts", "list", gid, "--csv")
	if !strings.Contains(out, `"'=HYPERLINK(""http://evil.example"",""click"")"`) || !strings.Contains(out, "'@SUM(A1:A9)") {
		t.Errorf("contacts list --csv:\n%q", out)
	}
	// --json keeps a string exact and escapes every control in it.
	var buf bytes.Buffer
	if err := printJSON(&buf, map[string]string{"name": "Ali\u009b31m\x7f\x01 علی"}); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != "{\n  \"name\": \"Ali\\u009b31m\\u007f\\u0001 علی\"\n}\n" {
		t.Errorf("printJSON: %q", got)
	}
	file := e.pairsFile(t, "p.csv", 1, nil)
	sendOut, _ := e.mustRun(t, 0, "send-pair", "--file", file, "--sender", sandbox.DefaultSender, "--yes")
	id := regexp.MustCompile(`Send (\S+):`).FindStringSubmatch(sendOut)[1]
	// A journal whose id carries an escape sequence (a file written by hand).
	path := filepath.Join(e.dir, "state", "sends", id+".jsonl")
	b, _ := os.ReadFile(path)
	os.WriteFile(path, []byte(strings.Replace(string(b), `"id":"`+id+`"`, `"id":"`+id+`\u001b]0;pwned\u0007"`, 1)), 0o600)
	out, _ = e.mustRun(t, 0, "history", "show", id)
	if strings.ContainsAny(out, "\x1b\x07\u009b") {
		t.Errorf("history show printed a control sequence:\n%q", out)
	}
}

// TestConcurrentConfigSetLosesNothing: three `config set` at once, twenty
// times: every setting is in the file afterwards (once 10 of 20 trials lost
// one, each command printing ✓).
func TestConcurrentConfigSetLosesNothing(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	for trial := range 20 {
		sets := [][]string{
			{"config", "set", "sender", fmt.Sprintf("300%d", trial)},
			{"config", "set", "chunk_size", strconv.Itoa(10 + trial)},
			{"config", "set", "repeat_window", fmt.Sprintf("%dh", 1+trial)},
		}
		var wg sync.WaitGroup
		codes := make([]int, len(sets))
		for i, args := range sets {
			wg.Add(1)
			go func() {
				defer wg.Done()
				codes[i] = Main(context.Background(), args, Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Getenv: e.getenv})
			}()
		}
		wg.Wait()
		for i, c := range codes {
			if c != 0 {
				t.Fatalf("trial %d: %v exit %d", trial, sets[i], c)
			}
		}
		for _, want := range [][2]string{{"sender", fmt.Sprintf("300%d", trial)}, {"chunk_size", strconv.Itoa(10 + trial)}, {"repeat_window", fmt.Sprintf("%dh", 1+trial)}} {
			out, _ := e.mustRun(t, 0, "config", "get", want[0])
			if strings.TrimSpace(out) != want[1] {
				t.Fatalf("trial %d: %s = %q, want %q (a concurrent set lost it)", trial, want[0], strings.TrimSpace(out), want[1])
			}
		}
	}
}

// TestImportRunTwice: an import interrupted after 5 rows, run again, adds
// only the missing rows; a third run adds nothing and is not a failure.
func TestImportRunTwice(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var adds atomic.Int32
	e := newSendEnv(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.ServeHTTP(w, r)
			if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/contacts") && adds.Add(1) == 5 {
				cancel() // ctrl+c while the fifth row is answered
			}
		})
	})
	gid := strings.TrimSpace(first(e.mustRun(t, 0, "groups", "create", "Import")))
	var b strings.Builder
	b.WriteString("mobile,name\n")
	for i := range 12 {
		fmt.Fprintf(&b, "0912000%04d,Person %d\n", i, i)
	}
	file := e.file(t, "contacts.csv", b.String())
	code, out, _ := e.runCtx(t, ctx, "contacts", "import", gid, file)
	if code == 0 || !strings.Contains(out, "Imported 5 of 12") {
		t.Fatalf("interrupted import: exit %d\n%s", code, out)
	}
	out, _ = e.mustRun(t, 0, "contacts", "import", gid, file)
	if !strings.Contains(out, "Imported 7 of 12 contacts into group "+gid+" (5 already in it") {
		t.Errorf("second run:\n%s", out)
	}
	out, errOut := e.mustRun(t, 0, "contacts", "import", gid, file)
	if !strings.Contains(out, "Imported 0 of 12 contacts into group "+gid+" (12 already in it") {
		t.Errorf("third run:\n%s", out)
	}
	if strings.Contains(errOut, "importing") {
		t.Errorf("third run shows progress with nothing to add:\n%s", errOut)
	}
	list, _ := e.mustRun(t, 0, "contacts", "list", gid, "--csv")
	seen := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(list), "\n")[1:] {
		m := strings.Split(l, ",")[1]
		if seen[m] {
			t.Fatalf("%s is in the group twice:\n%s", m, list)
		}
		seen[m] = true
	}
	if len(seen) != 12 {
		t.Fatalf("the group has %d contacts, want 12", len(seen))
	}
}

// Scripts can trust the exit code: a mistyped command is exit 2 with a
// suggestion, never help and exit 0; --version says the version.
func TestUnknownCommandsExit2(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"contacts", "lst", "1"}, `unknown command "lst" for "smsdesk contacts"; did you mean list?`},
		{[]string{"contact", "list"}, `unknown command "contact" for "smsdesk"; did you mean contacts?`},
		{[]string{"config", "gett", "sender"}, `did you mean get or set?`},
		{[]string{"groups", "frobnicate"}, `unknown command "frobnicate" for "smsdesk groups"`},
		// The mistyped subcommand is named before the flags that follow it
		// (it said "unknown flag: --csv").
		{[]string{"contacts", "lst", "1", "--csv"}, `unknown command "lst" for "smsdesk contacts"; did you mean list?`},
		{[]string{"--profile", "default", "contacts", "--csv", "lst"}, `unknown command "lst" for "smsdesk contacts"; did you mean list?`},
		{[]string{"history", "shwo", "ID", "--refresh"}, `unknown command "shwo" for "smsdesk history"; did you mean show?`},
		{[]string{"contacts", "list", "1", "--bogus"}, `unknown flag: --bogus`},
		// history runs itself and has subcommands: a mistyped one alone
		// said only "unknown command" (the flag error path above suggested).
		{[]string{"history", "cancle", "ID"}, `unknown command "cancle" for "smsdesk history"; did you mean cancel?`},
		{[]string{"history", "shwo"}, `unknown command "shwo" for "smsdesk history"; did you mean show?`},
		{[]string{"history", "shwo", "ID"}, `unknown command "shwo" for "smsdesk history"; did you mean show?`},
		{[]string{"history", "frobnicate"}, `unknown command "frobnicate" for "smsdesk history" (see smsdesk history --help)`},
	} {
		_, stderr := e.mustRun(t, ExitUsage, tc.args...)
		if !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: stderr %q, want %q", tc.args, stderr, tc.want)
		}
	}
	// With --json, the error is the one JSON object a script reads.
	_, stderr := e.mustRun(t, ExitUsage, "contacts", "lst", "--json")
	if obj := errorObject(t, stderr); obj.Error.Code != "usage" || !strings.Contains(obj.Error.Message, "did you mean list?") {
		t.Errorf("contacts lst --json: %+v", obj)
	}
	out, _ := e.mustRun(t, 0, "--version")
	if !strings.HasPrefix(out, "smsdesk "+Version) {
		t.Errorf("--version: %q", out)
	}
	if out, _ := e.mustRun(t, 0, "contacts"); !strings.Contains(out, "Usage:") {
		t.Errorf("contacts alone should show its help: %q", out)
	}
}

// history --csv and history show ID --csv hand a send on to a spreadsheet.
func TestHistoryCSV(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	file := e.file(t, "p.csv", "mobile,message\n09121234567,=1+1 hello\n09131234567,hi\n")
	out, _ := e.mustRun(t, 0, "send-pair", "--file", file, "--sender", sandbox.DefaultSender, "--yes")
	id := regexp.MustCompile(`Send (\S+):`).FindStringSubmatch(out)[1]
	out, _ = e.mustRun(t, 0, "history", "--csv")
	if !strings.HasPrefix(out, "id,time,profile,sender,total,accepted,rejected,failed,unknown,not_sent,opted_out,status,by,started_at,delivery\n"+id+",") || !strings.Contains(out, ",2,2,0,0,0,0,0,complete,,,0/2 delivered · 2 pending\n") {
		t.Errorf("history --csv:\n%s", out)
	}
	out, _ = e.mustRun(t, 0, "history", "show", id, "--csv")
	// index as in --json (the plan's, from 0), line as in the file
	if !strings.Contains(out, "0,2,09121234567,'=1+1 hello,accepted,") || !strings.Contains(out, "1,3,09131234567,hi,accepted,") {
		t.Errorf("history show --csv:\n%s", out)
	}
	e.mustRun(t, ExitUsage, "history", "--csv", "--json")
	// The table numbers rows as the file does too (it counted from 1).
	_, out, _ = e.runOn(t, context.Background(), 120, "history", "show", id)
	if !regexp.MustCompile(`(?m)^LINE +RECIPIENT`).MatchString(out) || !regexp.MustCompile(`(?m)^2 +09121234567 +accepted`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^3 +09131234567 +accepted`).MatchString(out) {
		t.Errorf("history show:\n%s", out)
	}
	if out, _ = e.mustRun(t, 0, "history", "show", id); !regexp.MustCompile(`(?m)^2\t09121234567\taccepted\t`).MatchString(out) {
		t.Errorf("history show to a pipe:\n%s", out)
	}
}

// A journal keeps the service it went to; --resume against another one is
// refused unless --base-url says so.
func TestResumeKeepsItsService(t *testing.T) {
	t.Parallel()
	e, id := stoppedSend(t, 300)
	other := newSendEnv(t, nil)
	e.env["SMSDESK_BASE_URL"] = other.base + "/api/v1" // e's config, state and key; the other service
	_, stderr := e.mustRun(t, ExitUsage, "send-pair", "--resume", id, "--yes")
	if !strings.Contains(stderr, "went to "+e.base+"/api/v1, but this profile uses "+other.base+"/api/v1") {
		t.Errorf("stderr %q", stderr)
	}
	if len(other.sb.Sent()) != 0 {
		t.Fatal("the resume went to the other service")
	}
	e.mustRun(t, 0, "--base-url", e.base+"/api/v1", "send-pair", "--resume", id, "--yes")
	noDuplicates(t, e, 300)
}

// With --json, an error is one JSON object on stderr.
func TestErrorsAsJSON(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	_, stderr := e.mustRun(t, ExitUsage, "contacts", "list", "1", "--json", "--csv")
	var got errorJSON
	if err := json.Unmarshal([]byte(stderr), &got); err != nil || got.Error.Exit != ExitUsage || got.Error.Code != "usage" || got.Error.Message == "" {
		t.Fatalf("stderr %q: %+v %v", stderr, got, err)
	}
	_, stderr = e.mustRun(t, ExitService, "contacts", "list", "999", "--json")
	if err := json.Unmarshal([]byte(stderr), &got); err != nil || got.Error.Exit != ExitService || got.Error.Code == "" {
		t.Fatalf("stderr %q: %+v %v", stderr, got, err)
	}
}

// --file - reads the pairs from stdin (with --yes: stdin cannot also answer).
func TestSendPairFromStdin(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	in := "mobile,message\n09121234567,from a pipe\n"
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"send-pair", "--file", "-", "--sender", sandbox.DefaultSender, "--yes"},
		Env{Stdin: strings.NewReader(in), Stdout: &out, Stderr: &errb, Getenv: e.getenv})
	if code != 0 || len(e.sb.Sent()) != 1 || e.sb.Sent()[0].Message != "from a pipe" {
		t.Fatalf("exit %d, sent %+v\n%s%s", code, e.sb.Sent(), out.String(), errb.String())
	}
	errb.Reset()
	code = Main(context.Background(), []string{"send-pair", "--file", "-", "--sender", sandbox.DefaultSender},
		Env{Stdin: strings.NewReader(in), Stdout: &out, Stderr: &errb, Getenv: e.getenv})
	if code != ExitUsage || !strings.Contains(errb.String(), "pass --yes") {
		t.Fatalf("without --yes: exit %d %s", code, errb.String())
	}
}
