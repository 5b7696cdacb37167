// Package ledgertest gives tests a ledger of their own on each backend: a
// SQLite file in t.TempDir(), and a fresh PostgreSQL database made from
// $SMSDESK_TEST_POSTGRES (a superuser's URL; .ci/run starts a private
// cluster and sets it) and dropped when the test ends. Without that
// variable the PostgreSQL cases skip, saying why.
package ledgertest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/model"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
	_ "modernc.org/sqlite"             // the "sqlite" driver
)

// EnvPostgres is the URL of a PostgreSQL server tests may make databases on.
const EnvPostgres = "SMSDESK_TEST_POSTGRES"

// Backend is one backend a test runs against.
type Backend struct {
	Name string // "sqlite", "postgres"
	// Location makes an empty location for a new ledger (Create makes it):
	// a file path in t.TempDir(), or the URL of a new database dropped at
	// the test's end. It skips the test when the backend is not at hand.
	Location func(t testing.TB) string
}

// Backends are SQLite and PostgreSQL: run a test over each with t.Run.
func Backends() []Backend {
	return []Backend{
		{Name: "sqlite", Location: SQLite},
		{Name: "postgres", Location: Postgres},
	}
}

// SQLite is a ledger file's path in a new temp dir (not made yet).
func SQLite(t testing.TB) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "state", "smsdesk.db")
}

// Postgres makes a new empty database on $SMSDESK_TEST_POSTGRES's server
// and returns its URL; the database is dropped (its connections ended)
// when the test ends. Without the variable the test is skipped.
func Postgres(t testing.TB) string {
	t.Helper()
	base := os.Getenv(EnvPostgres)
	if base == "" {
		t.Skipf("no PostgreSQL to test against: set %s to a superuser's URL (postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable); .ci/run starts one", EnvPostgres)
	}
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatalf("%s: %v", EnvPostgres, err)
	}
	t.Cleanup(func() { _ = admin.Close() }) // the test's own pool: nothing written to lose
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "smsdesk_test_" + hex.EncodeToString(b[:])
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("creating a test database on %s: %v", EnvPostgres, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("dropping test database %s: %v", name, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s: %v", EnvPostgres, err)
	}
	u.Path = "/" + name
	return u.String()
}

// Records are send id's records in the ledger at location (a file or a
// postgres:// URL), in order, decoded as they are stored: for tests of
// what a run wrote, record by record.
func Records(t testing.TB, location, id string) []model.JournalRecord {
	t.Helper()
	driver, query := "sqlite", "SELECT body FROM send_records WHERE send_id = ? ORDER BY seq"
	if u, err := url.Parse(location); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		driver, query = "pgx", "SELECT body FROM send_records WHERE send_id = $1 ORDER BY seq"
	}
	db, err := sql.Open(driver, location)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }() // a connection pool used in this function only
	rows, err := db.Query(query, id)
	if err != nil {
		t.Fatalf("reading send %s's records: %v", id, err)
	}
	defer func() { _ = rows.Close() }() // read to its end: rows.Err reported what the read met
	var out []model.JournalRecord
	for rows.Next() {
		var body string
		if err := rows.Scan(&body); err != nil {
			t.Fatal(err)
		}
		rec, err := model.UnmarshalJournalRecord([]byte(body))
		if err != nil {
			t.Fatalf("send %s's record %d: %v", id, len(out)+1, err)
		}
		out = append(out, rec)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// DamageRecord overwrites record seq of send id in the ledger at location
// (a file or a postgres:// URL) with body, as a damaged disk or a hand's
// edit would: for tests of what a damaged ledger refuses.
func DamageRecord(t testing.TB, location, id string, seq int, body string) {
	t.Helper()
	driver, query := "sqlite", "UPDATE send_records SET body = ? WHERE send_id = ? AND seq = ?"
	if u, err := url.Parse(location); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		driver, query = "pgx", "UPDATE send_records SET body = $1 WHERE send_id = $2 AND seq = $3"
	}
	db, err := sql.Open(driver, location)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }() // a connection pool used in this function only
	res, err := db.Exec(query, body, id, seq)
	if err != nil {
		t.Fatalf("damaging record %d of send %s: %v", seq, id, err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("damaging record %d of send %s: no such record", seq, id)
	}
}

// FailRecords makes every record written to the ledger at location (a
// file or a postgres:// URL) from now on fail, as a full disk or a
// database gone read-only would: the record is not written, and its writer
// is told, with "(test)" in the error. It takes no testing.TB: a test's
// fake service may call it from its handler, as a request arrives.
func FailRecords(location string) error { return failRecords(location, false) }

// FailRecordsButTheEnd is FailRecords for every record but a run's end, as
// a write that fails once (a connection the server ended, a disk full for
// a moment) leaves the ledger taking the end that says why the send
// stopped.
func FailRecordsButTheEnd(location string) error { return failRecords(location, true) }

func failRecords(location string, butTheEnd bool) error {
	when := ""
	if butTheEnd {
		when = " WHEN (NEW.type <> '" + model.RecordEnd + "')"
	}
	driver, stmts := "sqlite", []string{
		`CREATE TRIGGER full_disk BEFORE INSERT ON send_records` + when + ` BEGIN SELECT RAISE(ABORT, 'database or disk is full (test)'); END`,
	}
	if u, err := url.Parse(location); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		driver, stmts = "pgx", []string{
			`CREATE FUNCTION full_disk() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'could not extend file: No space left on device (test)'; END $$`,
			`CREATE TRIGGER full_disk BEFORE INSERT ON send_records FOR EACH ROW` + when + ` EXECUTE FUNCTION full_disk()`,
		}
	}
	db, err := sql.Open(driver, location)
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }() // a connection pool used in this function only
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			return err
		}
	}
	return nil
}

// HoldLease puts send id in the ledger at location (a file or a
// postgres:// URL) under a live lease of another run's, as a runner on
// another host holds it: holder on host, process pid, ending in d (by this
// machine's clock, the ledger's in a test).
func HoldLease(t testing.TB, location, id, holder, host string, pid int, d time.Duration) {
	t.Helper()
	driver, query := "sqlite", "UPDATE sends SET lease_token = 'held-elsewhere', lease_holder = ?, lease_host = ?, lease_pid = ?, lease_until = ? WHERE id = ?"
	if u, err := url.Parse(location); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		driver, query = "pgx", "UPDATE sends SET lease_token = 'held-elsewhere', lease_holder = $1, lease_host = $2, lease_pid = $3, lease_until = $4 WHERE id = $5"
	}
	db, err := sql.Open(driver, location)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }() // a connection pool used in this function only
	res, err := db.Exec(query, holder, host, pid, time.Now().Add(d).UnixNano(), id)
	if err != nil {
		t.Fatalf("holding send %s's lease: %v", id, err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("holding send %s's lease: no such send", id)
	}
}
