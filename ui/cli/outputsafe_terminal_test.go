package cli

import (
	"encoding/json"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// evil is what a hostile service, file or journal may hold: OSC 52 (write
// the operator's clipboard), clear screen, an 8-bit CSI, a bidi override
// and an isolate. Around the word "evil", so a test can see the value did
// reach the output, cleaned.
const evil = "\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\u009b31m\u202eevil\u2066"

// rawControl reports the first character of s that must not reach a
// terminal raw: C0 controls but tab and newline, DEL, C1, bidi overrides and
// isolates. JSON output escapes them; text output drops them.
func rawControl(s string) (rune, bool) {
	for _, r := range s {
		switch {
		case r == '\t' || r == '\n':
		case r < 0x20, r >= 0x7f && r <= 0x9f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			return r, true
		}
	}
	return 0, false
}

// TestNoEscapeSequenceReachesTheTerminal: a service's escape sequences in
// group names, contact names, messages and error messages, a file's name
// and a journal's profile reach neither stdout nor stderr raw, in tables,
// plain text, errors (text and --json) and the application layer's
// refusals. Each case also checks the word around them arrived: the value
// was printed, cleaned, not dropped.
func TestNoEscapeSequenceReachesTheTerminal(t *testing.T) {
	t.Parallel()
	var failing atomic.Value // the path the service fails with evil, "" for none
	failing.Store("")
	e := newSendEnv(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if p := failing.Load().(string); p != "" && strings.Contains(r.URL.Path, p) {
				w.Header().Set("Content-Type", "application/json")
				status := http.StatusUnprocessableEntity
				if strings.Contains(r.URL.Path, "/contact-groups/0/") {
					status = http.StatusUnauthorized // the key check
				}
				w.WriteHeader(status)
				_ = json.NewEncoder(w).Encode(map[string]any{"success": false, "error_code": "bad\x1b[2J", "message": evil})
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	out, _ := e.mustRun(t, 0, "groups", "create", evil, "--description", evil)
	gid := strings.TrimSpace(out)
	e.mustRun(t, 0, "contacts", "add", gid, "09121110001", "--name", evil)
	e.mustRun(t, 0, "config", "set", "senders", sandbox.DefaultSender)
	pairs := e.file(t, "pairs.csv", "mobile,message\n09121110001,\"hello\nsecond line\"\n")
	hostilePairs := e.file(t, "hostile.csv", "mobile,message\n09121110001,\""+evil+" hello\"\n")
	evilFile := e.file(t, "f"+evil+".csv", "mobile,message\n0912,hi\n")
	// A journal of another profile, whose name and message are hostile.
	paths := config.PathsIn(filepath.Join(e.dir, "config"), filepath.Join(e.dir, "state"))
	j, err := config.CreateJournal(t.Context(), paths, "20260101-000000-abcdef")
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range []model.JournalRecord{
		&model.JournalPlan{ID: "20260101-000000-abcdef", Time: time.Unix(0, 0), Profile: "p" + evil, BaseURL: e.base + "/api/v1", Sender: sandbox.DefaultSender,
			Items: []model.JournalItem{{Index: 0, Recipient: "09121110002", Message: evil + "\nline two", Line: 2}}},
	} {
		if err := j.Append(rec); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()

	for _, tt := range []struct {
		name string
		fail string // the service answers this path with evil
		args []string
	}{
		{"groups create, a name known (error)", "", []string{"groups", "create", evil}},
		{"groups list (table)", "", []string{"groups", "list"}},
		{"contacts list (table)", "", []string{"contacts", "list", gid}},
		{"contacts list --csv", "", []string{"contacts", "list", gid, "--csv"}},
		{"contacts list --json", "", []string{"contacts", "list", gid, "--json"}},
		{"send-pair --group --dry-run (table, samples)", "", []string{"send-pair", "--group", gid, "--template", "Hi {name}", "--dry-run", "--sender", sandbox.DefaultSender}},
		{"contacts list --json --jq (raw strings)", "", []string{"contacts", "list", gid, "--json", "--jq", ".[].name"}},
		{"send-pair --file --dry-run, a hostile message (refused)", "", []string{"send-pair", "--file", hostilePairs, "--dry-run", "--sender", sandbox.DefaultSender, "--json"}},
		{"send-pair refused by the service (results, error)", "/sms/send-pair", []string{"send-pair", "--file", pairs, "--yes", "--sender", sandbox.DefaultSender}},
		{"send-pair refused by the service --json", "/sms/send-pair", []string{"send-pair", "--file", pairs, "--yes", "--sender", sandbox.DefaultSender, "--json", "--allow-repeat"}},
		{"contacts list refused by the service (error)", "/contacts", []string{"contacts", "list", gid}},
		{"contacts list refused --json (error object)", "/contacts", []string{"contacts", "list", gid, "--json"}},
		{"status, check refused (plain)", "/contact-groups/0", []string{"status"}},
		{"doctor, check refused (plain)", "/contact-groups/0", []string{"doctor"}},
		{"status --json, check refused", "/contact-groups/0", []string{"status", "--json"}},
		{"rows refused, the file named (app refusal)", "", []string{"send-pair", "--file", evilFile, "--yes", "--sender", sandbox.DefaultSender}},
		{"resume of another profile's send (app refusal)", "", []string{"send-pair", "--resume", "20260101-000000-abcdef", "--yes"}},
		{"resume of another profile's send --json", "", []string{"send-pair", "--resume", "20260101-000000-abcdef", "--yes", "--json"}},
		{"history --all-profiles (table)", "", []string{"history", "--all-profiles"}},
		{"history show (plain, table)", "", []string{"history", "show", "20260101-000000-abcdef"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			failing.Store(tt.fail)
			defer failing.Store("")
			_, stdout, stderr := e.run(t, tt.args...)
			for what, s := range map[string]string{"stdout": stdout, "stderr": stderr} {
				if r, ok := rawControl(s); ok {
					t.Errorf("%s holds %U raw:\n%q", what, r, s)
				}
			}
			if !strings.Contains(stdout+stderr, "evil") {
				t.Errorf("the hostile value did not reach the output at all:\n%s\n%s", stdout, stderr)
			}
		})
	}
	// The send the service refused: its journal holds the service's words.
	id, _ := e.mustRun(t, 0, "history", "--json", "--jq", ".[0].id")
	_, stdout, stderr := e.run(t, "history", "show", strings.TrimSpace(id))
	if r, ok := rawControl(stdout + stderr); ok || !strings.Contains(stdout, "evil") {
		t.Errorf("history show of the refused send: %U raw, or no evil:\n%q", r, stdout+stderr)
	}
}

// TestPrintfCleansWhatItIsGiven: printf, the printer of plain text, makes
// each string or error argument one line without controls, and leaves its
// own format (a progress line's erase) and other values alone.
func TestPrintfCleansWhatItIsGiven(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		format string
		args   []any
		want   string
	}{
		{"group %s\n", []any{"Team\x1b[2J\nline two"}, "group Team line two\n"},
		{"%q\n", []any{"a\u202eb"}, "\"ab\"\n"},
		{"err: %s\n", []any{errors.New("\x1b]52;c;eA==\x07gone\tnow")}, "err: gone now\n"},
		{"\r\x1b[K%d sent, %s\n", []any{3, "\u009b31mred"}, "\r\x1b[K3 sent, red\n"},
	} {
		var b strings.Builder
		printf(&b, tt.format, tt.args...)
		if b.String() != tt.want {
			t.Errorf("printf(%q, %q) = %q, want %q", tt.format, tt.args, b.String(), tt.want)
		}
	}
}
