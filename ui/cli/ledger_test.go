package cli

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
	"github.com/smsdesk/smsdesk/model"
)

// ledgerWorld is a CLI world whose ledger is on the backend: the state
// directory's smsdesk.db, or a fresh PostgreSQL database SMSDESK_LEDGER
// names. It returns the ledger's location.
func ledgerWorld(t *testing.T, b ledgertest.Backend) (*cliWorld, string) {
	t.Helper()
	w := newCLIWorld(t)
	if b.Name == "postgres" {
		url := b.Location(t)
		w.env["SMSDESK_LEDGER"] = url
		return w, url
	}
	return w, filepath.Join(w.env["SMSDESK_STATE_DIR"], ledger.FileName)
}

// goneLedger makes the ledger at location go, as a deleted file or a
// database emptied would.
func goneLedger(t *testing.T, location string) {
	t.Helper()
	if !ledger.IsPostgres(location) {
		for _, suffix := range []string{"", "-wal", "-shm"} {
			os.Remove(location + suffix)
		}
		return
	}
	db, err := sql.Open("pgx", location)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("DROP SCHEMA public CASCADE; CREATE SCHEMA public"); err != nil {
		t.Fatal(err)
	}
}

type ledgerStatusOut struct {
	Backend       string
	Where         string
	Source        string
	LedgerID      *string `json:"ledger_id"`
	RecordedID    *string `json:"recorded_id"`
	SchemaVersion *int    `json:"schema_version"`
	Counts        *struct {
		Sends, Records, OptOuts, Audit int
		OnceIDs                        int `json:"once_ids"`
	}
	SizeBytes *int64 `json:"size_bytes"`
	Integrity *string
	Error     *string
}

func ledgerStatus(t *testing.T, w *cliWorld) (ledgerStatusOut, string, int) {
	t.Helper()
	out, errOut, code := w.run("", "ledger", "status", "--json")
	var st ledgerStatusOut
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("ledger status --json: %v\n%s\n%s", err, out, errOut)
	}
	return st, errOut, code
}

// doctorLedgerLine is doctor --json's ledger check.
func doctorLedgerLine(t *testing.T, w *cliWorld) (status, detail, fix string) {
	t.Helper()
	out, errOut, _ := w.run("", "doctor", "--json")
	var fs []struct{ Check, Status, Detail, Fix string }
	if err := json.Unmarshal([]byte(out), &fs); err != nil {
		t.Fatalf("doctor --json: %v\n%s\n%s", err, out, errOut)
	}
	for _, f := range fs {
		if f.Check == "ledger" {
			return f.Status, f.Detail, f.Fix
		}
	}
	t.Fatalf("doctor has no ledger check:\n%s", out)
	return
}

