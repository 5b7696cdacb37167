package cli

import (
	"context"
	"encoding/json"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/ui/console"
)

// TestManPages generates the pages from the command tree and checks that every
// command has one, with its flags, and that two runs give the same bytes.
func TestManPages(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	dir := filepath.Join(w.dir, "man")
	out, errOut, code := w.run("", "man", dir)
	if code != 0 || !strings.Contains(out, dir) {
		t.Fatalf("man: exit %d, %q %q", code, out, errOut)
	}
	for _, page := range []string{"smsdesk.1", "smsdesk-send-pair.1", "smsdesk-contacts-import.1", "smsdesk-history-show.1", "smsdesk-config-set.1"} {
		b, err := os.ReadFile(filepath.Join(dir, page))
		if err != nil {
			t.Fatalf("no page %s: %v", page, err)
		}
		if !strings.Contains(string(b), ".TH \"SMSDESK\"") {
			t.Errorf("%s has no man header:\n%.200s", page, b)
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "smsdesk-send-pair.1"))
	for _, want := range []string{"--dry-run", "--resume", "--template"} {
		if !strings.Contains(strings.ReplaceAll(string(b), `\-`, "-"), want) {
			t.Errorf("send-pair's page does not document %s", want)
		}
	}
	again := filepath.Join(w.dir, "man2")
	w.run("", "man", again)
	b2, _ := os.ReadFile(filepath.Join(again, "smsdesk-send-pair.1"))
	if string(b) != string(b2) {
		t.Error("two runs of `smsdesk man` wrote different pages (a date or random order in them)")
	}
	if _, _, code := w.run("", "man"); code != ExitUsage {
		t.Errorf("man without DIR: exit %d, want %d", code, ExitUsage)
	}
}

// TestDynamicCompletion asks cobra's hidden __complete command, as the shell
// scripts do, for each kind of value that comes from this machine's files.
func TestDynamicCompletion(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	if _, errOut, code := w.run(testKey+"\n", "login", "--with-key", "--insecure-storage", "--base-url", w.baseURL); code != 0 {
		t.Fatalf("login: exit %d %s", code, errOut)
	}
	// Groups the profile knows (groups track checks the service; these ids
	// are the completion's test, so they are written as tracking does).
	paths := config.PathsIn(w.env["SMSDESK_CONFIG_DIR"], w.env["SMSDESK_STATE_DIR"])
	for _, g := range []model.Group{{ID: "41", Name: "Spring\tcampaign \x1b[31m"}, {ID: "77", Name: "Other"}} {
		if err := config.TrackGroup(paths, "default", g); err != nil {
			t.Fatal(err)
		}
	}
	pairs := filepath.Join(w.dir, "pairs.csv")
	writeFile(t, pairs, "mobile,message\n09121234567,hello\n")
	mustRun(t, w, "send-pair", "--file", pairs, "--sender", "3000505", "--yes")
	var hist []struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, w, "history", "--json")), &hist); err != nil || len(hist) != 1 {
		t.Fatalf("history --json: %v %+v", err, hist)
	}
	id := hist[0].ID

	complete := func(args ...string) []string {
		t.Helper()
		out, errOut, code := w.run("", append([]string{"__complete"}, args...)...)
		if code != 0 {
			t.Fatalf("__complete %v: exit %d %s", args, code, errOut)
		}
		var lines []string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if !strings.HasPrefix(l, ":") { // the directive line
				lines = append(lines, l)
			}
		}
		return lines
	}
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"config", "get", "chu"}, []string{"chunk_size\titems per send-pair request (default 100)"}},
		{[]string{"config", "set", "retry"}, []string{"retry_for\t"}},
		{[]string{"--profile", ""}, []string{"default"}},
		{[]string{"contacts", "list", ""}, []string{"41\tSpring campaign", "77\tOther"}},
		{[]string{"contacts", "list", "7"}, []string{"77\tOther"}},
		{[]string{"contacts", "import", "4"}, []string{"41\tSpring campaign"}},
		{[]string{"send-pair", "--group", ""}, []string{"41\t", "77\t"}},
		{[]string{"history", "show", ""}, []string{id + "\t"}},
		{[]string{"send-pair", "--resume", ""}, []string{id + "\t"}},
		// --json= completes the command's fields, those not yet listed.
		{[]string{"status", "--json=acc"}, []string{"accepted"}},
		{[]string{"status", "--json=key_error,key_"}, []string{"key_error,key_source", "key_error,key_fingerprint"}},
		{[]string{"history", "show", id, "--json=counts,resu"}, []string{"counts,results"}},
	}
	for _, c := range cases {
		got := complete(c.args...)
		if len(got) != len(c.want) {
			t.Errorf("complete %q = %q, want %d entries like %q", c.args, got, len(c.want), c.want)
			continue
		}
		for i := range got {
			if !strings.HasPrefix(got[i], c.want[i]) {
				t.Errorf("complete %q [%d] = %q, want it to start %q", c.args, i, got[i], c.want[i])
			}
			if strings.ContainsAny(got[i], "\x1b\r") || strings.Count(got[i], "\t") > 1 {
				t.Errorf("complete %q [%d] = %q: a control character or an extra tab reaches the shell", c.args, i, got[i])
			}
		}
	}
	// contacts import's second argument is a file: the shell's own completion.
	out, _, _ := w.run("", "__complete", "contacts", "import", "41", "")
	if !strings.Contains(out, ":0") {
		t.Errorf("contacts import FILE should use file completion (directive 0), got %q", out)
	}
}

