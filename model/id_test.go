package model

import (
	"encoding/json"
	"testing"
)

func TestIDJSON(t *testing.T) {
	tests := []struct {
		in   string
		want ID
		out  string
	}{
		{`42`, "42", `42`},
		{`"42"`, "42", `42`},
		{`12345678901234567890123`, "12345678901234567890123", `12345678901234567890123`}, // past float64
		{`"c_9f8e"`, "c_9f8e", `"c_9f8e"`},
		{`"007"`, "007", `"007"`}, // leading zero stays a string
		{`-3`, "-3", `"-3"`},
		{`1.5`, "1.5", `"1.5"`},
		{`null`, "", `""`},
	}
	for _, tt := range tests {
		var id ID
		if err := json.Unmarshal([]byte(tt.in), &id); err != nil || id != tt.want {
			t.Errorf("Unmarshal(%s) = %q, %v; want %q", tt.in, id, err, tt.want)
			continue
		}
		out, err := json.Marshal(id)
		if err != nil || string(out) != tt.out {
			t.Errorf("Marshal(%q) = %s, %v; want %s", id, out, err, tt.out)
		}
		if id.String() != string(tt.want) || id.IsZero() != (tt.want == "") {
			t.Errorf("ID %q: String %q IsZero %v", id, id.String(), id.IsZero())
		}
	}
	for _, bad := range []string{`true`, `{}`, `[1]`, `"unterminated`} {
		var id ID
		if err := json.Unmarshal([]byte(bad), &id); err == nil {
			t.Errorf("Unmarshal(%s) succeeded with %q", bad, id)
		}
	}
	var c Contact
	if err := json.Unmarshal([]byte(`{"id": 9007199254740993, "name": null, "mobile": "09121234567"}`), &c); err != nil || c.ID != "9007199254740993" || c.Name != "" {
		t.Errorf("Contact = %+v, %v", c, err)
	}
}