// TestLedgerCommands: ledger status, backup and init, and doctor's ledger
// line, on each backend, through a ledger made, gone (refused, with the
// ways on) and made anew with init --new.
func TestLedgerCommands(t *testing.T) {
	for _, b := range ledgertest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			w, location := ledgerWorld(t, b)
			out, _, code := w.run("", "ledger", "status")
			if code != 0 || !strings.Contains(out, "none yet") {
				t.Fatalf("ledger status before any: exit %d\n%s", code, out)
			}
			if _, errOut, code := w.run("", "ledger", "init"); code != 0 || !strings.Contains(errOut, "a new, empty ledger") {
				t.Fatalf("ledger init: exit %d\n%s", code, errOut)
			}

			st, errOut, code := ledgerStatus(t, w)
			if code != 0 || st.Backend != b.Name || st.Where != ledger.Redact(location) || st.LedgerID == nil || st.RecordedID == nil ||
				*st.LedgerID != *st.RecordedID || st.SchemaVersion == nil || *st.SchemaVersion != ledger.SchemaVersion ||
				st.Counts == nil || st.SizeBytes == nil || *st.SizeBytes <= 0 || st.Integrity == nil || *st.Integrity != "ok" || st.Error != nil {
				t.Fatalf("ledger status --json: exit %d %+v\n%s", code, st, errOut)
			}
			id := *st.LedgerID
			out, _, _ = w.run("", "ledger", "status")
			for _, want := range []string{b.Name, id + " (recorded in config.toml)", fmt.Sprintf("version %d", ledger.SchemaVersion), "0 sends (0 records), 0 opt-outs, 0 once-only ids, 0 audit records", "integrity  ok"} {
				if !strings.Contains(out, want) {
					t.Errorf("ledger status lacks %q:\n%s", want, out)
				}
			}
			if s, d, _ := doctorLedgerLine(t, w); s != "ok" || !strings.Contains(d, b.Name+" ") || !strings.Contains(d, fmt.Sprintf("schema %d, integrity ok, ledger ", ledger.SchemaVersion)+id) {
				t.Errorf("doctor's ledger line: %s %s", s, d)
			}

			backup := filepath.Join(t.TempDir(), "ledger.bak")
			out, errOut, code = w.run("", "ledger", "backup", backup)
			if b.Name == "postgres" {
				if code != ExitUsage || !strings.HasPrefix(out, "(umask 077 && pg_dump --format=custom --file="+backup+" 'host=") || !strings.Contains(errOut, "PGPASSWORD") {
					t.Errorf("ledger backup of PostgreSQL: exit %d\n%s\n%s", code, out, errOut)
				}
			} else {
				fi, err := os.Stat(backup)
				if code != 0 || err != nil || fi.Mode().Perm() != 0o600 || !strings.Contains(errOut, "backed up to "+backup) {
					t.Fatalf("ledger backup: exit %d, %v, %v\n%s", code, fi, err, errOut)
				}
				if _, errOut, code := w.run("", "ledger", "backup", backup); code != ExitUsage || !strings.Contains(errOut, "--force") {
					t.Errorf("ledger backup over a file: exit %d\n%s", code, errOut)
				}
				if _, errOut, code := w.run("", "ledger", "backup", backup, "--force"); code != 0 {
					t.Errorf("ledger backup --force: exit %d\n%s", code, errOut)
				}
			}

			goneLedger(t, location)
			_, errOut, code = w.run("", "ledger", "status")
			if code != ExitUsage || !strings.Contains(errOut, "has gone (config.toml records ledger "+id+"); nothing was sent") || !strings.Contains(errOut, "smsdesk ledger init --new") {
				t.Errorf("ledger status, gone: exit %d\n%s", code, errOut)
			}
			st, errOut, _ = ledgerStatus(t, w)
			if st.LedgerID != nil || st.RecordedID == nil || *st.RecordedID != id || st.Error == nil || !strings.Contains(errOut, `"code": "ledger"`) {
				t.Errorf("ledger status --json, gone: %+v\n%s", st, errOut)
			}
			if s, d, fix := doctorLedgerLine(t, w); s != "fail" || !strings.Contains(d, "has gone") || !strings.Contains(fix, "smsdesk ledger init --new") {
				t.Errorf("doctor, gone: %s %s → %s", s, d, fix)
			}
			if _, errOut, code := w.run("", "ledger", "init"); code != ExitUsage || !strings.Contains(errOut, "has gone") {
				t.Errorf("ledger init (no --new), gone: exit %d\n%s", code, errOut)
			}
			if _, errOut, code := w.run("", "ledger", "init", "--new"); code != ExitUsage || !strings.Contains(errOut, "--yes") {
				t.Errorf("ledger init --new without a terminal: exit %d\n%s", code, errOut)
			}
			w.tty = true
			if _, errOut, code := w.run("n\n", "ledger", "init", "--new"); code != ExitUsage || !strings.Contains(errOut, "Start a new, empty one there?") || !strings.Contains(errOut, "no ledger was made") {
				t.Errorf("ledger init --new, answered no: exit %d\n%s", code, errOut)
			}
			if _, err := ledger.Open(context.Background(), location); err == nil {
				t.Fatal("a ledger was made without a yes")
			}
			if _, errOut, code := w.run("y\n", "ledger", "init", "--new"); code != 0 || !strings.Contains(errOut, "it replaces ledger "+id) {
				t.Errorf("ledger init --new, answered yes: exit %d\n%s", code, errOut)
			}
			w.tty = false
			st, _, code = ledgerStatus(t, w)
			if code != 0 || st.LedgerID == nil || *st.LedgerID == id || *st.RecordedID != *st.LedgerID || st.Counts.Audit != 1 {
				t.Errorf("ledger status after init --new: exit %d %+v", code, st)
			}
			if _, errOut, code := w.run("", "ledger", "init", "--new", "--yes"); code != ExitUsage || !strings.Contains(errOut, "already") {
				t.Errorf("ledger init --new over a ledger: exit %d\n%s", code, errOut)
			}
		})
	}
}

