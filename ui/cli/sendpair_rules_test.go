package cli

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// Each test here walks one of issue 8's edges as a new user (or a cron job)
// would, against the sandbox, and checks the sandbox's own record of requests:
// a refused plan must not post a single send-pair request.

func (e *sendEnv) file(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(e.dir, name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func (e *sendEnv) sendPosts() int { return e.sb.RequestsTo("POST", "/sms/send-pair") }

// mustRun runs smsdesk and fails the test unless it exits with want.
func (e *sendEnv) mustRun(t *testing.T, want int, args ...string) (stdout, stderr string) {
	t.Helper()
	code, out, errOut := e.run(t, args...)
	if code != want {
		t.Fatalf("smsdesk %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, want, out, errOut)
	}
	return out, errOut
}

func TestSendPairRefusesAContactsFile(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	contacts := e.file(t, "contacts.csv", "mobile,name,code\n09121234567,Ali,11\n09131234567,Sara,22\n")
	for _, args := range [][]string{
		{"--yes"},
		{"--dry-run"},
		{"--yes", "--message-column", "note"},
	} {
		_, stderr := e.mustRun(t, ExitUsage, append([]string{"send-pair", "--file", contacts, "--sender", sandbox.DefaultSender}, args...)...)
		if !strings.Contains(stderr, "no message column") || !strings.Contains(stderr, "nothing was sent") {
			t.Errorf("%v: stderr %q", args, stderr)
		}
		if args[len(args)-1] != "note" && (!strings.Contains(stderr, "this looks like a contacts file") || !strings.Contains(stderr, "--template")) {
			t.Errorf("%v: no hint towards --template: %q", args, stderr)
		}
	}
	if n := e.sendPosts(); n != 0 {
		t.Fatalf("%d send-pair requests reached the service", n)
	}
	// The same file through a template: every column is a variable.
	e.mustRun(t, 0, "send-pair", "--file", contacts, "--sender", sandbox.DefaultSender, "--yes", "--template", "Hi {name}, your code is {code}")
	sent := e.sb.Sent()
	if len(sent) != 2 || sent[0].Message != "Hi Ali, your code is 11" || sent[1].Message != "Hi Sara, your code is 22" {
		t.Fatalf("sent %+v", sent)
	}
	// A message column with another name, named by --message-column.
	notes := e.file(t, "notes.csv", "mobile,name,note\n09141234567,Reza,See you at 5\n")
	e.mustRun(t, 0, "send-pair", "--file", notes, "--sender", sandbox.DefaultSender, "--yes", "--message-column", "note")
	if sent := e.sb.Sent(); len(sent) != 3 || sent[2].Message != "See you at 5" {
		t.Fatalf("sent %+v", sent)
	}
	// A template column that does not exist is named.
	_, stderr := e.mustRun(t, ExitUsage, "send-pair", "--file", contacts, "--sender", sandbox.DefaultSender, "--yes", "--template", "{city}")
	if !strings.Contains(stderr, "missing variable {city}; the file has {mobile}, {name}, {code}") {
		t.Errorf("stderr %q", stderr)
	}
}

func TestSendPairRefusesForeignNumbers(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	pairs := e.file(t, "pairs.csv", "mobile,message\n09121234567,Hi\n+1 555 123 4567,Hi\n+44 7700 900123,Hi\n")
	_, stderr := e.mustRun(t, ExitUsage, "send-pair", "--file", pairs, "--sender", sandbox.DefaultSender, "--yes")
	for _, want := range []string{
		"pairs.csv line 3 (+1 555 123 4567): foreign number +15551234567",
		"pairs.csv line 4 (+44 7700 900123): foreign number +447700900123",
		"allow_international = true",
		"2 of 3 rows in pairs.csv cannot be sent; nothing was sent",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if n := e.sendPosts(); n != 0 || len(e.sb.Sent()) != 0 {
		t.Fatalf("%d send-pair requests, %d sent", n, len(e.sb.Sent()))
	}
	e.mustRun(t, 0, "config", "set", "allow_international", "true")
	out, _ := e.mustRun(t, 0, "send-pair", "--file", pairs, "--sender", sandbox.DefaultSender, "--dry-run")
	if !strings.Contains(out, "+15551234567") || !strings.Contains(out, "3 recipients") {
		t.Errorf("allow_international dry run:\n%s", out)
	}
}

func TestSendPairRefusesARepeat(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	file := e.pairsFile(t, "pairs.csv", 5, nil)
	args := []string{"send-pair", "--file", file, "--sender", sandbox.DefaultSender, "--yes"}
	out, _ := e.mustRun(t, 0, args...)
	first := regexp.MustCompile(`Send (\S+):`).FindStringSubmatch(out)
	if first == nil {
		t.Fatalf("no send id in %q", out)
	}
	posts := e.sendPosts()

	// The same file again, as cron would: refused, naming the earlier send.
	_, stderr := e.mustRun(t, ExitUsage, args...)
	for _, want := range []string{
		"5 of these pairs (same recipient, same text) were already accepted by send " + first[1] + " at ",
		"smsdesk: 5 of 5 pairs were already accepted within the repeat window; nothing was sent\n",
		"→ pass --allow-repeat to send them again, or set repeat_window", // the CLI's own hint, after the layer's words
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if e.sendPosts() != posts || len(e.sb.Sent()) != 5 {
		t.Fatalf("the repeat reached the service: %d posts (was %d), %d sent", e.sendPosts(), posts, len(e.sb.Sent()))
	}
	// A dry run tells the same.
	if code, _, stderr := e.run(t, "send-pair", "--file", file, "--sender", sandbox.DefaultSender, "--dry-run"); code != ExitUsage || !strings.Contains(stderr, "already accepted") {
		t.Errorf("dry run: exit %d: %s", code, stderr)
	}
	// One changed text: only the other four repeat.
	changed := e.pairsFile(t, "changed.csv", 5, map[int]string{})
	b, _ := os.ReadFile(changed)
	os.WriteFile(changed, []byte(strings.Replace(string(b), "سلام 2", "سلام دوباره", 1)), 0o600)
	_, stderr = e.mustRun(t, ExitUsage, "send-pair", "--file", changed, "--sender", sandbox.DefaultSender, "--yes")
	if !strings.Contains(stderr, "4 of these pairs") {
		t.Errorf("stderr %q", stderr)
	}
	// --allow-repeat sends them again, saying so.
	_, stderr = e.mustRun(t, 0, append(args, "--allow-repeat")...)
	if !strings.Contains(stderr, "--allow-repeat: 5 pair(s) go again") || len(e.sb.Sent()) != 10 {
		t.Fatalf("allow-repeat: sent %d, stderr %s", len(e.sb.Sent()), stderr)
	}
	// repeat_window = 0 turns the check off.
	e.mustRun(t, 0, "config", "set", "repeat_window", "0")
	e.mustRun(t, 0, args...)
	if len(e.sb.Sent()) != 15 {
		t.Fatalf("sent %d, want 15", len(e.sb.Sent()))
	}
	if code, _, stderr := e.run(t, "config", "set", "repeat_window", "tomorrow"); code != ExitUsage || !strings.Contains(stderr, "24h") {
		t.Errorf("a bad window: exit %d: %s", code, stderr)
	}
}

func TestSendPairRefusesAnEmptyVariable(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	vars := e.file(t, "vars.csv", "mobile,name,code\n09121234567,Ali,11\n09131234567,,22\n09141234567,Sara,\n")
	_, stderr := e.mustRun(t, ExitUsage, "send-pair", "--file", vars, "--sender", sandbox.DefaultSender, "--yes", "--template", "Hi {name}, code {code}")
	for _, want := range []string{
		"vars.csv line 3 (09131234567): empty {name}; fill it in, or give a fallback such as {name|friend}",
		"vars.csv line 4 (09141234567): empty {code}",
		"2 of 3 rows in vars.csv cannot be sent; nothing was sent",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	// Over a group's contacts, the same.
	gid := strings.TrimSpace(first(e.mustRun(t, 0, "groups", "create", "Customers")))
	e.mustRun(t, 0, "contacts", "add", gid, "09121234567", "--name", "Ali")
	e.mustRun(t, 0, "contacts", "add", gid, "09131234567")
	_, stderr = e.mustRun(t, ExitUsage, "send-pair", "--group", gid, "--sender", sandbox.DefaultSender, "--yes", "--template", "Hi {name}, welcome")
	// Named by its row in the group's list, not as "contact 2": contact 2 is
	// another group's contact.
	if !strings.Contains(stderr, "group "+gid+" row 2 (09131234567): empty {name}") || strings.Contains(stderr, "contact 2") {
		t.Errorf("stderr %q", stderr)
	}
	if n := e.sendPosts(); n != 0 {
		t.Fatalf("%d send-pair requests reached the service", n)
	}
	e.mustRun(t, 0, "send-pair", "--group", gid, "--sender", sandbox.DefaultSender, "--yes", "--template", "Hi {name|friend}, welcome")
	sent := e.sb.Sent()
	if len(sent) != 2 || sent[0].Message != "Hi Ali, welcome" || sent[1].Message != "Hi friend, welcome" {
		t.Fatalf("sent %+v", sent)
	}
}

func first(a, _ string) string { return a }

func TestSendPairShowsTheFirstMessages(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	long := strings.Repeat("پیام بلند ", 12) // 120 characters: cut in a table, whole here
	var b strings.Builder
	b.WriteString("mobile,message\n")
	for i := range 5 {
		fmt.Fprintf(&b, "0912123456%d,\"%d: %s\"\n", i, i, long)
	}
	file := e.file(t, "long.csv", b.String())
	// On a terminal: the table cuts each message to 40; the samples are whole.
	_, out, _ := e.runOn(t, context.Background(), 120, "send-pair", "--file", file, "--sender", sandbox.DefaultSender, "--dry-run")
	_, stderr := e.mustRun(t, 0, "send-pair", "--file", file, "--sender", sandbox.DefaultSender, "--yes")
	for name, text := range map[string]string{"dry run": out, "send": stderr} {
		if !strings.Contains(text, "First 3 of 5 messages, as they will be sent:") {
			t.Errorf("%s: no sample heading:\n%s", name, text)
		}
		for i := range 3 {
			if !strings.Contains(text, fmt.Sprintf("%d: %s", i, strings.TrimSpace(long))) {
				t.Errorf("%s: message %d not shown in full:\n%s", name, i, text)
			}
		}
		if strings.Contains(text, "3: "+strings.TrimSpace(long)) {
			t.Errorf("%s: showed a fourth message", name)
		}
	}
	for _, want := range []string{"Profile default on 127.0.0.1:", "test key · sender 3000505 · long.csv", "5 recipients · 5 UCS-2 → 10 parts",
		"Credit: 1,000,000 parts → 999,990 after", "Time: under a second (1 request)"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("summary lacks %q:\n%s", want, stderr)
		}
	}
	// Prices give a cost line.
	e.mustRun(t, 0, "config", "set", "price_ucs2", "120")
	e.mustRun(t, 0, "config", "set", "repeat_window", "0")
	_, stderr = e.mustRun(t, 0, "send-pair", "--file", file, "--sender", sandbox.DefaultSender, "--yes")
	if !strings.Contains(stderr, "5 UCS-2 → 10 parts · cost 1,200 rial") {
		t.Errorf("no cost:\n%s", stderr)
	}
}

func TestSendPairChecksCredit(t *testing.T) {
	t.Parallel()
	three := int64(3)
	e := newSendEnvOpts(t, sandbox.Options{Credit: &three}, nil)
	file := e.pairsFile(t, "pairs.csv", 5, nil)
	_, stderr := e.mustRun(t, ExitUsage, "send-pair", "--file", file, "--sender", sandbox.DefaultSender, "--yes")
	if !strings.Contains(stderr, "not enough credit: the send needs 5 parts, the account has 3; nothing was sent") ||
		!strings.Contains(stderr, "top up the account, then run the same command again") {
		t.Errorf("stderr %q", stderr)
	}
	if n := e.sendPosts(); n != 0 {
		t.Fatalf("%d send-pair requests", n)
	}
	e.sb.SetCredit(5)
	e.mustRun(t, 0, "send-pair", "--file", file, "--sender", sandbox.DefaultSender, "--yes")

	// A service without the endpoint: no credit line, no noise.
	off := newSendEnvOpts(t, sandbox.Options{NoCreditEndpoint: true}, nil)
	file = off.pairsFile(t, "pairs.csv", 2, nil)
	_, stderr = off.mustRun(t, 0, "send-pair", "--file", file, "--sender", sandbox.DefaultSender, "--yes")
	if strings.Contains(strings.ToLower(stderr), "credit") {
		t.Errorf("credit mentioned without the endpoint:\n%s", stderr)
	}
}

func TestSendPairRefusesAnUnknownSenderLine(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	e.mustRun(t, 0, "config", "set", "senders", "3000505,10004346")
	file := e.pairsFile(t, "pairs.csv", 2, nil)
	_, stderr := e.mustRun(t, ExitUsage, "send-pair", "--file", file, "--sender", "999", "--yes")
	if !strings.Contains(stderr, "sender 999 is not one of profile default's lines (3000505, 10004346); nothing was sent") ||
		!strings.Contains(stderr, "config set senders") {
		t.Errorf("stderr %q", stderr)
	}
	if n := e.sendPosts(); n != 0 {
		t.Fatalf("%d send-pair requests", n)
	}
}

// TestSendPairStopsAtARefusalThatWillRepeat: the account runs out of credit
// after two chunks of six (another process spent it). The third chunk is
// refused 402; chunks 4–6 must not be posted: exactly 3 send-pair requests,
// 200 accepted and reported so, 400 not sent, exit 1, one line saying why and
// what to do, once. After a top-up, --resume sends the 400, once.
func TestSendPairStopsAtARefusalThatWillRepeat(t *testing.T) {
	t.Parallel()
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
	file := e.pairsFile(t, "pairs.csv", 600, nil)
	code, out, stderr := e.run(t, "send-pair", "--file", file, "--sender", sandbox.DefaultSender, "--yes")
	if code != ExitService {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, ExitService, out, stderr)
	}
	if n := e.sendPosts(); n != 3 {
		t.Fatalf("%d send-pair requests, want 3 (stop after the refused chunk)", n)
	}
	if n := len(e.sb.Sent()); n != 200 {
		t.Fatalf("the sandbox took %d, want 200", n)
	}
	id := regexp.MustCompile(`Send (\S+):`).FindStringSubmatch(out)
	if id == nil {
		t.Fatalf("no send id in %q", out)
	}
	for _, want := range []string{
		"200 accepted", "0 rejected", "400 not sent", // the figure: the refused chunk took nothing
		"Stopped: the account has run out of credit (402 insufficient_credit), and would refuse every later request too; " +
			"the rest was not sent. Top up the account, then resume.",
		"To continue: smsdesk send-pair --resume " + id[1],
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	// What to do is said once (issue 40): the sandbox's refusal ends "top up
	// and send again", which the line said before its own "Top up…".
	if strings.Contains(out, "send again") {
		t.Errorf("stdout says what to do twice:\n%s", out)
	}
	// --json says the same for scripts.
	hist, _ := e.mustRun(t, 0, "history", "show", id[1], "--json")
	if !strings.Contains(hist, `"status": "stopped"`) || !strings.Contains(hist, `"stop_cause": "credit"`) {
		t.Errorf("history show --json:\n%s", hist)
	}
	if hist, _ := e.mustRun(t, 0, "history", "show", id[1]); !strings.Contains(hist, "Top up the account, then resume.") {
		t.Errorf("history show:\n%s", hist)
	}

	// Topped up, the resume sends what is left — the refused chunk and the
	// three never posted — and nothing twice.
	e.sb.SetCredit(1000)
	e.mustRun(t, 0, "send-pair", "--resume", id[1], "--yes")
	sent := e.sb.Sent()
	if len(sent) != 600 {
		t.Fatalf("after resume the sandbox took %d, want 600", len(sent))
	}
	seen := map[string]bool{}
	for _, s := range sent {
		if seen[s.Recipient+"\x00"+s.Message] {
			t.Fatalf("sent twice: %s", s.Recipient)
		}
		seen[s.Recipient+"\x00"+s.Message] = true
	}
}

// A revoked key and a line the service does not allow stop the same way.
func TestSendPairStopsOnKeyAndSenderRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status int
		code   string
		todo   string
		exit   int // 4 for a refused key (auth), 1 for the service's other refusals
	}{
		{http.StatusUnauthorized, "unauthorized", "Check the key", ExitAuth},
		{http.StatusForbidden, "sender_not_allowed", "Have the sender line enabled", ExitService},
	} {
		t.Run(tc.code, func(t *testing.T) {
			posts := 0
			e := newSendEnv(t, func(h http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/sms/send-pair") {
						if posts++; posts >= 2 {
							w.Header().Set("Content-Type", "application/json")
							w.WriteHeader(tc.status)
							fmt.Fprintf(w, `{"success":false,"error_code":%q,"message":"refused"}`, tc.code)
							return
						}
					}
					h.ServeHTTP(w, r)
				})
			})
			file := e.pairsFile(t, "pairs.csv", 400, nil)
			code, out, stderr := e.run(t, "send-pair", "--file", file, "--sender", sandbox.DefaultSender, "--yes")
			if code != tc.exit || posts != 2 || len(e.sb.Sent()) != 100 {
				t.Fatalf("exit %d, %d posts, %d sent\n%s\n%s", code, posts, len(e.sb.Sent()), out, stderr)
			}
			if !strings.Contains(out, tc.code) || !strings.Contains(out, tc.todo) || !strings.Contains(out, "300 not sent") {
				t.Errorf("stdout:\n%s", out)
			}
		})
	}
}

