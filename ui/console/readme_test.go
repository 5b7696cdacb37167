package console

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestREADMEKeyTable keeps the README's key table generated from the one
// KeyMap, like the footer and the ? screen. Refresh it with -update.
func TestREADMEKeyTable(t *testing.T) {
	t.Parallel()
	const path = "../../README.md"
	var b strings.Builder
	b.WriteString("| where | key | does |\n|---|---|---|\n")
	for _, s := range DefaultKeyMap().Sections() {
		for _, k := range s.Bindings {
			h := k.Help()
			fmt.Fprintf(&b, "| %s | `%s` | %s |\n", s.Title, h.Key, h.Desc)
		}
	}
	want := b.String()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	start := strings.Index(readme, "| where | key | does |")
	if start < 0 {
		t.Fatal("README.md has no key table (| where | key | does |)")
	}
	end := start + strings.Index(readme[start:], "\n\n") + 1
	if readme[start:end] == want {
		return
	}
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.WriteFile(path, []byte(readme[:start]+want+readme[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md's key table is not the KeyMap's; run `go test ./ui/console -run TestREADMEKeyTable -update`.\nwant:\n%s", want)
}