// TestLedgerOtherIsRefused: a ledger whose id is not config.toml's (a
// backup of another ledger copied in) is refused by status and doctor,
// naming both ids and config set ledger, which takes it on.
func TestLedgerOtherIsRefused(t *testing.T) {
	w, location := ledgerWorld(t, ledgertest.Backends()[0])
	mustRun(t, w, "ledger", "init")
	mine, _, _ := ledgerStatus(t, w)
	goneLedger(t, location)
	other, err := ledger.Create(context.Background(), location)
	if err != nil {
		t.Fatal(err)
	}
	other.Close()
	_, errOut, code := w.run("", "ledger", "status")
	if code != ExitUsage || !strings.Contains(errOut, "is ledger "+other.ID()+", but config.toml records ledger "+*mine.LedgerID) {
		t.Errorf("ledger status of another ledger: exit %d\n%s", code, errOut)
	}
	if s, d, fix := doctorLedgerLine(t, w); s != "fail" || !strings.Contains(d, other.ID()) || !strings.Contains(fix, "smsdesk config set ledger "+location) {
		t.Errorf("doctor, another ledger: %s %s → %s", s, d, fix)
	}
	if _, errOut, code := w.run("", "config", "set", "ledger", location); code != 0 || !strings.Contains(errOut, "ledger "+other.ID()) {
		t.Errorf("config set ledger: exit %d\n%s", code, errOut)
	}
	if st, _, code := ledgerStatus(t, w); code != 0 || *st.RecordedID != other.ID() {
		t.Errorf("after config set ledger: exit %d %+v", code, st)
	}
}

