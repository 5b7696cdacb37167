package cli

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
)

// TestStatusAndDoctorJSONSayNull: under --json, what does not apply in
// status and doctor is null, never "" (README "JSON output": absent values
// are null): the key's source and fingerprint without a key, the key error
// with one, the service error when it accepted the key or was not asked,
// check_ms when it was not asked, credit's error when it answered, a
// finding's fix when there is nothing to do. The README's status example
// has its nulls where status has them.
func TestStatusAndDoctorJSONSayNull(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	const str, num, null = "string", "number", "null"
	kind := func(raw json.RawMessage) string {
		switch s := strings.TrimSpace(string(raw)); {
		case s == "null":
			return null
		case s == `""`:
			return `""`
		case strings.HasPrefix(s, `"`):
			return str
		case strings.HasPrefix(s, "{"):
			return "object"
		case s == "true" || s == "false":
			return "bool"
		}
		return num
	}
	var noKey map[string]json.RawMessage
	for _, tt := range []struct {
		name string
		env  map[string]string
		want map[string]string // key → string, number, null
	}{
		{"accepted", nil, map[string]string{"key_source": str, "key_fingerprint": str, "key_error": null, "service_error": null, "check_ms": num, "credit": "object"}},
		{"key refused", map[string]string{"SMSDESK_API_KEY": "sk_test_notthekey0000000000"},
			map[string]string{"key_source": str, "key_fingerprint": str, "key_error": null, "service_error": str, "check_ms": num, "credit": null}},
		{"no key", map[string]string{"SMSDESK_API_KEY": ""},
			map[string]string{"key_source": null, "key_fingerprint": null, "key_error": str, "service_error": null, "check_ms": null, "rate": null, "credit": null}},
		{"no base URL", map[string]string{"SMSDESK_BASE_URL": ""},
			map[string]string{"base_url": null, "key_source": str, "key_fingerprint": str, "key_error": str, "service_error": null, "check_ms": null, "rate": null}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			saved := maps.Clone(e.env)
			defer func() { e.env = saved }()
			maps.Copy(e.env, tt.env)
			_, out, _ := e.run(t, "status", "--json")
			var got map[string]json.RawMessage
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("status --json: %v\n%s", err, out)
			}
			for k, v := range got {
				if kind(v) == `""` {
					t.Errorf("%s is \"\"; absent values are null", k)
				}
			}
			for k, want := range tt.want {
				if g := kind(got[k]); g != want {
					t.Errorf("%s: %s (%s), want %s", k, g, got[k], want)
				}
			}
			if tt.name == "accepted" {
				var credit map[string]json.RawMessage
				if err := json.Unmarshal(got["credit"], &credit); err != nil || kind(credit["error"]) != null {
					t.Errorf("credit.error: %v %s, want null", err, got["credit"])
				}
			}
			if tt.name == "no key" {
				noKey = got
			}
		})
	}
	// The README's example is the status without a key.
	sec := readmeSection(t, "### JSON output")
	i := strings.Index(sec, "A\nmissing key (`smsdesk status --json`")
	j := strings.Index(sec[max(i, 0):], "```json\n")
	if i < 0 || j < 0 || noKey == nil {
		t.Fatal("README has no status example after its send-pair one")
	}
	block := sec[i+j+8:]
	block = block[:strings.Index(block, "```")]
	var ex map[string]json.RawMessage
	if err := json.Unmarshal([]byte(strings.ReplaceAll(block, "…", "")), &ex); err != nil {
		t.Fatalf("README's status example: %v", err)
	}
	if got, want := slices.Sorted(maps.Keys(ex)), slices.Sorted(maps.Keys(noKey)); !slices.Equal(got, want) {
		t.Errorf("README's status example keys %v, status %v", got, want)
	}
	for k, v := range ex {
		if (kind(v) == null) != (kind(noKey[k]) == null) {
			t.Errorf("README's status example: %s is %s, status without a key says %s", k, v, noKey[k])
		}
	}

	// doctor: a fix only where there is one.
	for _, tt := range []struct {
		name string
		env  map[string]string
	}{
		{"healthy", nil},
		{"key refused", map[string]string{"SMSDESK_API_KEY": "sk_test_notthekey0000000000"}},
	} {
		t.Run("doctor "+tt.name, func(t *testing.T) {
			saved := maps.Clone(e.env)
			defer func() { e.env = saved }()
			maps.Copy(e.env, tt.env)
			_, out, _ := e.run(t, "doctor", "--json")
			var fs []map[string]json.RawMessage
			if err := json.Unmarshal([]byte(out), &fs); err != nil || len(fs) == 0 {
				t.Fatalf("doctor --json: %v\n%s", err, out)
			}
			nulls, fixes := 0, 0
			for _, f := range fs {
				switch kind(f["fix"]) {
				case null:
					nulls++
				case str:
					fixes++
				default:
					t.Errorf("%s's fix is %s; want a fix or null", f["check"], f["fix"])
				}
				if string(f["status"]) == `"fail"` && kind(f["fix"]) != str {
					t.Errorf("%s fails without a fix", f["check"])
				}
			}
			if nulls == 0 || tt.name != "healthy" && fixes == 0 {
				t.Errorf("%d fixes null, %d given; want both kinds:\n%s", nulls, fixes, out)
			}
		})
	}
}
