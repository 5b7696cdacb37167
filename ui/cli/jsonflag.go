package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// --json, as gh has it: alone it prints every key of the command's JSON;
// --json=FIELDS (comma-separated) keeps only those top-level keys, of the
// object or of each element of the list, in the documented order. --jq
// applies after the selection. The value must follow '=': the flag's value
// is optional, so `--json a,b` reads a,b as an argument.

// JSON fields of each command, in the order the README's "JSON output"
// table (and the output) has them. TestJSONFieldsAreTheREADMEs checks them.
var (
	sendPairFields = []string{"id", "dry_run", "sender", "source", "counts", "totals", "items", "results",
		"problems", "plan_problems", "repeats", "interrupted", "stopped", "stop_cause", "resume", "once", "resend_of", "rules",
		// send-pair --resume ID --dry-run
		"would_send", "parts", "unknown", "unknown_included",
		// send-pair --at TIME
		"time", "status", "scheduled_by"}
	importFields      = []string{"group_id", "counts", "rows"}
	historyFields     = []string{"id", "time", "profile", "sender", "source", "status", "complete", "counts", "error", "stopped", "stop_cause", "damaged_lines", "operator", "scheduled_for", "started_by", "started_at", "held_until", "continued_by", "resend_of", "delivery"}
	historyShowFields = append(slices.Clone(historyFields), "results")
	versionFields     = []string{"version", "commit", "date", "go"}
	statusFields      = []string{"profile", "base_url", "key_source", "key_fingerprint", "key_error", "accepted", "service_error", "check_ms", "rate", "credit"}
	doctorFields      = []string{"check", "status", "detail", "fix"}
	configPathFields  = []string{"key", "name", "path", "exists"}
	configGetFields   = []string{"setting", "value", "source"}
	profilesFields    = []string{"name", "active", "base_url", "sender"}
	groupFields       = []string{"id", "name", "description", "contacts"}
	contactFields     = []string{"id", "group_id", "name", "mobile"}
	operatorFields    = []string{"name", "role", "fingerprint", "comment", "added"}
)

// jsonFlag is the value of a command's --json.
type jsonFlag struct {
	on     *bool
	fields []string // the keys asked for, in the documented order; nil: every key
	valid  []string // the command's keys, in the documented order
}

// addJSONFlag gives cmd its --json: on sets *on; fields are the command's
// top-level keys (of each element, for a list); example is a command line
// that selects some, for the command's --help.
func addJSONFlag(cmd *cobra.Command, on *bool, usage string, fields []string, example string) {
	f := &jsonFlag{on: on, valid: fields}
	fl := cmd.Flags().VarPF(f, "json", "", usage+"; --json=FIELDS keeps only those keys (comma-separated; listed under JSON fields)")
	fl.NoOptDefVal = "true"
	if cmd.Long == "" {
		cmd.Long = cmd.Short + "."
	}
	cmd.Long += "\n\nJSON fields (--json=FIELDS keeps only these, in this order; --json alone prints all):\n  " + strings.Join(fields, ", ")
	if cmd.Example != "" {
		cmd.Example += "\n"
	}
	cmd.Example += "  " + example
	_ = cmd.RegisterFlagCompletionFunc("json", f.complete)
	args := cmd.Args
	cmd.Args = func(c *cobra.Command, a []string) error {
		var err error
		if args != nil {
			err = args(c, a)
		}
		if err == nil || !*f.on || f.fields != nil {
			return err
		}
		for _, arg := range a {
			if _, ferr := f.parse(arg); ferr == nil {
				return usageError("%q after --json was read as an argument: the fields follow '=': --json=%s (see %s --help)", arg, arg, c.CommandPath())
			}
		}
		return err
	}
}

func (f *jsonFlag) String() string {
	if f.on != nil && *f.on {
		return "true"
	}
	return "false"
}

// Type is "bool" so that help shows --json without a value; --json=FIELDS
// is in its usage.
func (f *jsonFlag) Type() string { return "bool" }

