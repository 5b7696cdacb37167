package legacy_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/config/legacy"
	"github.com/smsdesk/smsdesk/config/legacy/legacytest"
)

const (
	mainOptOuts  = "accounts/e58cc07961ac44b88b4df371/optouts.json"
	flakyOptOuts = "accounts/3c2f3728fb980ea77aab2f67/optouts.json"
	mainOnce     = "accounts/e58cc07961ac44b88b4df371/once.json"
)

func journal(id string) string { return "sends/" + id + ".jsonl" }

// replaceLine returns data with its n-th line (1-based) replaced by line.
func replaceLine(n int, line string) func([]byte) []byte {
	return func(data []byte) []byte {
		lines := bytes.Split(data, []byte{'\n'})
		lines[n-1] = []byte(line)
		return bytes.Join(lines, []byte{'\n'})
	}
}

func replace(old, new string) func([]byte) []byte {
	return func(data []byte) []byte { return bytes.Replace(data, []byte(old), []byte(new), 1) }
}

// A file that does not read stops the whole read with an error naming the
// file and the line: nothing is skipped, nothing read as empty.
func TestReadDamaged(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		damage  func([]byte) []byte
		line    int
		problem string
	}{
		{"a journal line of garbage", journal(sendUnknown), replaceLine(3, `{"type":"outcome","chunk":0,"res`), 3, "not a journal record"},
		{"a journal line that is no JSON", journal(sendComplete), replaceLine(2, `####`), 2, "not a journal record"},
		{"a record type this version never wrote", journal(sendComplete), replaceLine(4, `{"type":"refund","time":"2026-11-27T00:01:13Z"}`), 4, `unknown journal record type "refund"`},
		{"a journal that starts with an intent", journal(sendComplete), func(b []byte) []byte {
			lines := bytes.SplitN(b, []byte{'\n'}, 2)
			return lines[1]
		}, 1, "before the send's plan"},
		{"a second plan", journal(sendScheduled), func(b []byte) []byte { return append(b, b...) }, 2, "a second plan"},
		{"a plan of another send", journal(sendScheduled), replace(`"id":"`+sendScheduled, `"id":"20261127-000113-ffffff`), 1, "the plan is of send"},
		{"a field of the wrong type", journal(sendOnce), replaceLine(2, `{"type":"intent","time":"2026-11-27T00:01:24Z","chunk":"zero","indexes":[0],"key":"k"}`), 2, "intent record"},
		{"an opt-out list that is null", mainOptOuts, func([]byte) []byte { return []byte(`{"version":1,"optouts":null}`) }, 0, "it would send to everyone on it"},
		{"an opt-out list with no list", flakyOptOuts, func([]byte) []byte { return []byte(`{"version":1}`) }, 0, `no "optouts" list`},
		{"an opt-out list with no version", mainOptOuts, replace(`"version": 1,`, ``), 0, "format version"},
		{"an opt-out list of a newer version", mainOptOuts, replace(`"version": 1,`, `"version": 2,`), 0, "format version 2, the file store wrote version 1"},
		{"an opt-out list cut short", flakyOptOuts, func(b []byte) []byte { return b[:len(b)-20] }, 10, "not valid JSON"},
		{"an opt-out list that is not an object", flakyOptOuts, func([]byte) []byte { return []byte("[1,\n2]") }, 1, "cannot unmarshal"},
		{"a number not in its stored form", flakyOptOuts, replace(`"09121110003"`, `"+989121110003"`), 8, `"+989121110003" is not a number in its stored form`},
		{"a number that is no number", mainOptOuts, replace(`"09121110002"`, `"call me"`), 9, `"call me" is not a number`},
		{"an opt-out's time that does not read", mainOptOuts, replace(`"2026-11-27T00:01:10.555019355Z"`, `"yesterday"`), 9, "cannot parse"},
		{"once-only ids that are null", mainOnce, func([]byte) []byte { return []byte(`{"version":1,"sends":null}`) }, 0, "a once-only send could go again"},
		{"a once-only id with no send", mainOnce, replace(`"send_id": "20261127-000124-c47d41"`, `"send_id": ""`), 13, "no id or no send"},
		{"an audit line of garbage", "audit.jsonl", replaceLine(4, `{"time":`), 4, "not an audit record"},
		{"an audit line with no action", "audit.jsonl", replaceLine(2, `{"time":"2026-11-27T00:01:10Z","mobile":"09121110010"}`), 2, "no action or no time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := fixtureWith(t, tt.file, tt.damage)
			s, err := legacy.Read(dir)
			if s != nil {
				t.Errorf("a snapshot of a damaged directory: %d sends", len(s.Sends))
			}
			errorIs(t, err, dir, filepath.FromSlash(tt.file), tt.line, tt.problem)
		})
	}
}

