package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model/fakeclock"
)

// testKey is the sandbox key used by these tests; no output may ever contain it.
const testKey = "sk_test_cli0123456789abcdef"

// waitLimit bounds the tests' waits on a process, a prompt, a server or a
// signal's effect. It guards against a hang and is no budget: 5 and 10 s
// stood here, and a machine busy with other work (load 17-29 on 2 cores,
// under -race) can take longer than that to start a process and reach the
// state waited for.
const waitLimit = 3 * time.Minute

// cliWorld is a sandbox on loopback plus private config and state directories.
type cliWorld struct {
	t       *testing.T
	srv     *sandbox.Server
	baseURL string
	env     map[string]string
	dir     string
	clock   *fakeclock.Clock // nil: real time
	tty     bool             // stdin is a terminal (smsdesk may ask)
	// screen, when not 0, makes stdout a terminal this many columns wide
	// (tables have a header and fit it); 0: a pipe (tab-separated rows).
	screen int
	// checkTimeout bounds status's and doctor's requests (0: theirs, 2.5 s).
	checkTimeout time.Duration
}

// newFakeClock is a world's clock: Sleep advances it at once.
func newFakeClock() *fakeclock.Clock {
	return fakeclock.New(time.Date(2026, 3, 20, 12, 0, 0, 300e6, time.UTC))
}

func newCLIWorld(t *testing.T) *cliWorld {
	t.Helper()
	return newCLIWorldWith(t, sandbox.Options{})
}

// newCLIWorldWith is newCLIWorld with a sandbox made from opts (its key and
// seed are the world's).
func newCLIWorldWith(t *testing.T, opts sandbox.Options) *cliWorld {
	t.Helper()
	opts.Key, opts.Seed = testKey, true
	srv, err := sandbox.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	base, err := srv.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	return &cliWorld{t: t, srv: srv, baseURL: base, dir: dir, env: map[string]string{
		"SMSDESK_BASE_URL":   base,
		"SMSDESK_API_KEY":    testKey,
		"SMSDESK_CONFIG_DIR": filepath.Join(dir, "config"),
		"SMSDESK_STATE_DIR":  filepath.Join(dir, "state"),
	}}
}

// run runs smsdesk with args and stdin; it fails the test if the key leaks.
func (w *cliWorld) run(stdin string, args ...string) (stdout, stderr string, code int) {
	w.t.Helper()
	var out, errOut bytes.Buffer
	env := Env{
		Stdin:  strings.NewReader(stdin),
		Stdout: &out, Stderr: &errOut,
		Getenv:           func(k string) string { return w.env[k] },
		StdinIsTerminal:  w.tty,
		StdoutIsTerminal: w.screen > 0,
		TerminalWidth:    func() int { return w.screen },
		CheckTimeout:     w.checkTimeout,
	}
	if w.clock != nil {
		env.Now, env.Sleep = w.clock.Now, w.clock.Sleep
	}
	code = Main(context.Background(), args, env)
	for _, s := range []string{out.String(), errOut.String()} {
		if strings.Contains(s, testKey) || strings.Contains(s, "cli0123456789abcdef") {
			w.t.Fatalf("smsdesk %v printed the API key:\n%s", args, s)
		}
	}
	return out.String(), errOut.String(), code
}

func TestCLI_NoKeyNamesTheWaysForward(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	delete(w.env, "SMSDESK_API_KEY")
	_, errOut, code := w.run("", "contacts", "list", "1")
	if code != ExitAuth || !strings.Contains(errOut, "SMSDESK_API_KEY") || !strings.Contains(errOut, "login") {
		t.Fatalf("no key: exit %d, %q", code, errOut)
	}
	delete(w.env, "SMSDESK_BASE_URL")
	_, errOut, code = w.run("", "contacts", "list", "1")
	if code != ExitUsage || !strings.Contains(errOut, "--base-url") {
		t.Fatalf("no base URL: exit %d, %q", code, errOut)
	}
}

