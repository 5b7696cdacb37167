package cli

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// TestJSONFieldSelection: --json=FIELDS (gh's convention) keeps only those
// top-level keys, of the object or of each element of a list, in the
// documented order whatever order they were asked in; --jq reads what is
// kept; --json alone still prints every key (TestJSONShapes).
func TestJSONFieldSelection(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	file := e.pairsFile(t, "p.csv", 2, nil)
	out, _ := e.mustRun(t, 0, "send-pair", "--yes", "--sender", sandbox.DefaultSender, "--file", file, "--json=counts,id")
	var sent struct {
		ID     string         `json:"id"`
		Counts map[string]int `json:"counts"`
	}
	if err := json.Unmarshal([]byte(out), &sent); err != nil || sent.ID == "" || sent.Counts["accepted"] != 2 {
		t.Fatalf("send-pair --json=counts,id: %v\n%s", err, out)
	}
	for _, tt := range []struct {
		name string
		args []string
		want []string // the keys of the object, or of each element
	}{
		{"send-pair, in the documented order", []string{"send-pair", "--yes", "--allow-repeat", "--sender", sandbox.DefaultSender, "--file", file, "--json=results,counts,id"}, []string{"id", "counts", "results"}},
		{"resume dry run: a key it lacks is null", []string{"send-pair", "--resume", sent.ID, "--dry-run", "--json=would_send,results"}, []string{"results", "would_send"}},
		{"status", []string{"status", "--json=service_error,accepted"}, []string{"accepted", "service_error"}},
		{"version, one key", []string{"version", "--json=go"}, []string{"go"}},
		{"history, each send", []string{"history", "--json=status,id"}, []string{"id", "status"}},
		{"history show", []string{"history", "show", sent.ID, "--json=results,counts"}, []string{"counts", "results"}},
		{"config get, each setting; spaces and repeats", []string{"config", "get", "--json=value, setting,value"}, []string{"setting", "value"}},
		{"--json=true is every key", []string{"version", "--json=true"}, versionFields},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, _ := e.mustRun(t, 0, tt.args...)
			if got := innerKeys(t, json.RawMessage(out)); !slices.Equal(got, tt.want) {
				t.Errorf("keys %v, want %v\n%s", got, tt.want, out)
			}
			if strings.HasPrefix(strings.TrimSpace(out), "[") {
				var list []map[string]json.RawMessage
				if err := json.Unmarshal([]byte(out), &list); err != nil {
					t.Fatal(err)
				}
				for i, el := range list {
					if len(el) != len(tt.want) {
						t.Errorf("element %d has %d keys, want %v", i, len(el), tt.want)
					}
				}
			}
		})
	}
	var dry map[string]json.RawMessage
	out, _ = e.mustRun(t, 0, "send-pair", "--resume", sent.ID, "--dry-run", "--json=would_send,results")
	if err := json.Unmarshal([]byte(out), &dry); err != nil || string(dry["results"]) != "null" {
		t.Errorf("a selected key the output lacks: %v %s", err, out)
	}

	// --jq applies after the selection.
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"status", "--json=accepted", "--jq", "keys"}, `["accepted"]`},
		{[]string{"history", "--json=counts", "--jq", ".[0] | keys"}, `["counts"]`},
		{[]string{"send-pair", "--resume", sent.ID, "--dry-run", "--json=would_send,results", "--jq", ".results"}, "null"},
	} {
		if out, _ := e.mustRun(t, 0, tt.args...); strings.TrimSpace(out) != tt.want {
			t.Errorf("%v: %q, want %q", tt.args, out, tt.want)
		}
	}
}

