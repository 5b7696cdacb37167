package app

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
	"github.com/smsdesk/smsdesk/model"
)

// dropAll makes a PostgreSQL ledger go: every table dropped.
func dropAll(t *testing.T, location string) {
	t.Helper()
	db, err := sql.Open("pgx", location)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("DROP SCHEMA public CASCADE; CREATE SCHEMA public"); err != nil {
		t.Fatal(err)
	}
}

// ledgerPaths are paths whose ledger is made (ledger init) on the backend.
func ledgerPaths(t *testing.T, b ledgertest.Backend) (config.Paths, string) {
	t.Helper()
	dir := t.TempDir()
	p := config.PathsIn(filepath.Join(dir, "config"), filepath.Join(dir, "state"))
	location := filepath.Join(p.StateDir, ledger.FileName)
	if b.Name == "postgres" {
		location = b.Location(t)
		if _, err := config.Update(p, func(c *config.Config) error { c.Ledger = location; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := InitLedger(context.Background(), p, false, time.Now()); err != nil {
		t.Fatal(err)
	}
	return p, location
}

// TestInspectLedger: what ledger status and doctor show, on each backend.
func TestInspectLedger(t *testing.T) {
	for _, b := range ledgertest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			p, location := ledgerPaths(t, b)
			l, err := ledger.Open(ctx, location)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := l.AddOptOuts(ctx, []model.OptOut{{Mobile: "09121234567", Added: time.Date(2026, 3, 20, 12, 0, 0, 0, time.UTC)}}); err != nil {
				t.Fatal(err)
			}
			l.Close()
			r := InspectLedger(ctx, p)
			st := r.Status
			if r.Err != nil || !r.Opened || st.Backend != ledger.Backend(b.Name) || st.Integrity != "ok" || st.OptOuts != 1 ||
				st.SchemaVersion != ledger.SchemaVersion || st.Size <= 0 || st.ID == "" || st.ID != r.Place.RecordedID {
				t.Fatalf("InspectLedger: %+v", r)
			}
			if strings.Contains(st.Where, ":xxxxx@") || r.Place.Where() != st.Where {
				t.Errorf("where: %q, %q", st.Where, r.Place.Where())
			}
		})
	}
}

// TestBackupLedger: a SQLite backup is a new 0600 file holding the same
// ledger (its id, its opt-outs); an existing file is kept unless replace,
// and then replaced whole; the ledger's own files are never a backup's; a
// PostgreSQL ledger names pg_dump, without a password.
func TestBackupLedger(t *testing.T) {
	for _, b := range ledgertest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			p, location := ledgerPaths(t, b)
			file := filepath.Join(t.TempDir(), "backup.db")
			if b.Name == "postgres" {
				_, err := BackupLedger(ctx, p, file, false)
				var pe *PgDumpError
				if !errors.As(err, &pe) || !strings.Contains(pe.Command, "pg_dump --format=custom --file="+file) ||
					!strings.Contains(pe.Command, "dbname=smsdesk_test_") || strings.Contains(pe.Command, "password") {
					t.Fatalf("backup of a PostgreSQL ledger: %v", err)
				}
				if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
					t.Fatalf("backup of a PostgreSQL ledger wrote %s", file)
				}
				return
			}
			bk, err := BackupLedger(ctx, p, file, false)
			if err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(file)
			if err != nil || fi.Mode().Perm() != 0o600 || bk.Size != fi.Size() || bk.File != file {
				t.Fatalf("backup: %+v, %v, %v", bk, fi, err)
			}
			copied, err := ledger.Open(ctx, file)
			if err != nil {
				t.Fatal(err)
			}
			if copied.ID() != bk.ID || bk.ID != InspectLedger(ctx, p).Status.ID {
				t.Fatalf("the backup is ledger %s, backed up %s", copied.ID(), bk.ID)
			}
			copied.Close()

			if _, err := BackupLedger(ctx, p, file, false); !errors.Is(err, ErrBackupExists) {
				t.Fatalf("a backup over an existing file: %v", err)
			}
			if err := os.WriteFile(file, []byte("yesterday's"), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := BackupLedger(ctx, p, file, true); err != nil {
				t.Fatalf("backup --force: %v", err)
			}
			if head, _ := os.ReadFile(file); !strings.HasPrefix(string(head), "SQLite format 3") {
				t.Fatalf("backup --force left %q", head[:min(20, len(head))])
			}
			if left, _ := filepath.Glob(filepath.Join(filepath.Dir(file), ".*partial")); len(left) > 0 {
				t.Errorf("backup --force left %v", left)
			}
			for _, own := range []string{location, location + "-wal"} {
				if _, err := BackupLedger(ctx, p, own, true); err == nil || !strings.Contains(err.Error(), "the ledger itself") {
					t.Errorf("backup over the ledger's own %s: %v", own, err)
				}
			}
			if _, err := ledger.Open(ctx, location); err != nil {
				t.Fatalf("the ledger after the refused backups: %v", err)
			}
			if _, err := BackupLedger(ctx, p, t.TempDir(), true); err == nil || !strings.Contains(err.Error(), "directory") {
				t.Errorf("backup to a directory: %v", err)
			}
		})
	}
}

// TestInitLedgerStartingOver: ledger init --new where the recorded ledger
// has gone makes an empty one, records its id and writes to its audit
// trail which ledger it replaces.
func TestInitLedgerStartingOver(t *testing.T) {
	for _, b := range ledgertest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			p, location := ledgerPaths(t, b)
			old := InspectLedger(ctx, p).Status.ID
			if b.Name == "postgres" {
				l, err := ledger.Open(ctx, location)
				if err != nil {
					t.Fatal(err)
				}
				l.Close()
				dropAll(t, location)
			} else if err := os.Remove(location); err != nil {
				t.Fatal(err)
			}
			r := InspectLedger(ctx, p)
			if !errors.Is(r.Err, config.ErrLedgerGone) || r.Opened {
				t.Fatalf("InspectLedger of a ledger gone: %+v", r)
			}
			if _, err := InitLedger(ctx, p, false, time.Now()); !errors.Is(err, config.ErrLedgerGone) {
				t.Fatalf("init without --new: %v", err)
			}
			at := time.Date(2026, 3, 20, 12, 0, 0, 0, time.UTC)
			st, err := InitLedger(ctx, p, true, at)
			if err != nil || st.ID == old || st.Audit != 1 {
				t.Fatalf("init --new: %+v, %v", st, err)
			}
			l, err := ledger.Open(ctx, location)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			audit, err := l.ListAudit(ctx, 0, 0)
			if err != nil || len(audit) != 1 || audit[0].Action != "ledger_new" || !audit[0].Time.Equal(at) || !strings.Contains(string(audit[0].Body), old) {
				t.Fatalf("audit: %+v, %v", audit, err)
			}
		})
	}
}

// TestConninfo: the pg_dump command's database argument.
func TestConninfo(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"postgres://smsdesk@db.example.com:5433/sms?sslmode=require", "host=db.example.com port=5433 user=smsdesk dbname=sms sslmode=require"},
		{"postgresql://db/sms", "host=db dbname=sms"},
		{"postgres://db/sms?application_name=my%20app", "host=db dbname=sms application_name='my app'"},
		{"postgres://db/sms?password=x", "host=db dbname=sms"},
	} {
		if got := conninfo(c.in); got != c.want {
			t.Errorf("conninfo(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