func TestCLI_StatusAndWrongKey(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	out, _, code := w.run("", "status")
	if code != 0 || !strings.Contains(out, "accepted by the service") || !strings.Contains(out, "SMSDESK_API_KEY") || !strings.Contains(out, "sk_test_…") {
		t.Fatalf("status: exit %d\n%s", code, out)
	}
	w.env["SMSDESK_API_KEY"] = "sk_test_wrongwrongwrong1234"
	out, _, code = w.run("", "status", "--json")
	var st statusReport
	if err := json.Unmarshal([]byte(out), &st); err != nil || code != ExitAuth || st.Accepted || !strings.Contains(st.ServiceError, "401") {
		t.Fatalf("status with a wrong key: exit %d, %+v (%v)", code, st, err)
	}
	if strings.Contains(out, "wrongwrongwrong") {
		t.Fatal("status printed the wrong key")
	}
	_, errOut, code := w.run("", "contacts", "list", "1")
	if code != ExitAuth || !strings.Contains(errOut, "401") || !strings.Contains(errOut, "smsdesk login") {
		t.Fatalf("wrong key: exit %d, %q; want 4 (auth), the status and what to do", code, errOut)
	}
}

func TestCLI_LoginInsecureStorageWithoutKeyring(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	delete(w.env, "SMSDESK_API_KEY") // no D-Bus in w.env either: no keyring on this "headless box"

	_, errOut, code := w.run(testKey+"\n", "login", "--with-key", "--base-url", w.baseURL)
	if code != ExitUsage || !strings.Contains(errOut, "--insecure-storage") || !strings.Contains(errOut, "SMSDESK_API_KEY") {
		t.Fatalf("login without keyring: exit %d, %q", code, errOut)
	}
	_, errOut, code = w.run("sk_test_refusedrefused99\n", "login", "--with-key", "--insecure-storage", "--base-url", w.baseURL)
	if code != ExitAuth || !strings.Contains(errOut, "not stored") {
		t.Fatalf("login with a refused key: exit %d, %q", code, errOut)
	}
	// Pasted from a panel with its header: the key alone is checked and stored.
	_, errOut, code = w.run(" Bearer "+testKey+" \r\n", "login", "--with-key", "--insecure-storage", "--base-url", w.baseURL)
	if code != 0 || !strings.Contains(errOut, "plain text") {
		t.Fatalf("login --insecure-storage: exit %d, %q", code, errOut)
	}
	creds := filepath.Join(w.dir, "config", "credentials.toml")
	fi, err := os.Stat(creds)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("credentials file: %v, mode %v; want 0600", err, fi.Mode())
	}
	// Stored credentials (and the saved base URL) now serve every command.
	delete(w.env, "SMSDESK_BASE_URL")
	out, _, code := w.run("", "status")
	if code != 0 || !strings.Contains(out, "insecure storage") {
		t.Fatalf("status after login: exit %d\n%s", code, out)
	}
	mustRun(t, w, "groups", "create", "After login")

	_, errOut, code = w.run("", "logout")
	if code != 0 || !strings.Contains(errOut, "Removed") {
		t.Fatalf("logout: exit %d, %q", code, errOut)
	}
	if _, _, code := w.run("", "contacts", "list", "1"); code != ExitAuth {
		t.Fatalf("after logout a command still found a key (exit %d)", code)
	}
}

func TestCLI_ConfigPathAndProfiles(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	out := mustRun(t, w, "config", "path")
	if !strings.Contains(out, filepath.Join(w.dir, "config")) || !strings.Contains(out, filepath.Join(w.dir, "state")) {
		t.Fatalf("config path:\n%s", out)
	}
	_, errOut, code := w.run("", "profiles", "use", "nope")
	if code != ExitUsage || !strings.Contains(errOut, "nope") {
		t.Fatalf("profiles use unknown: exit %d, %q", code, errOut)
	}
}

func TestCLI_UsageErrorsExit2(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	for _, args := range [][]string{
		{"contacts", "add", "1"},
		{"contacts", "list", "1", "--json", "--csv"},
		{"groups", "create"},
		{"nosuchcommand"},
		{"contacts", "list", "1", "--bogus"},
	} {
		if _, errOut, code := w.run("", args...); code != ExitUsage || errOut == "" {
			t.Errorf("smsdesk %v: exit %d, stderr %q; want 2 and a message", args, code, errOut)
		}
	}
}

