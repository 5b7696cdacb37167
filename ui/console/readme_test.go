package console

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

// readmeKeyGroups names the columns of KeyMap.FullHelp in the README's table.
var readmeKeyGroups = []string{"Move", "Act", "Screens", "Composer and forms", "Results, history and dialogs"}

// TestREADMEKeyTable keeps the README's key table generated from the one
// KeyMap, like the footer and the ? screen. Refresh it with -update.
func TestREADMEKeyTable(t *testing.T) {
	const path = "../../README.md"
	groups := DefaultKeyMap().FullHelp()
	if len(groups) != len(readmeKeyGroups) {
		t.Fatalf("FullHelp has %d groups, the README names %d", len(groups), len(readmeKeyGroups))
	}
	var b strings.Builder
	b.WriteString("| where | key | does |\n|---|---|---|\n")
	for i, g := range groups {
		for _, k := range g {
			h := k.Help()
			fmt.Fprintf(&b, "| %s | `%s` | %s |\n", readmeKeyGroups[i], h.Key, h.Desc)
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