// TestConfigLedger: config set ledger refuses a URL holding a password
// (changing nothing, never printing it) and points every profile at the
// ledger given; config get ledger shows it without a password, and unset
// goes back to the state directory's.
func TestConfigLedger(t *testing.T) {
	for _, b := range ledgertest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			w := newCLIWorld(t)
			cfg := filepath.Join(w.env["SMSDESK_CONFIG_DIR"], "config.toml")
			mustRun(t, w, "config", "set", "sender", "3000505")
			before, _ := os.ReadFile(cfg)
			for _, url := range []string{"postgres://smsdesk:s3cret-pw@db.example.com/smsdesk", "postgresql://smsdesk@db.example.com/smsdesk?password=s3cret-pw"} {
				out, errOut, code := w.run("", "config", "set", "ledger", url)
				if code != ExitUsage || strings.Contains(out+errOut, "s3cret") || !strings.Contains(errOut, "PGPASSWORD") || !strings.Contains(errOut, ".pgpass") {
					t.Errorf("config set ledger %s: exit %d\n%s%s", url, code, out, errOut)
				}
			}
			if after, _ := os.ReadFile(cfg); string(after) != string(before) {
				t.Fatalf("a refused config set ledger changed config.toml:\n%s", after)
			}

			location := filepath.Join(t.TempDir(), "team.db")
			if b.Name == "postgres" {
				location = b.Location(t)
			}
			made, err := ledger.Create(context.Background(), location)
			if err != nil {
				t.Fatal(err)
			}
			made.Close()
			_, errOut, code := w.run("", "config", "set", "ledger", location)
			if code != 0 || !strings.Contains(errOut, "✓ ledger = ") || !strings.Contains(errOut, "every profile; ledger "+made.ID()) {
				t.Fatalf("config set ledger: exit %d\n%s", code, errOut)
			}
			out, errOut, _ := w.run("", "config", "get", "ledger")
			// For people, a URL's user name is redacted too, as everywhere.
			if strings.TrimSpace(out) != model.RedactURLs(location) || !strings.Contains(errOut, "config file") {
				t.Errorf("config get ledger: %q %q", out, errOut)
			}
			for _, profile := range []string{"", "other"} {
				args := []string{"ledger", "status", "--json"}
				if profile != "" {
					mustRun(t, w, "profiles", "add", profile, "--base-url", w.baseURL)
					args = append([]string{"--profile", profile}, args...)
				}
				out, _, code := w.run("", args...)
				if code != 0 || !strings.Contains(out, made.ID()) {
					t.Errorf("%v: exit %d\n%s", args, code, out)
				}
			}
			out, _, _ = w.run("", "config", "get", "--json")
			if !strings.Contains(out, `"setting": "ledger"`) {
				t.Errorf("config get --json has no ledger:\n%s", out)
			}
			if _, errOut, code := w.run("", "config", "unset", "ledger"); code != 0 || !strings.Contains(errOut, "stays where it is") {
				t.Errorf("config unset ledger: exit %d\n%s", code, errOut)
			}
			out, _, _ = w.run("", "config", "get", "ledger")
			if strings.TrimSpace(out) != filepath.Join(w.env["SMSDESK_STATE_DIR"], ledger.FileName) {
				t.Errorf("config get ledger after unset: %q", out)
			}
		})
	}
}

// TestConfigGetLedgerRedacts: a config.toml written by hand with a password
// in the ledger's URL never shows it: config get redacts it, and the
// ledger is refused.
func TestConfigGetLedgerRedacts(t *testing.T) {
	w := newCLIWorld(t)
	cfg := filepath.Join(w.env["SMSDESK_CONFIG_DIR"], "config.toml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("ledger = \"postgres://smsdesk:s3cret-pw@127.0.0.1:1/smsdesk\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"config", "get", "ledger"}, {"config", "get", "--json"}, {"ledger", "status"}, {"ledger", "status", "--json"}, {"doctor"}} {
		out, errOut, _ := w.run("", args...)
		if strings.Contains(out+errOut, "s3cret") || !strings.Contains(out+errOut, "127.0.0.1:1") {
			t.Errorf("%v printed the password, or no ledger:\n%s%s", args, out, errOut)
		}
	}
	if _, errOut, code := w.run("", "ledger", "status"); code == 0 || !strings.Contains(errOut, "PGPASSWORD") {
		t.Errorf("ledger status with a password in config.toml: exit %d\n%s", code, errOut)
	}
}

// TestSendRefusedByAGoneLedger: with the recorded ledger gone, a send is
// refused (exit 2, error.code ledger) before any request to the service,
// and no ledger is made in its place.
func TestSendRefusedByAGoneLedger(t *testing.T) {
	for _, b := range ledgertest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			w, location := ledgerWorld(t, b)
			mustRun(t, w, "ledger", "init")
			send := []string{"send-pair", "--to", "09121234567", "--message", "hi", "--sender", "3000505", "--yes", "--json"}
			mustRun(t, w, send...)
			goneLedger(t, location)
			requests := w.srv.Requests()
			_, errOut, code := w.run("", send...)
			if code != ExitUsage || !strings.Contains(errOut, `"code": "ledger"`) || !strings.Contains(errOut, "has gone") {
				t.Errorf("a send with the ledger gone: exit %d\n%s", code, errOut)
			}
			if n := strings.Count(errOut, "nothing was sent"); n != 1 {
				t.Errorf("the refusal says %d times that nothing was sent, want once:\n%s", n, errOut)
			}
			if n := w.srv.Requests() - requests; n != 0 || len(w.srv.Sent()) != 1 {
				t.Errorf("a send with the ledger gone made %d requests; the sandbox has %d messages", n, len(w.srv.Sent()))
			}
			if _, err := ledger.Open(context.Background(), location); err == nil {
				t.Error("the refused send made a new ledger")
			}
		})
	}
}

