package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// sendEnv is a sandbox (optionally wrapped) and a CLI environment pointed at it
// with temp config and state directories.
type sendEnv struct {
	sb   *sandbox.Server
	dir  string
	base string
	// env is the environment smsdesk sees (not the process's, so that these
	// tests can run in parallel).
	env map[string]string
}

// getenv reads the test's environment.
func (e *sendEnv) getenv(k string) string { return e.env[k] }

func newSendEnv(t *testing.T, wrap func(http.Handler) http.Handler) *sendEnv {
	return newSendEnvOpts(t, sandbox.Options{}, wrap)
}

// serveSandbox serves a sandbox on loopback for the test; wrap, when given,
// sees every request first. It returns the server's root URL.
func serveSandbox(t *testing.T, opts sandbox.Options, wrap func(http.Handler) http.Handler) (*sandbox.Server, string) {
	t.Helper()
	sb, err := sandbox.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	h := sb.Handler()
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return sb, srv.URL
}

func newSendEnvOpts(t *testing.T, opts sandbox.Options, wrap func(http.Handler) http.Handler) *sendEnv {
	sb, root := serveSandbox(t, opts, wrap)
	dir := t.TempDir()
	env := map[string]string{
		"SMSDESK_CONFIG_DIR": filepath.Join(dir, "config"),
		"SMSDESK_STATE_DIR":  filepath.Join(dir, "state"),
		"SMSDESK_API_KEY":    sb.Key(),
		"SMSDESK_BASE_URL":   root + "/api/v1",
	}
	// A fast profile: the documented 60 requests a minute would make tests slow.
	cfgDir := filepath.Join(dir, "config")
	if err := os.MkdirAll(cfgDir, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := "active = \"default\"\n[profiles.default]\nrate_per_minute = 6000\n"
	if err := os.WriteFile(filepath.Join(cfgDir, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return &sendEnv{sb: sb, dir: dir, base: root, env: env}
}

// run runs smsdesk with args; stdin is not a terminal.
func (e *sendEnv) run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return e.runCtx(t, context.Background(), args...)
}

// runCtx is run under ctx: cancelling it is what SIGINT does to the command.
func (e *sendEnv) runCtx(t *testing.T, ctx context.Context, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return e.runOn(t, ctx, 0, args...)
}

// runOn is runCtx with stdout a terminal columns wide (0: a pipe).
func (e *sendEnv) runOn(t *testing.T, ctx context.Context, columns int, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(ctx, args, Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: e.getenv,
		StdoutIsTerminal: columns > 0, TerminalWidth: func() int { return columns }})
	return code, out.String(), errb.String()
}

func (e *sendEnv) pairsFile(t *testing.T, name string, n int, bad map[int]string) string {
	var b strings.Builder
	b.WriteString("mobile,message\n")
	for i := range n {
		rcpt := fmt.Sprintf("0912%07d", i+1)
		if s, ok := bad[i]; ok {
			rcpt = s
		}
		fmt.Fprintf(&b, "%s,\"سلام %d\"\n", rcpt, i)
	}
	path := filepath.Join(e.dir, name)
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// dropping processes send-pair and drops the connection on 20% of calls, and
// answers 500 before processing on 10%, by a seeded RNG.
func dropping(next http.Handler) http.Handler {
	var mu sync.Mutex
	rng := rand.New(rand.NewPCG(3, 3))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/sms/send-pair") {
			next.ServeHTTP(w, r)
			return
		}
		mu.Lock()
		x := rng.Float64()
		mu.Unlock()
		switch {
		case x < 0.10:
			http.Error(w, "provider error", http.StatusInternalServerError)
		case x < 0.30:
			sandbox.ServeThenLose(next, w, r)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

func TestSendPairUnderFaultsExitsUnknown(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, dropping)
	file := e.pairsFile(t, "pairs.csv", 60, nil)
	code, out, stderr := e.run(t, "send-pair", "--sender", sandbox.DefaultSender, "--file", file, "--yes", "--json", "--chunk-size", "4")
	if code != ExitUnknown {
		t.Fatalf("exit %d, want %d (stderr %s)", code, ExitUnknown, stderr)
	}
	var rep sendPairJSON
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("stdout is not the JSON report: %v\n%s", err, out)
	}
	sent := map[string]int{}
	for _, m := range e.sb.Sent() {
		sent[m.Recipient+"\x00"+m.Message]++
	}
	for k, n := range sent {
		if n > 1 {
			t.Errorf("delivered %d times: %q", n, k)
		}
	}
	if len(rep.Results) != 60 || rep.Counts.Unknown == 0 || rep.Counts.Accepted == 0 {
		t.Fatalf("report: %d results, summary %+v", len(rep.Results), rep.Counts)
	}
	for _, r := range rep.Results {
		n := sent[r.Recipient+"\x00"+r.Message]
		switch r.Status {
		case "accepted":
			if n != 1 || r.MessageID == "" {
				t.Errorf("%s accepted (%q) but delivered %d times", r.Recipient, r.MessageID, n)
			}
		case "rejected", "failed":
			if n != 0 {
				t.Errorf("%s %s but delivered", r.Recipient, r.Status)
			}
		case "unknown":
		default:
			t.Errorf("%s: status %q", r.Recipient, r.Status)
		}
	}
	if !strings.Contains(stderr, "unknown") {
		t.Errorf("stderr does not mention the unknown outcomes: %s", stderr)
	}

	// History lists it, with the same counts; show lists every recipient.
	code, out, _ = e.run(t, "history", "--json")
	var hist []historyJSON
	if err := json.Unmarshal([]byte(out), &hist); err != nil || code != 0 || len(hist) != 1 {
		t.Fatalf("history: exit %d, %v: %s", code, err, out)
	}
	// Over, with outcomes unknown: unresolved, not complete (issue 27 item 7).
	if h := hist[0]; h.ID != rep.sendID() || h.Counts != *rep.Counts || h.Status != "unresolved" || h.Complete || h.Sender != sandbox.DefaultSender {
		t.Errorf("history %+v, want id %s counts %+v unresolved", h, rep.sendID(), rep.Counts)
	}
	code, out, _ = e.run(t, "history", "show", rep.sendID(), "--json")
	var show historyShowJSON
	if err := json.Unmarshal([]byte(out), &show); err != nil || code != 0 || len(show.Results) != 60 {
		t.Fatalf("history show: exit %d, %v", code, err)
	}
	for i, r := range show.Results {
		if r.Status != rep.Results[i].Status || r.MessageID != rep.Results[i].MessageID {
			t.Errorf("history show item %d: %s %q, send said %s %q", i, r.Status, r.MessageID, rep.Results[i].Status, rep.Results[i].MessageID)
		}
	}
}

func TestSendPairRefusesBeforeSending(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	good := e.pairsFile(t, "good.csv", 5, nil)
	tests := []struct {
		name, want string
		args       []string
		file       string
	}{
		{"invalid row", "pairs.csv line 3", []string{"--yes"}, "bad"},
		{"no terminal to ask", "pass --yes", nil, good},
		{"no source", "nothing to send", []string{"--yes"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"send-pair", "--sender", sandbox.DefaultSender}, tt.args...)
			switch tt.file {
			case "bad":
				args = append(args, "--file", e.pairsFile(t, "pairs.csv", 5, map[int]string{1: "12345"}))
			case "":
			default:
				args = append(args, "--file", tt.file)
			}
			code, _, stderr := e.run(t, args...)
			if code != ExitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want %d mentioning %q", code, stderr, ExitUsage, tt.want)
			}
			if n := len(e.sb.Sent()); n != 0 {
				t.Errorf("%d messages sent", n)
			}
		})
	}
}

func TestSendPairDryRunAndSuccess(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	file := e.pairsFile(t, "pairs.csv", 7, nil)
	code, out, _ := e.run(t, "send-pair", "--sender", sandbox.DefaultSender, "--file", file, "--dry-run")
	if code != 0 || !strings.Contains(out, "7 recipients, 7 SMS parts") || !strings.Contains(out, "UCS-2") || len(e.sb.Sent()) != 0 {
		t.Fatalf("dry run: exit %d, sent %d:\n%s", code, len(e.sb.Sent()), out)
	}
	code, out, stderr := e.run(t, "send-pair", "--sender", sandbox.DefaultSender, "--file", file, "--yes", "--chunk-size", "3")
	if code != 0 || len(e.sb.Sent()) != 7 || !strings.Contains(out, "7 accepted") {
		t.Fatalf("send: exit %d, sent %d:\n%s\n%s", code, len(e.sb.Sent()), out, stderr)
	}
	code, out, _ = e.run(t, "history")
	if code != 0 || !strings.Contains(out, "complete") {
		t.Errorf("history: exit %d:\n%s", code, out)
	}
}
