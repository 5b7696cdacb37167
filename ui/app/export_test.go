package app

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// Both exports write a header and every row to a new 0600 file, refuse to
// overwrite one that exists, and are audited with the file and rows.
func TestCSVExportsNewFileOnly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	paths := config.PathsIn(filepath.Join(dir, "config"), filepath.Join(dir, "state"))
	s := (&Engine{Paths: paths}).Session(nil)
	tests := []struct {
		name  string
		write func(path string) (int, error)
		want  string
	}{
		{"results", func(path string) (int, error) {
			return s.ExportResults(t.Context(), "s1", []model.SentItem{
				{JournalItem: model.JournalItem{Recipient: "09121234567", Message: "سلام, علی"}, State: model.StateAccepted, MessageID: "m1", Delivery: "delivered"},
				{JournalItem: model.JournalItem{Recipient: "09350000000", Message: "hi"}, State: model.StateRejected, Error: "invalid recipient"}}, path)
		}, "recipient,message,status,message_id,delivery,error\n09121234567,\"سلام, علی\",accepted,m1,delivered,\n" +
			"09350000000,hi,rejected,,,invalid recipient\n"},
		{"contacts", func(path string) (int, error) {
			return s.ExportContacts(t.Context(), "3", []model.Contact{{ID: "7", Name: "Sara", Mobile: "09129998877"}}, path)
		}, "mobile,name,id\n09129998877,Sara,7\n"},
	}
	for _, tt := range tests {
		path := filepath.Join(dir, tt.name+".csv")
		n, err := tt.write(path)
		if err != nil || n != strings.Count(tt.want, "\n")-1 {
			t.Fatalf("%s: wrote %d rows, err %v", tt.name, n, err)
		}
		b, _ := os.ReadFile(path)
		if string(b) != tt.want {
			t.Fatalf("%s: file:\n%s\nwant:\n%s", tt.name, b, tt.want)
		}
		if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s: mode %v, want 0600", tt.name, fi.Mode().Perm())
		}
		if _, err := tt.write(path); err == nil || !strings.Contains(err.Error(), "already exists; choose another file name") {
			t.Fatalf("%s: second write: %v", tt.name, err)
		}
		if b2, _ := os.ReadFile(path); string(b2) != tt.want {
			t.Fatalf("%s: the existing file was changed", tt.name)
		}
	}
	recs := readAudit(t, paths)
	if len(recs) != 4 || recs[0].Action != "export_results" || recs[0].Send != "s1" || recs[0].Rows != 2 || recs[0].File != filepath.Join(dir, "results.csv") ||
		recs[1].Error == "" || recs[2].Action != "export_contacts" || recs[2].GroupID != "3" || recs[2].Rows != 1 || recs[2].File != filepath.Join(dir, "contacts.csv") {
		t.Errorf("audit: %+v", recs)
	}
}

// TestExportNeedsSender: a viewer's export is refused naming the role,
// writes no file and no audit record; a sender's is audited with their name.
func TestExportNeedsSender(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	paths := config.PathsIn(filepath.Join(dir, "config"), filepath.Join(dir, "state"))
	eng := &Engine{Paths: paths}
	viewer := eng.Session(&model.Operator{Name: "vida", Fingerprint: "SHA256:v", Role: model.RoleViewer})
	path := filepath.Join(dir, "c.csv")
	contacts := []model.Contact{{ID: "7", Mobile: "09129998877"}}
	var r *Refusal
	if _, err := viewer.ExportContacts(t.Context(), "3", contacts, path); !errors.As(err, &r) || r.Rule != RuleRole || r.Reason != "exporting needs the sender role (vida is a viewer); nothing was done" {
		t.Errorf("a viewer's export: %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a viewer's export wrote the file: %v", err)
	}
	if recs := readAudit(t, paths); len(recs) != 0 {
		t.Errorf("a refused export was audited: %+v", recs)
	}
	sender := eng.Session(&model.Operator{Name: "sara", Fingerprint: "SHA256:s", Role: model.RoleSender})
	if _, err := sender.ExportContacts(t.Context(), "3", contacts, path); err != nil {
		t.Fatal(err)
	}
	if recs := readAudit(t, paths); len(recs) != 1 || recs[0].Operator == nil || recs[0].Operator.Name != "sara" || recs[0].Rows != 1 {
		t.Errorf("audit: %+v", recs)
	}
}

func readAudit(t *testing.T, p config.Paths) []config.AuditRecord {
	t.Helper()
	out, err := config.ReadAudit(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