// TestSendRefusedByALedgerThatCannotBeOpened: a ledger this process may
// not open (its mode, its owner, a path through a file) refuses a send as
// a ledger's refusal (exit 2, error.code ledger), before any request, and
// says so once; it exited 1 as "service" (seen by hand: chmod 000
// smsdesk.db, then send-pair as its owner's other user).
func TestSendRefusedByALedgerThatCannotBeOpened(t *testing.T) {
	w := newCLIWorld(t)
	notADir := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(notADir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	w.env["SMSDESK_LEDGER"] = filepath.Join(notADir, ledger.FileName)
	requests := w.srv.Requests()
	_, errOut, code := w.run("", "send-pair", "--to", "09121234567", "--message", "hi", "--sender", "3000505", "--yes", "--json")
	if code != ExitUsage || !strings.Contains(errOut, `"code": "ledger"`) || !strings.Contains(errOut, "cannot be opened") {
		t.Errorf("a send with a ledger that cannot be opened: exit %d\n%s", code, errOut)
	}
	if n := strings.Count(errOut, "nothing was sent"); n != 1 {
		t.Errorf("the refusal says %d times that nothing was sent, want once:\n%s", n, errOut)
	}
	if n := w.srv.Requests() - requests; n != 0 || len(w.srv.Sent()) != 0 {
		t.Errorf("the refused send made %d requests; the sandbox has %d messages", n, len(w.srv.Sent()))
	}
}

// damageTable overwrites the first page of a SQLite ledger's table, as a
// bad disk would: the ledger opens, and reading that table fails.
func damageTable(t *testing.T, location, table string) {
	t.Helper()
	db, err := sql.Open("sqlite", location)
	if err != nil {
		t.Fatal(err)
	}
	var root, pageSize int64
	err = db.QueryRow("SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = ?", table).Scan(&root)
	if err == nil {
		err = db.QueryRow("PRAGMA page_size").Scan(&pageSize)
	}
	if err == nil {
		_, err = db.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
	}
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(location, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt([]byte(strings.Repeat("junk\xff\x00", int(pageSize)/6)), (root-1)*pageSize); err != nil {
		t.Fatal(err)
	}
}

// TestLedgerStatusOfADamagedTable: a ledger whose opt-out table does not
// read is shown damaged, with its counts not known (null), never as
// zeros: it showed '0 opt-outs, 0 once-only ids, 0 audit records', size
// 0 B and an empty integrity line (seen by hand, a page overwritten).
func TestLedgerStatusOfADamagedTable(t *testing.T) {
	w, location := ledgerWorld(t, ledgertest.Backend{Name: "sqlite"})
	mustRun(t, w, "ledger", "init")
	mustRun(t, w, "optout", "add", "09121110001")
	damageTable(t, location, "optouts")
	st, errOut, code := ledgerStatus(t, w)
	if code != ExitUsage || st.Error == nil || !strings.Contains(*st.Error, "is damaged") {
		t.Fatalf("ledger status of a damaged ledger: exit %d, %+v\n%s", code, st, errOut)
	}
	if st.Counts != nil || st.SizeBytes == nil || *st.SizeBytes == 0 {
		t.Errorf("counts %+v, size %v: want counts not known (null) and the file's size", st.Counts, st.SizeBytes)
	}
	out, _, _ := w.run("", "ledger", "status")
	for _, want := range []string{"holds      not known", "integrity  "} {
		if !strings.Contains(out, want) {
			t.Errorf("ledger status does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "0 opt-outs") {
		t.Errorf("ledger status counts a table it cannot read:\n%s", out)
	}
}