func mustRun(t *testing.T, w *cliWorld, args ...string) string {
	t.Helper()
	out, errOut, code := w.run("", args...)
	if code != 0 {
		t.Fatalf("smsdesk %v: exit %d\n%s", args, code, errOut)
	}
	return out
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// utf16LE encodes s as UTF-16 little-endian with a byte-order mark.
func utf16LE(s string) string {
	var b strings.Builder
	b.WriteString("\xff\xfe")
	for _, r := range s {
		if r > 0xffff {
			r -= 0x10000
			hi, lo := 0xd800+(r>>10), 0xdc00+(r&0x3ff)
			b.WriteByte(byte(hi))
			b.WriteByte(byte(hi >> 8))
			b.WriteByte(byte(lo))
			b.WriteByte(byte(lo >> 8))
			continue
		}
		b.WriteByte(byte(r))
		b.WriteByte(byte(r >> 8))
	}
	return b.String()
}

func TestCLI_ConfigSetGetAndSenderCheck(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	mustRun(t, w, "config", "set", "senders", "3000505, 10004346")
	mustRun(t, w, "config", "set", "sender", "3000505")
	if got := strings.TrimSpace(mustRun(t, w, "config", "get", "senders")); got != "3000505,10004346" {
		t.Fatalf("config get senders = %q", got)
	}
	for _, bad := range [][]string{
		{"config", "set", "chunk_size", "many"},
		{"config", "set", "chunk_size", "5000"},
		{"config", "set", "sender", "999"}, // not one of the senders
		{"config", "set", "colour", "blue"},
	} {
		if _, errOut, code := w.run("", bad...); code != ExitUsage || errOut == "" {
			t.Errorf("smsdesk %v: exit %d, %q; want 2 and a message", bad, code, errOut)
		}
	}
	pairs := filepath.Join(w.dir, "pairs.csv")
	writeFile(t, pairs, "09121234567,hello!\n")
	before := len(w.srv.Sent())
	_, errOut, code := w.run("", "send-pair", "--file", pairs, "--sender", "999", "--yes")
	if code != ExitUsage || !strings.Contains(errOut, "3000505, 10004346") {
		t.Fatalf("send from a line the profile does not list: exit %d, %q", code, errOut)
	}
	if len(w.srv.Sent()) != before {
		t.Fatal("a refused sender line still sent")
	}
	// With no list in the profile, the service decides, and the hint says how to record the lines.
	mustRun(t, w, "config", "set", "sender", "")
	mustRun(t, w, "config", "set", "senders", "")
	_, errOut, code = w.run("", "send-pair", "--file", pairs, "--sender", "999", "--yes")
	if code != ExitService || !strings.Contains(errOut, "config set senders") {
		t.Fatalf("service-refused sender: exit %d, %q", code, errOut)
	}
}

func TestCLI_DebugLogRedactsKey(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	_, errOut, code := w.run("", "--debug", "contacts", "list", "1")
	if code != 0 || !strings.Contains(errOut, "debug log:") {
		t.Fatalf("--debug: exit %d, %q", code, errOut)
	}
	data, err := os.ReadFile(filepath.Join(w.dir, "state", "debug.log"))
	if err != nil {
		t.Fatal(err)
	}
	if len(data) == 0 || !strings.Contains(string(data), "contact-groups/1/contacts") {
		t.Fatalf("debug log has no request lines:\n%s", data)
	}
	if strings.Contains(string(data), testKey) {
		t.Fatal("the debug log holds the API key")
	}
	fi, _ := os.Stat(filepath.Join(w.dir, "state", "debug.log"))
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("debug log mode %v, want 0600", fi.Mode().Perm())
	}
}

// TestCLI_StatusShowsRate: status tells the budget the client keeps and where
// it comes from: the profile until the service announces its own.
func TestCLI_StatusShowsRate(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	out := mustRun(t, w, "status")
	if !strings.Contains(out, "Rate:      60 per minute, from the profile's rate_per_minute; the service has announced none (58 left now)") { // the key check and the credit
		t.Errorf("status without rate headers:\n%s", out)
	}
	fc := newFakeClock() // both runs in one window of the service's, however long they take
	w = newCLIWorldWith(t, sandbox.Options{RatePerMinute: 20, RateWindow: 2 * time.Second, Now: fc.Now})
	w.clock = fc
	out = mustRun(t, w, "status")
	if !strings.Contains(out, "Rate:      20 per 1 s, as the service announced (its window not yet: a second assumed until a 429 shows more) (18 left now)") {
		t.Errorf("status against 20 per 2 s:\n%s", out)
	}
	st := decodeOut[statusReport](t, "status --json", mustRun(t, w, "status", "--json"))
	if r := st.Rate; r == nil || r.Limit != 20 || r.Source != "service" || r.Remaining != 16 {
		t.Errorf("status --json rate = %+v", r)
	}
}

// testPaths are the world's directories as a test reads them (its own
// ledger handle, closed when the test ends).
func (w *cliWorld) testPaths() config.Paths {
	p := config.PathsIn(w.env["SMSDESK_CONFIG_DIR"], w.env["SMSDESK_STATE_DIR"])
	w.t.Cleanup(func() { p.CloseLedger() })
	return p
}
