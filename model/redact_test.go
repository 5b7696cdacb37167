package model

import "testing"

func TestRedact(t *testing.T) {
	const key = "sk_test_4eC39HqLyjWDarjtT1zdp7dc"
	tests := []struct {
		in      string
		secrets []string
		want    string
	}{
		{"key=" + key + " again " + key, []string{key}, "key=[REDACTED] again [REDACTED]"},
		{"Authorization: Bearer abc.def-ghi", nil, "Authorization: Bearer [REDACTED]"},
		{`{"authorization":"bearer xyz"}`, nil, `{"authorization":"bearer [REDACTED]"}`},
		{"map[Authorization:[Bearer tok123]]", nil, "map[Authorization:[Bearer [REDACTED]]]"},
		{"other key sk_test_Unknown12345 leaked", nil, "other key [REDACTED] leaked"},
		{"custom s3cr3t-value here", []string{"s3cr3t-value", ""}, "custom [REDACTED] here"},
		{"abcdef", []string{"abc", "abcdef"}, "[REDACTED]"}, // longest first
		{"nothing to hide", []string{key}, "nothing to hide"},
		{"", []string{key}, ""},
	}
	for _, tt := range tests {
		if got := Redact(tt.in, tt.secrets...); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
