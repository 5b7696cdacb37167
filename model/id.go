// Package model holds smsdesk's domain types and pure logic: mobile numbers, SMS
// parts, CSV files, templates and send plans. It does no I/O beyond io.Reader and
// imports none of smsdesk's other packages.
package model

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// ID is an identifier issued by the service. Deployments answer with JSON numbers
// or strings; ID keeps the exact text either way (never through float64) and is
// otherwise opaque.
type ID string

// String returns the id's text.
func (id ID) String() string { return string(id) }

// IsZero reports whether the id is empty.
func (id ID) IsZero() bool { return id == "" }

// MarshalJSON writes an all-digit id as a JSON number (the documented form) and
// anything else as a JSON string.
func (id ID) MarshalJSON() ([]byte, error) {
	if isJSONInteger(string(id)) {
		return []byte(id), nil
	}
	return json.Marshal(string(id))
}

// UnmarshalJSON accepts a JSON number, a string or null.
func (id *ID) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || bytes.Equal(b, []byte("null")):
		*id = ""
		return nil
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return fmt.Errorf("id: %w", err)
		}
		*id = ID(s)
		return nil
	case b[0] == '-' || (b[0] >= '0' && b[0] <= '9'):
		var n json.Number
		if err := json.Unmarshal(b, &n); err != nil {
			return fmt.Errorf("id: %w", err)
		}
		*id = ID(n.String())
		return nil
	default:
		return fmt.Errorf("id: want a number or a string, got %.20s", b)
	}
}

// isJSONInteger reports whether s is a plain non-negative integer without
// leading zeros, safe to write as a JSON number.
func isJSONInteger(s string) bool {
	if s == "" || len(s) > 1 && s[0] == '0' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
