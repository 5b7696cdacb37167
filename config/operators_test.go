package config

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"os"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"

	"github.com/smsdesk/smsdesk/model"
)

// testPublicKey is a fresh ed25519 public key in authorized_keys form.
func testPublicKey(t *testing.T, comment string) (string, gossh.PublicKey) {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k, err := gossh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(gossh.MarshalAuthorizedKey(k))) + " " + comment, k
}

func TestOperators_AddListFindRemove(t *testing.T) {
	p := Paths{ConfigDir: t.TempDir()}
	line, k := testPublicKey(t, "sara@laptop")
	e, err := AddOperator(p, OperatorEntry{Name: "sara", Key: line, Role: model.RoleViewer})
	if err != nil {
		t.Fatal(err)
	}
	if e.Fingerprint() != gossh.FingerprintSHA256(k) || e.Comment() != "sara@laptop" {
		t.Errorf("fingerprint %q comment %q", e.Fingerprint(), e.Comment())
	}
	fi, err := os.Stat(p.OperatorsFile())
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("operators file: %v mode %v, want 0600", err, fi.Mode().Perm())
	}
	if _, err := AddOperator(p, OperatorEntry{Name: "sara", Key: line, Role: model.RoleAdmin}); !errors.Is(err, ErrOperatorExists) {
		t.Errorf("same name again: %v", err)
	}
	if _, err := AddOperator(p, OperatorEntry{Name: "reza", Key: line, Role: model.RoleAdmin}); !errors.Is(err, ErrOperatorExists) || !strings.Contains(err.Error(), "sara") {
		t.Errorf("sara's key for reza: %v", err)
	}
	other, k2 := testPublicKey(t, "")
	if _, err := AddOperator(p, OperatorEntry{Name: "reza", Key: other, Role: model.RoleAdmin}); err != nil {
		t.Fatal(err)
	}
	list, err := ReadOperators(p)
	if err != nil || len(list) != 2 || list[0].Name != "reza" || list[1].Name != "sara" || list[1].Role != model.RoleViewer {
		t.Fatalf("list: %+v %v", list, err)
	}
	if got, ok := FindOperator(list, k2); !ok || got.Name != "reza" || got.Operator().Fingerprint != gossh.FingerprintSHA256(k2) {
		t.Errorf("find reza's key: %+v %v", got, ok)
	}
	_, stranger := testPublicKey(t, "")
	if _, ok := FindOperator(list, stranger); ok {
		t.Error("an unknown key was found")
	}
	if err := os.Chmod(p.OperatorsFile(), 0o622); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadOperators(p); err == nil || !strings.Contains(err.Error(), "writable by others") {
		t.Errorf("a file others can write: %v", err)
	}
	if err := os.Chmod(p.OperatorsFile(), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := SetOperatorRole(p, "sara", model.RoleAdmin); err != nil {
		t.Fatal(err)
	}
	if list, _ := ReadOperators(p); list[len(list)-1].Name != "sara" || list[len(list)-1].Role != model.RoleAdmin {
		t.Errorf("after a role change: %+v", list)
	}
	if err := SetOperatorRole(p, "nobody", model.RoleAdmin); !errors.Is(err, ErrNoSuchOperator) {
		t.Errorf("the role of nobody: %v", err)
	}
	if err := SetOperatorRole(p, "sara", "root"); err == nil {
		t.Error("role root accepted")
	}
	if err := RemoveOperator(p, "sara"); err != nil {
		t.Fatal(err)
	}
	if err := RemoveOperator(p, "sara"); !errors.Is(err, ErrNoSuchOperator) {
		t.Errorf("remove twice: %v", err)
	}
	if list, _ := ReadOperators(p); len(list) != 1 {
		t.Errorf("after remove: %+v", list)
	}
}

func TestOperators_Refusals(t *testing.T) {
	p := Paths{ConfigDir: t.TempDir()}
	line, _ := testPublicKey(t, "")
	for _, tc := range []struct {
		name, key string
		role      model.Role
		want      string
	}{
		{"", line, model.RoleSender, "needs a name"},
		{"-x", line, model.RoleSender, "letters, digits"},
		{"a b", line, model.RoleSender, "letters, digits"},
		{"sara", line, "root", "choose viewer, sender or admin"},
		{"sara", "", model.RoleSender, "no public key"},
		{"sara", "ssh-ed25519 notbase64", model.RoleSender, "not an SSH public key"},
		{"sara", "-----BEGIN OPENSSH PRIVATE KEY-----", model.RoleSender, "private key"},
		{"sara", `command="sh" ` + line, model.RoleSender, "options"},
		{"sara", line + "\n" + line, model.RoleSender, "more than one key"},
	} {
		if _, err := AddOperator(p, OperatorEntry{Name: tc.name, Key: tc.key, Role: tc.role}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q %q %q: %v, want %q", tc.name, tc.key, tc.role, err, tc.want)
		}
	}
	if _, err := os.Stat(p.OperatorsFile()); err == nil {
		t.Error("refusals wrote the operators file")
	}
}