// TestIDsCheckedLocally: a mistyped id is a usage error before any request.
func TestIDsCheckedLocally(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	live := w.env["SMSDESK_BASE_URL"]
	w.env["SMSDESK_BASE_URL"] = "http://127.0.0.1:1/api/v1" // nothing answers: a request would show
	cases := [][]string{
		{"groups", "track", "abc"},
		{"contacts", "list", "abc"},
		{"contacts", "list", "1 2"},
		{"contacts", "add", "x1", "09121234567"},
		{"contacts", "import", "0", "nofile.csv"},
		{"contacts", "delete", "981", "a b"},
		{"contacts", "delete", ""},
		{"send-pair", "--group", "grp", "--template", "hi", "--sender", "3000505"},
	}
	for _, args := range cases {
		_, errOut, code := w.run("", args...)
		if code != ExitUsage || strings.Contains(errOut, "unreachable") || strings.Contains(errOut, "connect") {
			t.Errorf("%q: exit %d, %q; want exit 2 before any request", args, code, errOut)
		}
		if !strings.Contains(errOut, " id ") {
			t.Errorf("%q: the error does not name the id: %q", args, errOut)
		}
	}
	w.env["SMSDESK_BASE_URL"] = live
	out := mustRun(t, w, "contacts", "list", "01") // a number, however written
	if !strings.Contains(out, "09121234567") {
		t.Errorf("contacts list 01:\n%s", out)
	}
}

