package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
)

// readmeSection is the README's text from heading to the next heading of
// the same or a higher level.
func readmeSection(t *testing.T, heading string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, heading+"\n")
	if i < 0 {
		t.Fatalf("README has no %q", heading)
	}
	rest := s[i+len(heading):]
	if j := strings.Index(rest, "\n#"); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// TestREADMEExitCodes: the README's exit-code table is the program's: every
// code the program can exit with, and nothing else, each meaning what
// smsdesk --help says it means; send-pair's help names each code too.
func TestREADMEExitCodes(t *testing.T) {
	t.Parallel()
	var got []int
	rows := regexp.MustCompile(`(?m)^\| (\d+) \| (.+) \|$`).FindAllStringSubmatch(readmeSection(t, "### Exit codes"), -1)
	for _, m := range rows {
		n, _ := strconv.Atoi(m[1])
		got = append(got, n)
	}
	want := []int{ExitOK, ExitService, ExitUsage, ExitUnknown, ExitAuth, ExitInterrupted}
	if !slices.Equal(got, want) {
		t.Errorf("README exit codes %v, program %v", got, want)
	}
	w := newCLIWorld(t)
	help, _, _ := w.run("", "--help")
	sendHelp, _, _ := w.run("", "send-pair", "--help")
	for i, e := range exitCodes {
		if i >= len(rows) || e.Code != got[i] || strings.ReplaceAll(rows[i][2], "`", "") != strings.ReplaceAll(e.Meaning, "`", "") {
			t.Errorf("exit code %d %q: the README says %q", e.Code, e.Meaning, rows[min(i, len(rows)-1)][0])
		}
		if !strings.Contains(help, fmt.Sprintf("%-3d  %s", e.Code, e.Meaning)) {
			t.Errorf("smsdesk --help does not say exit %d: %s", e.Code, e.Meaning)
		}
		if !regexp.MustCompile(`(?s)Exit codes:.*\b` + strconv.Itoa(e.Code) + ` `).MatchString(strings.Join(strings.Fields(sendHelp), " ")) {
			t.Errorf("send-pair --help does not name exit %d", e.Code)
		}
	}
}

// TestREADMEErrorCodes: the README lists every error.code with its exit code
// and meaning, as errorCodes has them.
func TestREADMEErrorCodes(t *testing.T) {
	t.Parallel()
	rows := regexp.MustCompile("(?m)^\\| `(\\w+)` \\| (\\d+) \\| (.+) \\|$").FindAllStringSubmatch(readmeSection(t, "### Errors for scripts"), -1)
	if len(rows) != len(errorCodes) {
		t.Fatalf("README lists %d error codes, the program %d", len(rows), len(errorCodes))
	}
	for i, r := range rows {
		e := errorCodes[i]
		if r[1] != e.Code || r[2] != strconv.Itoa(e.Exit) || r[3] != e.Meaning {
			t.Errorf("README row %d: %q %s %q; program: %q %d %q", i, r[1], r[2], r[3], e.Code, e.Exit, e.Meaning)
		}
	}
}