// What a crash leaves is read as the file store read it, and said in a note.
func TestReadWhatACrashLeaves(t *testing.T) {
	tests := []struct {
		name   string
		file   string
		damage func([]byte) []byte
		check  func(*testing.T, *legacy.Snapshot)
		note   string
	}{
		{"a journal's last line cut short", journal(sendUnknown), func(b []byte) []byte { return b[:len(b)-10] },
			func(t *testing.T, s *legacy.Snapshot) {
				send := s.Sends[slices.IndexFunc(s.Sends, func(x legacy.Send) bool { return x.ID == sendUnknown })]
				if !send.CutTail || len(send.Records) != 9 || send.State.Ended {
					t.Errorf("cut %v, %d records, ended %v; want the end record left out", send.CutTail, len(send.Records), send.State.Ended)
				}
			}, "its last line was cut short"},
		{"a journal's last line whole but for its newline", journal(sendOnce), func(b []byte) []byte { return b[:len(b)-1] },
			func(t *testing.T, s *legacy.Snapshot) {
				send := s.Sends[slices.IndexFunc(s.Sends, func(x legacy.Send) bool { return x.ID == sendOnce })]
				if send.CutTail || len(send.Records) != 4 || !send.State.Ended {
					t.Errorf("cut %v, %d records, ended %v; want the end record read (replay reads it)", send.CutTail, len(send.Records), send.State.Ended)
				}
			}, ""},
		{"a journal with a cut plan", journal(sendScheduled), func(b []byte) []byte { return b[:40] },
			func(t *testing.T, s *legacy.Snapshot) {
				if slices.ContainsFunc(s.Sends, func(x legacy.Send) bool { return x.ID == sendScheduled }) || len(s.Sends) != 4 {
					t.Errorf("a journal with no plan imported: %d sends", len(s.Sends))
				}
				if !slices.Contains(s.Files, filepath.FromSlash(journal(sendScheduled))) {
					t.Error("a journal with no plan is not among the files moved aside")
				}
			}, "holds no plan"},
		{"an empty journal", journal(sendScheduled), func([]byte) []byte { return nil },
			func(t *testing.T, s *legacy.Snapshot) {
				if len(s.Sends) != 4 {
					t.Errorf("%d sends, want 4", len(s.Sends))
				}
			}, "holds no plan"},
		{"the audit file's last line cut short", "audit.jsonl", func(b []byte) []byte { return b[:len(b)-30] },
			func(t *testing.T, s *legacy.Snapshot) {
				if len(s.Audit) != 8 {
					t.Errorf("%d audit records, want 8", len(s.Audit))
				}
			}, "audit.jsonl: its last line was cut short"},
		{"blank lines", "audit.jsonl", func(b []byte) []byte { return append(append([]byte("\n  \n"), b...), "\n\n"...) },
			func(t *testing.T, s *legacy.Snapshot) {
				if len(s.Audit) != 9 {
					t.Errorf("%d audit records, want 9", len(s.Audit))
				}
			}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := fixtureWith(t, tt.file, tt.damage)
			s, err := legacy.Read(dir)
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			tt.check(t, s)
			notes := strings.Join(s.Notes, "\n")
			if tt.note == "" && notes != "" || !strings.Contains(notes, tt.note) {
				t.Errorf("notes %q, want one saying %q", s.Notes, tt.note)
			}
		})
	}
}

