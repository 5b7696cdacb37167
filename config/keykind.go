package config

import "strings"

// KeyKind tells a live key from a test key by its documented prefix:
// "live" for sk_live_…, "test" for sk_test_… (test keys send nothing real),
// "" when the key says neither. It reads only the prefix.
func KeyKind(key string) string {
	key = strings.TrimSpace(key)
	switch {
	case strings.HasPrefix(key, "sk_live_"):
		return "live"
	case strings.HasPrefix(key, "sk_test_"):
		return "test"
	}
	return ""
}
