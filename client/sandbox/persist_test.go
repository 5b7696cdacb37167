package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/model/eventually"
)

func TestPersistenceRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sandbox.json")
	s, err := New(Options{DataFile: path, Seed: true})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, srv: s}
	base, err := s.Start("")
	if err != nil {
		t.Fatal(err)
	}
	e.base, e.key = base, s.Key()
	gid := e.mkGroup("persisted")
	keep := e.mkContact(gid, "09121234567")
	gone := e.mkContact(gid, "09351234567")
	e.do("DELETE", fmt.Sprintf("/contacts/%d", gone), nil).data(t, 200)
	e.do("POST", "/sms/send-pair", sendBody("3000505", item("09121234567", "سلام"))).data(t, 200)
	_, _, seeded := e.walk(1, "")
	before := s.Sent()
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}

	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("data file mode %v, want 0600", perm)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*.tmp")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}

	e2 := setup(t, Options{DataFile: path, Seed: true})
	ids, _, _ := e2.walk(gid, "")
	if fmt.Sprint(ids) != fmt.Sprint([]int{keep}) {
		t.Errorf("group %d after reload: %v, want [%d]", gid, ids, keep)
	}
	// Seed is not applied twice: the seeded groups keep their sizes.
	if _, _, total := e2.walk(1, ""); total != seeded {
		t.Errorf("seed group 1: %d contacts after reload, %d before", total, seeded)
	}
	after := e2.srv.Sent()
	if len(after) != len(before) || after[0].MessageID != before[0].MessageID || after[0].Message != "سلام" ||
		!after[0].At.Equal(before[0].At) {
		t.Errorf("Sent after reload %+v, before %+v", after, before)
	}
	// Ids continue rather than restart.
	if g := e2.mkGroup("next"); g <= gid {
		t.Errorf("new group id %d after reload, not after %d", g, gid)
	}
	d := e2.do("POST", "/sms/send-pair", sendBody("3000505", item("09121234567", "again"))).data(t, 200)
	if id := d["items"].([]any)[0].(map[string]any)["message_id"]; id == before[0].MessageID {
		t.Errorf("message id %v reused", id)
	}
	e2.do("GET", "/sms/"+before[0].MessageID+"/status", nil).data(t, 200)
}

func TestPersistenceSavesWithoutClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.json")
	e := setup(t, Options{DataFile: path})
	e.mkGroup("soon")
	eventually.True(t, waitLimit, func() bool {
		b, _ := os.ReadFile(path)
		return strings.Contains(string(b), `"soon"`)
	}, func() string { return "the change was not written without Close" })
}

func TestDataFileErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name, content string
	}{
		{"truncated.json", `{"version":1,"groups":[`},
		{"not-json.json", "hello"},
		{"wrong-version.json", `{"version":7}`},
		{"orphan.json", `{"version":1,"contacts":[{"id":1,"group_id":3,"mobile":"09121234567"}]}`},
		{"dup-group.json", `{"version":1,"groups":[{"id":1,"name":"a"},{"id":1,"name":"b"}]}`},
		{"trailing.json", `{"version":1} {}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := write(tt.name, tt.content)
			_, err := New(Options{DataFile: p})
			if err == nil || !strings.Contains(err.Error(), p) {
				t.Fatalf("New with %s: %v; want an error naming the file", tt.name, err)
			}
			if b, _ := os.ReadFile(p); string(b) != tt.content {
				t.Error("a corrupt file was overwritten")
			}
		})
	}
	// An empty file is a fresh store.
	p := write("empty.json", "")
	e := setup(t, Options{DataFile: p})
	if id := e.mkGroup("first"); id != 1 {
		t.Errorf("first group in an empty file: id %d", id)
	}
	// A directory that does not exist is reported when writing, naming the file.
	if _, err := New(Options{DataFile: filepath.Join(dir, "no", "such", "x.json"), Seed: true}); err == nil ||
		!strings.Contains(err.Error(), "x.json") {
		t.Errorf("unwritable data file: %v", err)
	}
}