// TestJSONErrorContract: under --json every refusal leaves stderr holding one
// JSON object and nothing else, with every key present, a code from the
// documented list, and the exit code the process exits with.
func TestJSONErrorContract(t *testing.T) {
	t.Parallel()
	little := int64(1)
	for _, tt := range []struct {
		name  string
		opts  sandbox.Options
		setup func(t *testing.T, e *sendEnv) []string // the command to run
		code  string
		exit  int
	}{
		{"unknown flag", sandbox.Options{}, func(t *testing.T, e *sendEnv) []string {
			return []string{"send-pair", "--json", "--nope"}
		}, "usage", ExitUsage},
		{"bad rows", sandbox.Options{}, func(t *testing.T, e *sendEnv) []string {
			return []string{"send-pair", "--json", "--yes", "--sender", sandbox.DefaultSender, "--file", e.pairsFile(t, "p.csv", 3, map[int]string{1: "+14155550100"})}
		}, "input", ExitUsage},
		{"credit", sandbox.Options{Credit: &little}, func(t *testing.T, e *sendEnv) []string {
			return []string{"send-pair", "--json", "--yes", "--sender", sandbox.DefaultSender, "--file", e.pairsFile(t, "p.csv", 3, nil)}
		}, "credit", ExitUsage},
		{"repeat", sandbox.Options{}, func(t *testing.T, e *sendEnv) []string {
			file := e.pairsFile(t, "p.csv", 2, nil)
			e.mustRun(t, 0, "send-pair", "--yes", "--sender", sandbox.DefaultSender, "--file", file)
			return []string{"send-pair", "--json", "--yes", "--sender", sandbox.DefaultSender, "--file", file}
		}, "repeat", ExitUsage},
		{"wrong key", sandbox.Options{}, func(t *testing.T, e *sendEnv) []string {
			e.env["SMSDESK_API_KEY"] = "sk_test_notthekey0000000000"
			return []string{"send-pair", "--json", "--yes", "--sender", sandbox.DefaultSender, "--file", e.pairsFile(t, "p.csv", 2, nil)}
		}, "auth", ExitAuth},
		{"no such send", sandbox.Options{}, func(t *testing.T, e *sendEnv) []string {
			return []string{"send-pair", "--json", "--yes", "--resume", "20200101-000000-abcdef"}
		}, "usage", ExitUsage},
		{"resend, no such send", sandbox.Options{}, func(t *testing.T, e *sendEnv) []string {
			return []string{"send-pair", "--json", "--yes", "--resend-failed", "20200101-000000-abcdef"}
		}, "usage", ExitUsage},
		{"resend, nothing failed", sandbox.Options{}, func(t *testing.T, e *sendEnv) []string {
			out, _ := e.mustRun(t, 0, "send-pair", "--yes", "--json", "--sender", sandbox.DefaultSender, "--file", e.pairsFile(t, "p.csv", 2, nil))
			return []string{"send-pair", "--json", "--yes", "--resend-failed", decodeReport(t, out).sendID()}
		}, "usage", ExitUsage},
		{"resend, flags", sandbox.Options{}, func(t *testing.T, e *sendEnv) []string {
			return []string{"send-pair", "--json", "--resend-failed", "20200101-000000-abcdef", "--sender", sandbox.DefaultSender}
		}, "usage", ExitUsage},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newSendEnvOpts(t, tt.opts, nil)
			args := tt.setup(t, e)
			code, _, stderr := e.run(t, args...)
			dec := json.NewDecoder(strings.NewReader(stderr))
			var obj map[string]map[string]json.RawMessage
			if err := dec.Decode(&obj); err != nil {
				t.Fatalf("stderr is not one JSON object: %v\n%s", err, stderr)
			}
			if dec.More() {
				t.Fatalf("stderr holds more than one JSON value:\n%s", stderr)
			}
			e1 := obj["error"]
			for _, k := range []string{"code", "message", "hint", "details", "service_code", "send_id", "exit"} {
				if _, ok := e1[k]; !ok {
					t.Errorf("error.%s missing:\n%s", k, stderr)
				}
			}
			var gotCode string
			var gotExit int
			_ = json.Unmarshal(e1["code"], &gotCode)
			_ = json.Unmarshal(e1["exit"], &gotExit)
			if gotCode != tt.code || gotExit != tt.exit || code != tt.exit {
				t.Errorf("code %q exit %d (process %d), want %q %d:\n%s", gotCode, gotExit, code, tt.code, tt.exit, stderr)
			}
			if !slices.ContainsFunc(errorCodes, func(c errorCode) bool { return c.Code == gotCode && c.Exit == gotExit }) {
				t.Errorf("code %q with exit %d is not a documented pair", gotCode, gotExit)
			}
		})
	}
}