// Files under sends/ or accounts/ that are not the file store's are moved
// aside with the rest, and named in a note; leftovers of its own writes are not.
func TestReadStrangers(t *testing.T) {
	dir := legacytest.Fixture(t)
	for _, f := range []string{"sends/notes.txt", "sends/old", "accounts/x.bak", "accounts/e58cc07961ac44b88b4df371/optouts.json.orig",
		"sends/.20261127-000113-95c2c8.pairs.tmp-123", "accounts/e58cc07961ac44b88b4df371/.once.json.tmp-9"} {
		writeFile(t, filepath.Join(dir, f), "x")
	}
	if err := os.Mkdir(filepath.Join(dir, "sends", "archive.jsonl"), 0o700); err != nil {
		t.Fatal(err)
	}
	s, err := legacy.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(s.Notes, "\n")
	for _, f := range []string{"sends/notes.txt", "sends/old", "accounts/x.bak", "optouts.json.orig", "sends/archive.jsonl"} {
		if !strings.Contains(notes, filepath.FromSlash(f)+" is not the file store's") {
			t.Errorf("no note names %s: %q", f, s.Notes)
		}
	}
	if strings.Contains(notes, ".tmp-") || len(s.Notes) != 5 {
		t.Errorf("notes %q, want the 5 strangers", s.Notes)
	}
	if len(s.Sends) != 5 {
		t.Errorf("%d sends, want 5", len(s.Sends))
	}
}

// A file name that is no send id (the file store refused such ids) is
// refused, and the name is sanitised before it reaches a terminal.
func TestReadJournalName(t *testing.T) {
	dir := legacytest.Fixture(t)
	name := "bad\x1b[31mname.jsonl"
	writeFile(t, filepath.Join(dir, "sends", name), "{}\n")
	_, err := legacy.Read(dir)
	errorIs(t, err, dir, filepath.Join("sends", name), 0, "not a send id")
	if strings.ContainsRune(err.Error(), '\x1b') {
		t.Errorf("an escape in the error: %q", err)
	}
}

// An error says how to mend the file by what it is: an opt-out list or the
// once-only ids are never to be removed.
func TestErrorSaysHowToMend(t *testing.T) {
	tests := []struct {
		path string
		line int
		want string
	}{
		{"/s/accounts/a/optouts.json", 3, "restore it from a backup, or mend it by hand (removing it would send to everyone on it)"},
		{"/s/accounts/a/once.json", 0, "(removing it would let a once-only send go again)"},
		{"/s/sends/x.jsonl", 4, "/s/sends/x.jsonl line 4: bad; mend or remove that line by hand, or restore the file from a backup"},
		{"/s/audit.jsonl", 2, "mend or remove that line by hand"},
		{"/s/sends/x.jsonl", 0, "/s/sends/x.jsonl: bad; mend it by hand, or restore it from a backup"},
	}
	for _, tt := range tests {
		err := &legacy.Error{Path: filepath.FromSlash(tt.path), Line: tt.line, Problem: "bad"}
		if !strings.Contains(err.Error(), filepath.FromSlash(tt.want)) {
			t.Errorf("%s line %d: %q, want %q", tt.path, tt.line, err, tt.want)
		}
	}
}

// fixtureWith is a copy of the fixture with file (slash-separated, below
// the state directory) changed by damage.
func fixtureWith(t *testing.T, file string, damage func([]byte) []byte) string {
	t.Helper()
	dir := legacytest.Fixture(t)
	path := filepath.Join(dir, filepath.FromSlash(file))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, damage(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}