func (f *jsonFlag) Set(s string) error {
	switch s {
	case "true":
		*f.on, f.fields = true, nil
		return nil
	case "false":
		*f.on, f.fields = false, nil
		return nil
	}
	*f.on = true // a bad selection is a --json error: one object on stderr
	fields, err := f.parse(s)
	if err != nil {
		return err
	}
	f.fields = fields
	return nil
}

// parse reads a comma-separated field list: every field must be one of the
// command's (gh's "Unknown JSON field"), returned once each, in the
// documented order.
func (f *jsonFlag) parse(s string) ([]string, error) {
	want := map[string]bool{}
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if !slices.Contains(f.valid, name) {
			return nil, fmt.Errorf("unknown JSON field %q; available fields: %s", name, strings.Join(f.valid, ", "))
		}
		want[name] = true
	}
	if len(want) == 0 {
		return nil, errors.New("no JSON fields named; give some (--json=" + strings.Join(f.valid[:min(2, len(f.valid))], ",") + "), or --json alone for all")
	}
	var out []string
	for _, v := range f.valid {
		if want[v] {
			out = append(out, v)
		}
	}
	return out, nil
}

// complete offers the command's fields for --json=, each not yet in the
// list being typed: "id,co" → "id,counts".
func (f *jsonFlag) complete(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	i := strings.LastIndex(toComplete, ",")
	done, typed := toComplete[:i+1], toComplete[i+1:]
	have := strings.Split(done, ",")
	var out []string
	for _, v := range f.valid {
		if strings.HasPrefix(v, typed) && !slices.Contains(have, v) {
			out = append(out, done+v)
		}
	}
	return out, cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
}

// jsonFieldsOf is the selection --json=FIELDS asked of cmd; nil for all.
func jsonFieldsOf(cmd *cobra.Command) []string {
	if fl := cmd.Flags().Lookup("json"); fl != nil {
		if f, ok := fl.Value.(*jsonFlag); ok && *f.on {
			return f.fields
		}
	}
	return nil
}

// jsonSelection applies --json=FIELDS to what the command printed.
type jsonSelection struct {
	fields []string
	out    io.Writer     // stdout, or --jq's input
	buf    *bytes.Buffer // what the command printed, in place of stdout
}

// run prints each JSON value the command printed with only the selected
// keys: of an object, or of each object of a list. A selected key the
// output lacks (send-pair's results in a resume's dry run) is null.
func (s *jsonSelection) run() error {
	dec := json.NewDecoder(s.buf)
	for {
		var v json.RawMessage
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("--json=%s: the output is not JSON: %w", strings.Join(s.fields, ","), err)
		}
		sel, err := s.selectKeys(v)
		if err != nil {
			return err
		}
		if err := printJSON(s.out, sel); err != nil {
			return err
		}
	}
}

func (s *jsonSelection) selectKeys(v json.RawMessage) (json.RawMessage, error) {
	switch t := bytes.TrimSpace(v); {
	case len(t) > 0 && t[0] == '[':
		var list []json.RawMessage
		if err := json.Unmarshal(t, &list); err != nil {
			return nil, err
		}
		out := []byte{'['}
		for i, e := range list {
			sel, err := s.selectKeys(e)
			if err != nil {
				return nil, err
			}
			if i > 0 {
				out = append(out, ',')
			}
			out = append(out, sel...)
		}
		return append(out, ']'), nil
	case len(t) > 0 && t[0] == '{':
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(t, &obj); err != nil {
			return nil, err
		}
		out := []byte{'{'}
		for i, k := range s.fields {
			if i > 0 {
				out = append(out, ',')
			}
			name, _ := json.Marshal(k)
			out = append(append(out, name...), ':')
			if val, ok := obj[k]; ok {
				out = append(out, val...)
			} else {
				out = append(out, "null"...)
			}
		}
		return append(out, '}'), nil
	}
	return v, nil
}
