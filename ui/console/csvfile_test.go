package console

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/model"
)

// Both exports write a header and every row to a new 0600 file and refuse
// to overwrite one that exists.
func TestCSVExportsNewFileOnly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		name  string
		write func(path string) (int, error)
		want  string
	}{
		{"results", func(path string) (int, error) {
			return writeResultsCSV(path, []model.SentItem{
				{JournalItem: model.JournalItem{Recipient: "09121234567", Message: "سلام, علی"}, State: model.StateAccepted, MessageID: "m1", Delivery: "delivered"},
				{JournalItem: model.JournalItem{Recipient: "09350000000", Message: "hi"}, State: model.StateRejected, Error: "invalid recipient"}})
		}, "recipient,message,status,message_id,delivery,error\n09121234567,\"سلام, علی\",accepted,m1,delivered,\n" +
			"09350000000,hi,rejected,,,invalid recipient\n"},
		{"contacts", func(path string) (int, error) {
			return writeContactsCSV(path, []model.Contact{{ID: "7", Name: "Sara", Mobile: "09129998877"}})
		}, "mobile,name,id\n09129998877,Sara,7\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name+".csv")
			n, err := tt.write(path)
			if err != nil || n != strings.Count(tt.want, "\n")-1 {
				t.Fatalf("wrote %d rows, err %v", n, err)
			}
			b, _ := os.ReadFile(path)
			if string(b) != tt.want {
				t.Fatalf("file:\n%s\nwant:\n%s", b, tt.want)
			}
			if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
				t.Fatalf("mode %v, want 0600", fi.Mode().Perm())
			}
			if _, err := tt.write(path); err == nil || !strings.Contains(err.Error(), "already exists; choose another file name") {
				t.Fatalf("second write: %v", err)
			}
			if b2, _ := os.ReadFile(path); string(b2) != tt.want {
				t.Fatal("the existing file was changed")
			}
		})
	}
}