func TestStatusShowsCredit(t *testing.T) {
	t.Parallel()
	n := int64(1234)
	e := newSendEnvOpts(t, sandbox.Options{Credit: &n}, nil)
	out, _ := e.mustRun(t, 0, "status")
	if !strings.Contains(out, "Credit:    1,234 SMS parts") {
		t.Errorf("status:\n%s", out)
	}
	out, _ = e.mustRun(t, 0, "status", "--json")
	if !strings.Contains(out, `"sms_count": 1234`) {
		t.Errorf("status --json:\n%s", out)
	}
	// Without the endpoint: no credit line, no noise (a group the profile
	// knows proves the key with a 2xx instead).
	off := newSendEnvOpts(t, sandbox.Options{NoCreditEndpoint: true}, nil)
	off.mustRun(t, 0, "groups", "create", "Known")
	out, stderr := off.mustRun(t, 0, "status")
	if strings.Contains(strings.ToLower(out+stderr), "credit") {
		t.Errorf("credit mentioned without the endpoint:\n%s%s", out, stderr)
	}
}

// TestSendPairToMessage: a quick paired send from the command line, each
// --to with the --message in the same place, checked like a file's rows.
func TestSendPairToMessage(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	base := []string{"send-pair", "--sender", sandbox.DefaultSender}
	refusals := []struct {
		name string
		args []string
		want string
	}{
		{"a --to without its --message", []string{"--to", "09121234567", "--yes"}, "1 --to but 0 --message"},
		{"with a file", []string{"--to", "09121234567", "--message", "hi", "--file", "x.csv", "--yes"}, "not with --file"},
		{"with a template", []string{"--to", "09121234567", "--message", "hi", "--template", "{name}", "--yes"}, "not with --file, --group, --template"},
		{"a bad pair is named", []string{"--to", "09121234567", "--message", "hi", "--to", "09411234567", "--message", "hi", "--yes"}, "--to/--message pair 2 (09411234567): invalid number: 0941… is a fixed-wireless"},
		{"an empty message", []string{"--to", "09121234567", "--message", " ", "--yes"}, "--to/--message pair 1 (09121234567): empty message"},
	}
	for _, tt := range refusals {
		_, stderr := e.mustRun(t, ExitUsage, append(base, tt.args...)...)
		if !strings.Contains(stderr, tt.want) {
			t.Errorf("%s: stderr %q, want %q", tt.name, stderr, tt.want)
		}
	}
	if n := e.sendPosts(); n != 0 {
		t.Fatalf("%d send-pair requests reached the service for refused pairs", n)
	}
	e.mustRun(t, 0, append(base, "--to", "09121234567", "--message", "Hi Ali, your code is 11", "--to", "+989131234567", "--message", "سلام سارا، کد ۲۲", "--yes")...)
	got := map[string]string{}
	for _, m := range e.sb.Sent() {
		got[m.Recipient] = m.Message
	}
	want := map[string]string{"09121234567": "Hi Ali, your code is 11", "09131234567": "سلام سارا، کد ۲۲"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("the service took %v, want %v", got, want)
	}
}