// TestHelpEnvironmentAndVersionJSON: help environment names every variable
// smsdesk reads; version --json has its four keys.
func TestHelpEnvironmentAndVersionJSON(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	out, _, code := w.run("", "help", "environment")
	for _, v := range []string{config.EnvAPIKey, "SMSDESK_BASE_URL", config.EnvProfile, config.EnvConfigDir, config.EnvStateDir, config.EnvLedger, "PGPASSWORD", "NO_COLOR", "TERM", "TMUX", "HTTPS_PROXY"} {
		if code != 0 || !strings.Contains(out, v) {
			t.Errorf("help environment (exit %d) does not name %s", code, v)
		}
	}
	out, _, code = w.run("", "version", "--json")
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil || code != 0 || v["version"] != Version || len(v) != 4 {
		t.Errorf("version --json: exit %d, %v, %s", code, err, out)
	}
	for _, k := range []string{"commit", "date", "go"} {
		if _, ok := v[k]; !ok {
			t.Errorf("version --json lacks %q", k)
		}
	}
}

// TestVersionFromBuildInfo: commit and date come from -ldflags (make
// release), else from the build info's VCS data (go build in a git
// checkout); where neither has them they are "unknown", never "" (a plain
// go build with -buildvcs=false printed "commit": "").
func TestVersionFromBuildInfo(t *testing.T) {
	t.Parallel()
	vcs := func(kv ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{GoVersion: "go1.26.8"}
		for i := 0; i < len(kv); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return bi
	}
	const rev = "94ef76cf7e2aad6dedb732768897913ddedf7158"
	for _, tt := range []struct {
		name         string
		bi           *debug.BuildInfo
		commit, date string // -ldflags
		want         buildInfo
	}{
		{"no VCS data", vcs("-buildmode", "exe"), "", "", buildInfo{Version, "unknown", "unknown", "go1.26.8"}},
		{"no build info", nil, "", "", buildInfo{Version, "unknown", "unknown", runtime.Version()}},
		{"git checkout", vcs("vcs", "git", "vcs.revision", rev, "vcs.time", "2026-11-25T21:17:09Z", "vcs.modified", "false"), "", "",
			buildInfo{Version, "94ef76cf7e2a", "2026-11-25T21:17:09Z", "go1.26.8"}},
		{"modified tree", vcs("vcs.revision", rev, "vcs.time", "2026-11-25T21:17:09Z", "vcs.modified", "true"), "", "",
			buildInfo{Version, "94ef76cf7e2a+changes", "2026-11-25T21:17:09Z", "go1.26.8"}},
		{"make release", vcs("vcs.revision", rev, "vcs.time", "2026-11-25T21:17:09Z"), "3f2a1c9d0e1f", "2026-11-26T01:02:03Z",
			buildInfo{Version, "3f2a1c9d0e1f", "2026-11-26T01:02:03Z", "go1.26.8"}},
	} {
		if got := buildInfoOf(tt.bi, tt.commit, tt.date); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
	// This test binary's own: never "" (go test records no VCS data).
	if v := readBuildInfo(); v.Commit == "" || v.Date == "" || !strings.Contains(versionText(), "commit "+v.Commit) {
		t.Errorf("readBuildInfo() = %+v, versionText() = %q", v, versionText())
	}
}

// TestREADMEInstallsFromAClone: the module is not published, so the README
// installs smsdesk from a clone (go install .); `go install
// github.com/smsdesk/smsdesk@latest` cannot work and was what it said.
func TestREADMEInstallsFromAClone(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join("..", "..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	module := strings.Fields(strings.SplitN(string(gomod), "\n", 2)[0])[1]
	if strings.Contains(string(readme), "go install "+module+"@") {
		t.Errorf("the README installs %s@… from the module proxy, where it is not published", module)
	}
	if !strings.Contains(string(readme), "`go install .`") {
		t.Error("the README does not say how to install from a clone (`go install .`)")
	}
}

// documentedKeys reads the README's JSON output table: command → keys.
func documentedKeys(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([^`]+)`[^|]*\\| (.+) \\|$").FindAllStringSubmatch(readmeSection(t, "### JSON output"), -1) {
		out[m[1]] = regexp.MustCompile("`(\\w+)`").FindAllString(m[2], -1)
		for i, k := range out[m[1]] {
			out[m[1]][i] = strings.Trim(k, "`")
		}
	}
	return out
}

// keysOf is the top-level keys of one JSON object, in order of appearance.
func keysOf(t *testing.T, raw []byte) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object: %v\n%s", err, raw)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// TestJSONShapes: every command's --json, on success and on each refusal,
// has exactly the top-level keys the README documents for it.
func TestJSONShapes(t *testing.T) {
	t.Parallel()
	docs := documentedKeys(t)
	credit := int64(2)
	e := newSendEnvOpts(t, sandbox.Options{Credit: &credit, NoCreditEndpoint: true}, nil)
	good := e.pairsFile(t, "good.csv", 4, nil)
	bad := e.pairsFile(t, "bad.csv", 3, map[int]string{1: "0912"})
	_, sent, _ := e.run(t, "send-pair", "--json", "--yes", "--chunk-size", "1", "--sender", sandbox.DefaultSender, "--file", good)
	id := decodeReport(t, sent).sendID()
	_, refused, _ := e.run(t, "send-pair", "--json", "--yes", "--sender", sandbox.DefaultSender, "--file", bad)
	_, dry, _ := e.run(t, "send-pair", "--json", "--dry-run", "--sender", sandbox.DefaultSender, "--file", good)
	_, repeat, _ := e.run(t, "send-pair", "--json", "--yes", "--sender", sandbox.DefaultSender, "--file", good)
	_, resumeDry, _ := e.run(t, "send-pair", "--json", "--resume", id, "--dry-run")
	contacts := filepath.Join(e.dir, "c.csv")
	if err := os.WriteFile(contacts, []byte("mobile,name\n09121110001,Ali\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	badContacts := filepath.Join(e.dir, "cbad.csv")
	if err := os.WriteFile(badContacts, []byte("mobile,name\n0912,Ali\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	gid := strings.TrimSpace(func() string { o, _ := e.mustRun(t, 0, "groups", "create", "shapes"); return o }())
	_, imported, _ := e.run(t, "contacts", "import", gid, contacts, "--json")
	_, importRefused, _ := e.run(t, "contacts", "import", gid, badContacts, "--json")
	hist, _ := e.mustRun(t, 0, "history", "--json")
	var list []json.RawMessage
	if err := json.Unmarshal([]byte(hist), &list); err != nil || len(list) == 0 {
		t.Fatalf("history --json: %v\n%s", err, hist)
	}
	show, _ := e.mustRun(t, 0, "history", "show", id, "--json")
	version, _ := e.mustRun(t, 0, "version", "--json")
	first := func(args ...string) string { // the first element of a JSON array a command prints
		t.Helper()
		_, out, _ := e.run(t, args...)
		var list []json.RawMessage
		if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) == 0 {
			t.Fatalf("%v: not a non-empty JSON array: %v\n%s", args, err, out)
		}
		return string(list[0])
	}
	status, _ := e.mustRun(t, 0, "status", "--json")
	e.env["SMSDESK_API_KEY"] = "sk_test_notthekey0000000000"
	_, statusRefused, _ := e.run(t, "status", "--json")
	e.env["SMSDESK_API_KEY"] = e.sb.Key()
	created, _ := e.mustRun(t, 0, "groups", "create", "shapes two", "--json")
	added, _ := e.mustRun(t, 0, "contacts", "add", gid, "09121110099", "--name", "Shape", "--json")
	e.mustRun(t, 0, "operators", "add", "sara", "--key", testOperatorKey)

	for _, tt := range []struct {
		name, doc, out string
		extra          []string
	}{
		{"send-pair, sent (stopped for credit)", "send-pair", sent, nil},
		{"send-pair, refused rows", "send-pair", refused, nil},
		{"send-pair, dry run", "send-pair", dry, nil},
		{"send-pair, repeat refused", "send-pair", repeat, nil},
		{"resume dry run", "send-pair --resume ID --dry-run", resumeDry, nil},
		{"contacts import", "contacts import", imported, nil},
		{"contacts import, refused", "contacts import", importRefused, nil},
		{"history", "history", string(list[0]), nil},
		{"history show", "history", show, []string{"results"}},
		{"version", "version", version, nil},
		{"status", "status", status, nil},
		{"status, key refused", "status", statusRefused, nil},
		{"doctor", "doctor", first("doctor", "--json"), nil},
		{"config path", "config path", first("config", "path", "--json"), nil},
		{"config get", "config get", first("config", "get", "--json"), nil},
		{"config get SETTING", "config get", func() string { o, _ := e.mustRun(t, 0, "config", "get", "chunk_size", "--json"); return o }(), nil},
		{"profiles list", "profiles list", first("profiles", "list", "--json"), nil},
		{"groups create", "groups create", created, nil},
		{"groups list", "groups list", first("groups", "list", "--json"), nil},
		{"contacts add", "contacts add", added, nil},
		{"contacts list", "contacts list", first("contacts", "list", gid, "--json"), nil},
		{"operators list", "operators list", first("operators", "list", "--json"), nil},
	} {
		want, ok := docs[tt.doc]
		if !ok {
			t.Fatalf("README documents no keys for %q (has %v)", tt.doc, docs)
		}
		want = append(append([]string{}, want...), tt.extra...)
		if got := keysOf(t, []byte(tt.out)); !slices.Equal(got, want) {
			t.Errorf("%s: keys %v\nREADME: %v", tt.name, got, want)
		}
	}
	// Inside: counts and each result as the README's example has them, in
	// send-pair's report, history and history show alike.
	example := readmeJSONExample(t)
	for _, tt := range []struct {
		name, out, path string
	}{
		{"send-pair counts", sent, "counts"}, {"send-pair results", sent, "results"},
		{"history counts", string(list[0]), "counts"},
		{"history show counts", show, "counts"}, {"history show results", show, "results"},
	} {
		var got map[string]json.RawMessage
		if err := json.Unmarshal([]byte(tt.out), &got); err != nil {
			t.Fatal(err)
		}
		if g, w := innerKeys(t, got[tt.path]), innerKeys(t, example[tt.path]); !slices.Equal(g, w) {
			t.Errorf("%s: keys %v\nREADME's example: %v", tt.name, g, w)
		}
	}
}

// readmeJSONExample is the send-pair report the README shows, by key.
func readmeJSONExample(t *testing.T) map[string]json.RawMessage {
	t.Helper()
	sec := readmeSection(t, "### JSON output")
	i := strings.Index(sec, "```json\n")
	j := strings.Index(sec[i+8:], "```")
	if i < 0 || j < 0 {
		t.Fatal("README's JSON output has no example")
	}
	var ex map[string]json.RawMessage
	if err := json.Unmarshal([]byte(strings.ReplaceAll(sec[i+8:i+8+j], "…", "")), &ex); err != nil {
		t.Fatalf("README's JSON example does not parse: %v", err)
	}
	return ex
}

// innerKeys is the keys of an object, or of an array's first object.
func innerKeys(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	if s := strings.TrimSpace(string(raw)); strings.HasPrefix(s, "[") {
		var list []json.RawMessage
		if err := json.Unmarshal(raw, &list); err != nil || len(list) == 0 {
			t.Fatalf("want a non-empty array: %s", raw)
		}
		raw = list[0]
	}
	return keysOf(t, raw)
}

// TestJQ: --jq filters --json output (strings raw, the rest compact JSON);
// without --json, or with a bad expression, it is a usage error before any
// request.
func TestJQ(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	file := e.pairsFile(t, "p.csv", 3, nil)
	out, _ := e.mustRun(t, 0, "send-pair", "--yes", "--json", "--sender", sandbox.DefaultSender, "--file", file,
		"--jq", `.results[] | select(.status == "accepted") | .recipient`)
	if got := strings.Fields(out); !slices.Equal(got, []string{"09120000001", "09120000002", "09120000003"}) {
		t.Errorf("--jq recipients: %q", out)
	}
	out, _ = e.mustRun(t, 0, "history", "--json", "--jq", ".[0].counts.accepted")
	if strings.TrimSpace(out) != "3" {
		t.Errorf("--jq on history: %q", out)
	}
	before := e.sb.Requests()
	for _, args := range [][]string{{"history", "--jq", ".[0]"}, {"history", "--json", "--jq", ".[0"}} {
		if code, _, _ := e.run(t, args...); code != ExitUsage {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	if e.sb.Requests() != before {
		t.Error("a refused --jq made requests")
	}
}