// TestJSONProblemsOnStdout: under --json a refused plan or import tells a
// script which rows and why, on stdout, besides the error object on stderr;
// groups list --json says the size last listed, or null.
func TestJSONProblemsOnStdout(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	pairs := filepath.Join(w.dir, "bad.csv")
	writeFile(t, pairs, "mobile,message\n0912123,hi\n09121234567,\n09351234567,ok\n")
	out, errOut, code := w.run("", "send-pair", "--file", pairs, "--sender", "3000505", "--dry-run", "--json")
	var plan struct {
		ID   *string `json:"id"`
		Rows []struct {
			Line     int      `json:"line"`
			Input    string   `json:"input"`
			Problems []string `json:"problems"`
		} `json:"problems"`
	}
	if code != ExitUsage || json.Unmarshal([]byte(out), &plan) != nil || plan.ID != nil || len(plan.Rows) != 2 ||
		plan.Rows[0].Line != 2 || plan.Rows[0].Input != "0912123" || plan.Rows[1].Line != 3 || len(plan.Rows[1].Problems) == 0 {
		t.Fatalf("send-pair --json with bad rows: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	var e errorJSON
	if json.Unmarshal([]byte(errOut[strings.Index(errOut, "{"):]), &e) != nil || e.Error.Exit != ExitUsage {
		t.Errorf("stderr is not the error object: %q", errOut)
	}

	contacts := filepath.Join(w.dir, "contacts.csv")
	writeFile(t, contacts, "mobile,name\n0912123,Ali\n09121234567,Sara\n")
	out, _, code = w.run("", "contacts", "import", "1", contacts, "--json")
	var imp struct {
		Imported int `json:"imported"`
		Rows     []struct {
			Line   int    `json:"line"`
			Status string `json:"status"`
			Error  string `json:"error"`
		} `json:"rows"`
	}
	if code != ExitUsage || json.Unmarshal([]byte(out), &imp) != nil || len(imp.Rows) != 1 || imp.Rows[0].Line != 2 || imp.Rows[0].Status != "invalid" || imp.Rows[0].Error == "" {
		t.Fatalf("contacts import --json with a bad row: exit %d\n%s", code, out)
	}

	mustRun(t, w, "groups", "track", "1", "--name", "Seed")
	if out := mustRun(t, w, "groups", "list", "--json"); !strings.Contains(out, `"contacts": null`) {
		t.Errorf("before listing, contacts should be null:\n%s", out)
	}
	mustRun(t, w, "contacts", "list", "1")
	if out := mustRun(t, w, "groups", "list", "--json"); !strings.Contains(out, `"contacts": 8`) {
		t.Errorf("after listing 8 contacts:\n%s", out)
	}
}

// TestDumbTerminal: TERM=dumb gets a clear message pointing to the commands,
// not a full-screen program it cannot draw.
func TestDumbTerminal(t *testing.T) {
	t.Parallel()
	var out, errOut strings.Builder
	env := Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, StdinIsTerminal: true, StdoutIsTerminal: true,
		Getenv: func(k string) string { return map[string]string{"TERM": "dumb"}[k] },
		Console: func(context.Context, console.Options) error {
			t.Error("the console started on TERM=dumb")
			return nil
		}}
	for _, args := range [][]string{nil, {"--demo"}} {
		errOut.Reset()
		if code := Main(context.Background(), args, env); code != ExitUsage || !strings.Contains(errOut.String(), "TERM=dumb") || !strings.Contains(errOut.String(), "smsdesk --help") {
			t.Errorf("smsdesk %v on TERM=dumb: exit %d, %q", args, code, errOut.String())
		}
	}
}

// TestNoColorFlag: --no-color gives the console no colour, as NO_COLOR does;
// the demo's session is a journaled one on its temporary directory.
func TestNoColorFlag(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args    []string
		noColor string
		want    bool
	}{
		{[]string{"--demo"}, "", false},
		{[]string{"--demo", "--no-color"}, "", true},
		{[]string{"--demo"}, "1", true},
	} {
		var got *console.Options
		env := Env{Stdin: strings.NewReader(""), Stdout: &strings.Builder{}, Stderr: &strings.Builder{}, StdinIsTerminal: true, StdoutIsTerminal: true,
			Getenv: func(k string) string {
				return map[string]string{"TERM": "xterm", "NO_COLOR": tt.noColor, "HOME": t.TempDir()}[k]
			},
			Console: func(_ context.Context, o console.Options) error { got = &o; return nil }}
		if code := Main(context.Background(), tt.args, env); code != 0 || got == nil {
			t.Fatalf("smsdesk %v: exit %d", tt.args, code)
		}
		if got.NoColor != tt.want || got.Session == nil || got.Session.Client == nil || got.Session.Paths.StateDir == "" {
			t.Errorf("smsdesk %v (NO_COLOR=%q): NoColor %v, want %v; session %+v", tt.args, tt.noColor, got.NoColor, tt.want, got.Session)
		}
	}
}
