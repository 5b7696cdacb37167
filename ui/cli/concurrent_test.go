package cli

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/model/eventually"
	"github.com/smsdesk/smsdesk/model/syncbuf"
)

// TestSendBegunWhileAskingIsARepeat: two runs of the same send checked
// before either began (two terminals, or overlapping cron jobs) both passed
// the repeat check and both sent. One waits at its question while the
// other sends the pairs; its "y" is then refused (exit 2, code repeat)
// naming the other send, with no send request. So it is under
// --allow-repeat: that flag covers the sends the plan named, not one begun
// while the question showed (the CLI used to skip the look at start then).
func TestSendBegunWhileAskingIsARepeat(t *testing.T) {
	t.Parallel()
	for _, flags := range [][]string{nil, {"--allow-repeat"}} {
		t.Run(strings.Join(append([]string{"send-pair"}, flags...), " "), func(t *testing.T) {
			t.Parallel()
			e := newSendEnv(t, nil)
			file := e.pairsFile(t, "pairs.csv", 3, nil)
			args := append([]string{"send-pair", "--file", file, "--sender", sandbox.DefaultSender}, flags...)

			answer, typed := io.Pipe()
			var stdout, stderr syncbuf.Buffer
			done := make(chan int, 1)
			go func() {
				done <- Main(context.Background(), args, Env{Stdin: answer, Stdout: &stdout, Stderr: &stderr, Getenv: e.getenv, StdinIsTerminal: true})
			}()
			eventually.Contains(t, waitLimit, &stderr, "[y/N]")
			out, _ := e.mustRun(t, 0, append(args, "--yes")...)
			id := strings.TrimSuffix(strings.Fields(out[strings.Index(out, "Send ")+5:])[0], ":")
			before := e.sendPosts()

			if _, err := typed.Write([]byte("y\n")); err != nil {
				t.Fatal(err)
			}
			code := <-done
			if code != ExitUsage {
				t.Fatalf("the run that waited: exit %d, want 2\n%s\n%s", code, stdout.String(), stderr.String())
			}
			for _, want := range []string{"3 of 3 pairs are in send " + id + ", which another smsdesk began while this one was being checked; nothing was sent", "--allow-repeat"} {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
				}
			}
			if n := e.sendPosts() - before; n != 0 {
				t.Errorf("the refused run made %d send requests", n)
			}
			noDuplicates(t, e, 3)
		})
	}
}

// TestRerunWhileTheSendRuns: the same command run while the first run is
// still sending (a cron job that fires again before the last one ended) is
// refused, naming the running send and saying to let it end, not to resend
// its "unknown" pairs, which are only in flight.
func TestRerunWhileTheSendRuns(t *testing.T) {
	t.Parallel()
	held, release := make(chan struct{}), make(chan struct{})
	var posts atomic.Int32
	e := newSendEnv(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/sms/send-pair") && posts.Add(1) == 2 {
				close(held)
				<-release
			}
			next.ServeHTTP(w, r)
		})
	})
	file := e.pairsFile(t, "pairs.csv", 4, nil)
	args := []string{"send-pair", "--file", file, "--sender", sandbox.DefaultSender, "--yes", "--chunk-size", "1"}
	done := make(chan int, 1)
	var stdout, stderr syncbuf.Buffer
	go func() {
		done <- Main(context.Background(), args, Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: e.getenv})
	}()
	<-held
	code, _, errOut := e.run(t, args...)
	close(release)
	if code != ExitUsage {
		t.Fatalf("re-run while running: exit %d, want 2\n%s", code, errOut)
	}
	for _, want := range []string{"4 of 4 pairs are in send ", "which is still running (here or in another smsdesk)", "let send ", "--allow-repeat"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(errOut, "--include-unknown") || strings.Contains(errOut, "unknown outcome") {
		t.Errorf("pairs in flight called unknown:\n%s", errOut)
	}
	if code := <-done; code != 0 {
		t.Fatalf("the first run: exit %d\n%s", code, stderr.String())
	}
	noDuplicates(t, e, 4)
}

// TestResumeRefusesPairsAnotherSendTook: a send stopped for credit; the
// same file then sent again on purpose (--allow-repeat) took the pairs it
// had left; resuming the first would send them twice. It is refused (exit
// 2, code repeat) naming the other send, with no request; --allow-repeat
// resumes it on the operator's word.
func TestResumeRefusesPairsAnotherSendTook(t *testing.T) {
	t.Parallel()
	e, id := stoppedSend(t, 300)
	file := filepath.Join(e.dir, "pairs.csv")
	out, _ := e.mustRun(t, 0, "send-pair", "--file", file, "--sender", sandbox.DefaultSender, "--yes", "--allow-repeat")
	other := regexp.MustCompile(`Send (\S+):`).FindStringSubmatch(out)[1]

	before := e.sendPosts()
	for _, args := range [][]string{{"--yes"}, {"--dry-run"}} {
		_, stderr := e.mustRun(t, ExitUsage, append([]string{"send-pair", "--resume", id}, args...)...)
		for _, want := range []string{"messages resuming send " + id + " would send are pairs other sends accepted, or may have sent, within the repeat window; nothing was sent",
			"already accepted by send " + other, "smsdesk send-pair --resume " + id + " --allow-repeat"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("resume %v: stderr lacks %q:\n%s", args, want, stderr)
			}
		}
	}
	_, stderr := e.mustRun(t, ExitUsage, "send-pair", "--resume", id, "--yes", "--json")
	if obj := errorObject(t, stderr); obj.Error.Code != "repeat" {
		t.Errorf("--json: %+v", obj.Error)
	}
	if n := e.sendPosts() - before; n != 0 {
		t.Fatalf("refused resumes made %d send requests", n)
	}
	out, _ = e.mustRun(t, 0, "send-pair", "--resume", id, "--yes", "--allow-repeat")
	if !strings.Contains(out, "300 accepted") {
		t.Errorf("resume --allow-repeat:\n%s", out)
	}
}