// TestJSONFieldRefusals: an unknown field, an empty list, or the fields
// given as an argument (--json a,b: the value is optional, so it must
// follow '=') are usage errors, exit 2, before any request or journal; the
// error object lists the command's fields or shows --json=FIELDS.
func TestJSONFieldRefusals(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	file := e.pairsFile(t, "p.csv", 2, nil)
	for _, tt := range []struct {
		name string
		args []string
		says []string
	}{
		{"unknown field", []string{"status", "--json=accepted,bogus"},
			[]string{`unknown JSON field \"bogus\"`, "available fields: profile, base_url, key_source, key_fingerprint, key_error, accepted, service_error, check_ms, rate, credit"}},
		{"unknown field on a send", []string{"send-pair", "--yes", "--sender", sandbox.DefaultSender, "--file", file, "--json=id,recipients"},
			[]string{`unknown JSON field \"recipients\"`, "would_send"}},
		{"a field of another command", []string{"contacts", "list", "1", "--json=id,status"}, []string{`unknown JSON field \"status\"`, "id, group_id, name, mobile"}},
		{"no field", []string{"doctor", "--json="}, []string{"no JSON fields named", "--json alone for all"}},
		{"fields as an argument", []string{"status", "--json", "accepted,service_error"}, []string{"--json=accepted,service_error"}},
		{"fields as an argument, send-pair", []string{"send-pair", "--yes", "--sender", sandbox.DefaultSender, "--file", file, "--json", "id,counts"}, []string{"--json=id,counts"}},
		{"fields as an argument, with one", []string{"history", "show", "--json", "counts", "20200101-000000-abcdef"}, []string{"--json=counts"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before, sends := e.sb.Requests(), len(e.sendIDs(t))
			code, stdout, stderr := e.run(t, tt.args...)
			obj := errorObject(t, stderr)
			if code != ExitUsage || obj.Error.Code != "usage" || obj.Error.Exit != ExitUsage || stdout != "" {
				t.Errorf("exit %d, code %q, stdout %q; want 2, usage, nothing", code, obj.Error.Code, stdout)
			}
			for _, s := range tt.says {
				if !strings.Contains(stderr, s) {
					t.Errorf("the error does not say %q:\n%s", s, stderr)
				}
			}
			if e.sb.Requests() != before || len(e.sendIDs(t)) != sends {
				t.Errorf("a refused --json made %d request(s) and %d send(s)", e.sb.Requests()-before, len(e.sendIDs(t))-sends)
			}
		})
	}
	// A positional argument that is not a field list keeps its own error.
	_, _, stderr := e.run(t, "version", "--json", "x")
	if strings.Contains(stderr, "--json=") || !strings.Contains(stderr, `unknown command \"x\"`) {
		t.Errorf("version --json x: %s", stderr)
	}
}

// TestJSONFieldsAreTheREADMEs: each command's --json fields are the keys
// the README's JSON table documents for it (send-pair: with its resume dry
// run's; history show: history's and results), and its --help shows
// --json=FIELDS in an example and lists the fields.
func TestJSONFieldsAreTheREADMEs(t *testing.T) {
	t.Parallel()
	docs := documentedKeys(t)
	var walk func(c *cobra.Command)
	n := 0
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		fl := c.Flags().Lookup("json")
		if fl == nil {
			return
		}
		n++
		path := strings.TrimPrefix(c.CommandPath(), "smsdesk ")
		var want []string
		switch path {
		case "send-pair":
			want = slices.Clone(docs[path])
			for _, k := range append(slices.Clone(docs["send-pair --resume ID --dry-run"]), docs["send-pair --at TIME"]...) {
				if !slices.Contains(want, k) {
					want = append(want, k)
				}
			}
		case "history show":
			want = append(slices.Clone(docs["history"]), "results")
		default:
			want = docs[path]
		}
		f, ok := fl.Value.(*jsonFlag)
		if !ok {
			t.Errorf("%s: --json is not a jsonFlag", path)
			return
		}
		if !slices.Equal(f.valid, want) || len(want) == 0 {
			t.Errorf("%s --json fields %v, README %v", path, f.valid, want)
		}
		if !strings.Contains(c.Example, "smsdesk "+path) || !strings.Contains(c.Example, "--json=") || !strings.Contains(c.Long, strings.Join(want, ", ")) {
			t.Errorf("%s --help: no --json=FIELDS example or field list:\n%s\n%s", path, c.Long, c.Example)
		}
	}
	walk(newCmdRoot(&rootOptions{f: newFactory(nil, Env{Getenv: func(string) string { return "" }})}))
	if n < 14 {
		t.Errorf("%d commands with --json; want every one", n)
	}
}

// sendIDs are the sends journaled in the test's state directory.
func (e *sendEnv) sendIDs(t *testing.T) []string {
	t.Helper()
	out, _ := e.mustRun(t, 0, "history", "--all-profiles", "--json=id", "--jq", ".[].id")
	return strings.Fields(out)
}
