package cli

import (
	"encoding/json"
	"maps"
	"net"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// errorObject reads stderr under --json: one object, nothing else.
func errorObject(t *testing.T, stderr string) errorJSON {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(stderr))
	var e errorJSON
	if err := dec.Decode(&e); err != nil || dec.More() {
		t.Fatalf("stderr is not one JSON error object (%v):\n%s", err, stderr)
	}
	return e
}

// jsonCommands are the paths ("contacts list") of every command with --json,
// with the flag's help.
func jsonCommands() map[string]string {
	out := map[string]string{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if f := c.Flags().Lookup("json"); f != nil {
			out[strings.TrimPrefix(c.CommandPath(), "smsdesk ")] = f.Usage
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newCmdRoot(&rootOptions{f: newFactory(nil, Env{Getenv: func(string) string { return "" }})}))
	return out
}

// TestJSONRefusals: every command with --json, refused, leaves stdout empty
// or in its documented shape, and stderr one error object with every key,
// a documented code, the exit code that goes with it, and that exit code.
// With TestJSONShapes (each on success) and TestJSONErrorContract (send-pair's
// refusals) it walks every --json command: a new one fails here until it has
// a refusal case and a README row.
func TestJSONRefusals(t *testing.T) {
	t.Parallel()
	docs := documentedKeys(t)
	e := newSendEnv(t, nil)
	gid := strings.TrimSpace(first(e.mustRun(t, 0, "groups", "create", "refusals")))
	dead := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		return "http://" + l.Addr().String() + "/api/v1"
	}()
	wrongKey := map[string]string{"SMSDESK_API_KEY": "sk_test_notthekey0000000000"}
	noKey := map[string]string{"SMSDESK_API_KEY": ""}
	for _, tt := range []struct {
		name string
		env  map[string]string
		args []string
		code string
	}{
		{"status, key refused", wrongKey, []string{"status", "--json"}, "auth"},
		{"status, no key", noKey, []string{"status", "--json"}, "auth"},
		{"status, dead service", map[string]string{"SMSDESK_BASE_URL": dead}, []string{"status", "--json"}, "service"},
		{"doctor, extra argument", nil, []string{"doctor", "--json", "x"}, "usage"},
		{"doctor, key refused", wrongKey, []string{"doctor", "--json"}, "check"},
		{"config path, extra argument", nil, []string{"config", "path", "--json", "x"}, "usage"},
		{"config get, no such setting", nil, []string{"config", "get", "nope", "--json"}, "usage"},
		{"profiles list, extra argument", nil, []string{"profiles", "list", "--json", "x"}, "usage"},
		{"groups create, a known name", nil, []string{"groups", "create", "Refusals", "--json"}, "usage"},
		{"groups list, no such profile", nil, []string{"--profile", "nope", "groups", "list", "--json"}, "usage"},
		{"contacts add, not a mobile", nil, []string{"contacts", "add", gid, "12345", "--json"}, "usage"},
		{"contacts add, key refused", wrongKey, []string{"contacts", "add", gid, "09121110001", "--json"}, "auth"},
		{"contacts list, no such group", nil, []string{"contacts", "list", "999", "--json"}, "service"},
		{"contacts import, no such file", nil, []string{"contacts", "import", gid, filepath.Join(e.dir, "none.csv"), "--json"}, "usage"},
		{"contacts import, bad rows", nil, []string{"contacts", "import", gid, e.file(t, "bad.csv", "mobile,name\n0912,A\n"), "--json"}, "input"},
		{"history, bad --status", nil, []string{"history", "--json", "--status", "bogus"}, "usage"},
		{"history show, no such send", nil, []string{"history", "show", "20200101-000000-abcdef", "--json"}, "usage"},
		{"history report, no such send", nil, []string{"history", "report", "20200101-000000-abcdef", "--json"}, "usage"},
		{"version, extra argument", nil, []string{"version", "--json", "x"}, "usage"},
		{"operators list, extra argument", nil, []string{"operators", "list", "--json", "x"}, "usage"},
		{"optout list, --json and --csv", nil, []string{"optout", "list", "--json", "--csv"}, "usage"},
		{"optout list, no key", noKey, []string{"optout", "list", "--json"}, "auth"},
		{"ledger status, a password in its URL", map[string]string{"SMSDESK_LEDGER": "postgres://smsdesk:pw@127.0.0.1:1/x"}, []string{"ledger", "status", "--json"}, "config"},
		{"audit, bad --since", nil, []string{"audit", "--json", "--since", "yesterday"}, "usage"},
		{"inbox, a negative --limit", nil, []string{"inbox", "--json", "--limit", "-1"}, "usage"},
		{"lines, an extra argument", nil, []string{"lines", "--json", "x"}, "usage"},
		{"ledger status, damaged", map[string]string{"SMSDESK_LEDGER": e.file(t, "not.db", "not a database\n")}, []string{"ledger", "status", "--json"}, "ledger"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			saved := maps.Clone(e.env)
			defer func() { e.env = saved }()
			maps.Copy(e.env, tt.env)
			code, stdout, stderr := e.run(t, tt.args...)
			dec := json.NewDecoder(strings.NewReader(stderr))
			var obj errorJSON
			if err := dec.Decode(&obj); err != nil || dec.More() {
				t.Fatalf("exit %d; stderr is not one JSON error object (%v):\n%s", code, err, stderr)
			}
			if _, err := strconv.Atoi(strconv.Itoa(obj.Error.Exit)); err != nil || obj.Error.Details == nil || obj.Error.Message == "" {
				t.Errorf("error object incomplete: %s", stderr)
			}
			if obj.Error.Code != tt.code || obj.Error.Exit != code ||
				!slices.ContainsFunc(errorCodes, func(c errorCode) bool { return c.Code == obj.Error.Code && c.Exit == obj.Error.Exit }) {
				t.Errorf("code %q exit %d (process %d), want %q with its documented exit:\n%s", obj.Error.Code, obj.Error.Exit, code, tt.code, stderr)
			}
			if stdout == "" {
				return
			}
			path := commandPath(tt.args)
			want, ok := docs[path]
			if !ok {
				t.Fatalf("stdout for %q, which the README documents no keys for:\n%s", path, stdout)
			}
			if got := innerKeys(t, json.RawMessage(stdout)); !slices.Equal(got, want) { // an array: its first element
				t.Errorf("stdout keys %v, README %v", got, want)
			}
		})
	}
	refused := map[string]bool{"send-pair": true} // TestJSONErrorContract
	for _, args := range [][]string{{"status"}, {"doctor"}, {"config", "path"}, {"config", "get"}, {"profiles", "list"}, {"groups", "create"},
		{"groups", "list"}, {"contacts", "add"}, {"contacts", "list"}, {"contacts", "import"}, {"history"}, {"history", "show"}, {"version"}, {"operators", "list"}, {"optout", "list"}, {"ledger", "status"}, {"audit"}, {"inbox"}, {"history", "report"}, {"lines"}} {
		refused[strings.Join(args, " ")] = true
	}
	for c, usage := range jsonCommands() {
		if !refused[c] {
			t.Errorf("%s has --json but no refusal case here", c)
		}
		want, ok := docs[c]
		if !ok && c != "history show" {
			t.Errorf("%s has --json but no row in the README's JSON table", c)
		}
		// A flag help that lists the keys ("print [{check, status, …}]")
		// lists the README's.
		if m := regexp.MustCompile(`\{([a-z_, ]+)\}`).FindStringSubmatch(usage); m != nil && ok {
			if got := strings.Split(m[1], ", "); !slices.Equal(got, want) {
				t.Errorf("%s --json help lists %v, the README %v", c, got, want)
			}
		}
	}
}

