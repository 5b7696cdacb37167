package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testOperatorKey is a public key for operator tests (its private half was
// thrown away).
const testOperatorKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHJ0EVdyHL3jNdy3VOmrwmO5FivFWp0f2o8s9NFwYgAa sara@laptop"

func TestOperators_AddListRemove(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	_, errOut := e.mustRun(t, 0, "operators", "add", "sara", "--key", testOperatorKey, "--role", "viewer")
	if !strings.Contains(errOut, "sara may sign in as viewer (SHA256:") || !strings.Contains(errOut, "ssh -p 2222 sara@") {
		t.Errorf("add says: %s", errOut)
	}
	pub := filepath.Join(e.dir, "reza.pub")
	other := strings.Replace(testOperatorKey, "IHJ0", "IHJ1", 1)
	other = strings.Replace(other, "sara@laptop", "reza\x1b[31m", 1) // a comment with an escape
	if err := os.WriteFile(pub, []byte(other+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e.mustRun(t, 0, "operators", "add", "reza", "--key-file", pub)
	out, _ := e.mustRun(t, 0, "operators", "list", "--json")
	var list []operatorJSON
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].Name != "reza" || list[0].Role != "sender" || list[1].Role != "viewer" ||
		!strings.HasPrefix(list[1].Fingerprint, "SHA256:") || list[1].Comment != "sara@laptop" || list[1].Added == nil {
		t.Errorf("list --json: %s", out)
	}
	table, _ := e.mustRun(t, 0, "operators", "list")
	if strings.Contains(table, "\x1b") || !strings.Contains(table, "reza") {
		t.Errorf("list: an escape reached the terminal, or reza is missing:\n%q", table)
	}
	// the same key twice, a bad role, no key, an unknown name: usage errors
	e.mustRun(t, ExitUsage, "operators", "add", "ali", "--key", testOperatorKey)
	e.mustRun(t, ExitUsage, "operators", "add", "ali", "--key", testOperatorKey, "--role", "root")
	e.mustRun(t, ExitUsage, "operators", "add", "ali")
	e.mustRun(t, ExitUsage, "operators", "remove", "nobody")
	e.mustRun(t, ExitUsage, "operators", "role", "nobody", "admin")
	e.mustRun(t, ExitUsage, "operators", "role", "reza", "root")
	if _, errOut := e.mustRun(t, 0, "operators", "role", "reza", "admin"); !strings.Contains(errOut, "reza's role is now admin") {
		t.Errorf("role says: %s", errOut)
	}
	if out, _ := e.mustRun(t, 0, "operators", "list", "--json"); !strings.Contains(out, `"role": "admin"`) {
		t.Errorf("after operators role: %s", out)
	}
	e.mustRun(t, 0, "operators", "remove", "sara")
	out, _ = e.mustRun(t, 0, "operators", "list", "--json")
	if strings.Contains(out, "sara") {
		t.Errorf("sara still listed: %s", out)
	}
	file := filepath.Join(e.dir, "config", "operators.toml")
	data, _ := os.ReadFile(file)
	if strings.Contains(string(data), e.sb.Key()) {
		t.Error("the API key is in the operators file")
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("operators file mode: %v %v", fi.Mode(), err)
	}
}
