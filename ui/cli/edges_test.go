package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Edges a careless operator meets: a hand-edited config, a deletion typed in
// a hurry.

// TestCLI_BrokenConfigIsAnInputError: a config file that is not valid (here
// a sender written without quotes) exits 2 — input, nothing sent — naming
// the file and what to write, for every command that reads it.
func TestCLI_BrokenConfigIsAnInputError(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	cfg := filepath.Join(w.dir, "config", "config.toml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("[profiles.default]\nsender = 3000505\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"contacts", "list", "1"}, {"config", "get", "sender"}, {"send-pair", "--to", "09121234567", "--message", "hi", "--yes"}} {
		_, errOut, code := w.run("", args...)
		if code != ExitUsage || !strings.Contains(errOut, cfg) || !strings.Contains(errOut, `sender takes text: write it in quotes`) {
			t.Errorf("%v: exit %d, %q; want 2 naming %s and the quotes", args, code, errOut, cfg)
		}
	}
}

// TestCLI_ContactsDeleteAsks: a deletion cannot be undone, so it asks first
// (the default is no); without a terminal it refuses unless --yes. Nothing
// reaches the service before the answer.
func TestCLI_ContactsDeleteAsks(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	gid := strings.TrimSpace(mustRun(t, w, "groups", "create", "Deletes"))
	id := strings.TrimSpace(mustRun(t, w, "contacts", "add", gid, "09121234567"))
	deletes := func() int { return w.srv.RequestsTo("DELETE", "/contacts/"+id) }
	tests := []struct {
		name   string
		tty    bool
		answer string
		args   []string
		code   int
		want   string
		gone   bool
	}{
		{"no terminal, no --yes", false, "", nil, ExitUsage, "pass --yes", false},
		{"asked, enter", true, "\n", nil, ExitUsage, "nothing was deleted", false},
		{"asked, n", true, "n\n", nil, ExitUsage, "nothing was deleted", false},
		{"asked, y", true, "y\n", nil, 0, "Delete 1 contact(s) (" + id + ") from the service? This cannot be undone.", true},
	}
	for _, tt := range tests {
		w.tty = tt.tty
		_, errOut, code := w.run(tt.answer, append([]string{"contacts", "delete", id}, tt.args...)...)
		if code != tt.code || !strings.Contains(errOut, tt.want) {
			t.Fatalf("%s: exit %d, %q; want %d and %q", tt.name, code, errOut, tt.code, tt.want)
		}
		if n := deletes(); (n > 0) != tt.gone {
			t.Fatalf("%s: %d DELETE requests reached the service", tt.name, n)
		}
	}
}