// commandPath is the command an argument list runs ("contacts list").
func commandPath(args []string) string {
	var words []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--profile":
			i++
		case strings.HasPrefix(a, "-"), len(words) == 2, len(words) == 1 && !slices.Contains([]string{"path", "get", "list", "create", "add", "import", "show", "status"}, a):
			return strings.Join(words, " ")
		default:
			words = append(words, a)
		}
	}
	return strings.Join(words, " ")
}

// TestQuiet: --quiet (-q) leaves stderr empty on success and holds only the
// final error on failure: no plan summary, progress, notes or warnings.
func TestQuiet(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	file := e.pairsFile(t, "p.csv", 3, nil)
	out, stderr := e.mustRun(t, 0, "-q", "send-pair", "--yes", "--sender", sandbox.DefaultSender, "--file", file)
	if stderr != "" || !strings.Contains(out, "3 accepted") {
		t.Errorf("-q send: stdout %q, stderr %q; want the result and nothing on stderr", out, stderr)
	}
	_, stderr = e.mustRun(t, ExitUsage, "--quiet", "send-pair", "--yes", "--sender", sandbox.DefaultSender, "--file", file)
	// The final error: its details (the repeat, by send), then its message
	// and what to do.
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "repeat: 3 of these pairs") || !strings.HasPrefix(lines[1], "smsdesk: 3 of 3 pairs were already accepted") ||
		!strings.HasPrefix(lines[2], "  → pass --allow-repeat") {
		t.Errorf("--quiet refusal: stderr %q; want the final error alone", stderr)
	}
	for _, noise := range []string{"sending", "First 3", "Credit:", "Profile default on"} {
		if strings.Contains(stderr, noise) {
			t.Errorf("--quiet stderr holds %q:\n%s", noise, stderr)
		}
	}
}
