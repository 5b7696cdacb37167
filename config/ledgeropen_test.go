package config

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
)

// ledgerPlaces are the ledgers the tests below run against: SQLite at the
// state directory's default place, PostgreSQL named by config.toml's
// ledger (a fresh database; skipped without SMSDESK_TEST_POSTGRES).
func ledgerPlaces() []struct {
	name  string
	paths func(t *testing.T) (Paths, string)
} {
	return []struct {
		name  string
		paths func(t *testing.T) (Paths, string)
	}{
		{"sqlite", func(t *testing.T) (Paths, string) {
			p := testPaths(t)
			return p, filepath.Join(p.StateDir, ledger.FileName)
		}},
		{"postgres", func(t *testing.T) (Paths, string) {
			url := ledgertest.Postgres(t)
			p := testPaths(t)
			if _, err := Update(p, func(c *Config) error { c.Ledger = url; return nil }); err != nil {
				t.Fatal(err)
			}
			return p, url
		}},
	}
}

// removeLedger makes the ledger at location go: the SQLite file and its
// companions deleted, or every table of the PostgreSQL database dropped.
func removeLedger(t *testing.T, location string) {
	t.Helper()
	if !ledger.IsPostgres(location) {
		for _, suffix := range []string{"", "-wal", "-shm"} {
			if err := os.Remove(location + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
				t.Fatal(err)
			}
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

func recordedID(t *testing.T, p Paths) string {
	t.Helper()
	c, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	return c.LedgerID
}

// TestLedgerGoneIsRefused: the id of the ledger made is recorded in
// config.toml; once that ledger has gone, opening it is refused naming the
// recorded id and the ways on, and nothing is made in its place until
// `ledger init --new` (CreateLedger with startOver) asks for it.
func TestLedgerGoneIsRefused(t *testing.T) {
	for _, b := range ledgerPlaces() {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			p, location := b.paths(t)
			l, err := CreateLedger(ctx, p, false)
			if err != nil {
				t.Fatal(err)
			}
			id := l.ID()
			l.Close()
			if got := recordedID(t, p); got != id {
				t.Fatalf("config.toml records ledger %q, made %q", got, id)
			}
			if l, err = openLedger(ctx, p); err != nil || l.ID() != id {
				t.Fatalf("openLedger: %v", err)
			}
			l.Close()

			removeLedger(t, location)
			_, err = openLedger(ctx, p)
			var ge *LedgerGoneError
			if !errors.Is(err, ErrLedgerGone) || !errors.As(err, &ge) {
				t.Fatalf("openLedger of a ledger gone: %v, want ErrLedgerGone", err)
			}
			for _, want := range []string{"has gone (config.toml records ledger " + id + "); nothing was sent", "Restore it from a backup", "smsdesk ledger init --new"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("gone: %q\nlacks %q", err, want)
				}
			}
			if _, err := ledger.Open(ctx, location); !errors.Is(err, ledger.ErrMissing) {
				t.Fatalf("after the refusal the ledger is there: %v (it was made anew)", err)
			}
			if _, _, err := ReadLedger(ctx, p); !errors.Is(err, ErrLedgerGone) {
				t.Errorf("ReadLedger of a ledger gone: %v", err)
			}
			if _, err := p.Ledger(t.Context()); !errors.Is(err, ErrLedgerGone) { // what every command opens
				t.Errorf("Paths.Ledger of a ledger gone: %v", err)
			}
			if _, err := CreateLedger(ctx, p, false); !errors.Is(err, ErrLedgerGone) {
				t.Errorf("ledger init without --new where one has gone: %v", err)
			}

			l, err = CreateLedger(ctx, p, true)
			if err != nil {
				t.Fatalf("ledger init --new: %v", err)
			}
			newID := l.ID()
			l.Close()
			if newID == id || recordedID(t, p) != newID {
				t.Fatalf("ledger init --new: made %s, config.toml records %s (before: %s)", newID, recordedID(t, p), id)
			}
			if _, err := CreateLedger(ctx, p, true); !errors.Is(err, ledger.ErrExists) || !strings.Contains(err.Error(), newID) {
				t.Fatalf("ledger init --new over a ledger that is there: %v", err)
			}
		})
	}
}

// TestOtherLedgerIsRefused: a ledger whose id is not the one config.toml
// records (another database, a backup of another ledger) is refused naming
// both ids; `config set ledger` to it takes it on.
func TestOtherLedgerIsRefused(t *testing.T) {
	for _, b := range ledgerPlaces() {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			p, location := b.paths(t)
			l, err := CreateLedger(ctx, p, false)
			if err != nil {
				t.Fatal(err)
			}
			mine := l.ID()
			l.Close()
			removeLedger(t, location)
			other, err := ledger.Create(ctx, location)
			if err != nil {
				t.Fatal(err)
			}
			otherID := other.ID()
			other.Close()

			_, err = openLedger(ctx, p)
			var oe *OtherLedgerError
			if !errors.As(err, &oe) || !errors.Is(err, ErrOtherLedger) || oe.ID != otherID {
				t.Fatalf("openLedger of another ledger: %v", err)
			}
			for _, want := range []string{"is ledger " + otherID, "config.toml records ledger " + mine, "nothing was sent", "smsdesk config set ledger"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("other: %q\nlacks %q", err, want)
				}
			}
			if _, _, err := ReadLedger(ctx, p); !errors.Is(err, ErrOtherLedger) {
				t.Errorf("ReadLedger of another ledger: %v", err)
			}
			if recordedID(t, p) != mine {
				t.Fatalf("the refusal changed config.toml's ledger_id to %s", recordedID(t, p))
			}

			ch, err := SetLedger(ctx, p, location)
			if err != nil || ch.Place.RecordedID != otherID {
				t.Fatalf("config set ledger %s: %+v, %v", ledger.Redact(location), ch, err)
			}
			l, err = openLedger(ctx, p)
			if err != nil || l.ID() != otherID {
				t.Fatalf("openLedger after config set ledger: %v", err)
			}
			l.Close()
		})
	}
}

// TestLedgerFirstOpen: with none recorded, the state directory's default
// ledger is made by the first open and its id recorded; one named by
// config.toml is only opened (ErrNoLedgerYet, nothing made); one that is
// there with none recorded (made before ids were, or a team's this host
// joins) has its id recorded.
func TestLedgerFirstOpen(t *testing.T) {
	ctx := context.Background()
	t.Run("default", func(t *testing.T) {
		p := testPaths(t)
		if _, _, err := ReadLedger(ctx, p); !errors.Is(err, ErrNoLedgerYet) {
			t.Fatalf("ReadLedger with none: %v", err)
		}
		if _, err := os.Stat(filepath.Join(p.StateDir, ledger.FileName)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("ReadLedger made a ledger: %v", err)
		}
		l, err := openLedger(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		if recordedID(t, p) != l.ID() {
			t.Fatalf("config.toml records %q, the ledger is %q", recordedID(t, p), l.ID())
		}
	})
	for _, b := range ledgerPlaces() {
		t.Run("named/"+b.name, func(t *testing.T) {
			p, location := b.paths(t)
			if b.name == "sqlite" {
				location = filepath.Join(t.TempDir(), "team.db")
				if _, err := Update(p, func(c *Config) error { c.Ledger = location; return nil }); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := openLedger(ctx, p); !errors.Is(err, ErrNoLedgerYet) || !strings.Contains(err.Error(), "smsdesk ledger init") {
				t.Fatalf("openLedger of a named ledger not made: %v", err)
			}
			if _, err := ledger.Open(ctx, location); !errors.Is(err, ledger.ErrMissing) {
				t.Fatalf("openLedger made the named ledger: %v", err)
			}
			made, err := ledger.Create(ctx, location)
			if err != nil {
				t.Fatal(err)
			}
			made.Close()
			l, err := openLedger(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			l.Close()
			if recordedID(t, p) != made.ID() {
				t.Fatalf("joining: config.toml records %q, the ledger is %q", recordedID(t, p), made.ID())
			}
		})
	}
}

// TestCheckLedgerLocation: a URL with a password is refused, never shown;
// only SQLite paths and postgres:// URLs are ledgers.
func TestCheckLedgerLocation(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, c := range []struct {
		in, want string
		err      error
	}{
		{"postgres://smsdesk@db.example.com/smsdesk", "postgres://smsdesk@db.example.com/smsdesk", nil},
		{" postgresql://db/smsdesk?sslmode=require ", "postgresql://db/smsdesk?sslmode=require", nil},
		{"postgres://smsdesk:s3cret-pw@db.example.com/smsdesk", "", ErrPasswordInURL},
		{"postgres://smsdesk@db.example.com/smsdesk?password=s3cret-pw", "", ErrPasswordInURL},
		{"POSTGRES://smsdesk:s3cret-pw@db/x", "", ErrPasswordInURL},
		{"mysql://db/smsdesk", "", ErrLedgerLocation},
		{"", "", ErrLedgerLocation},
		{"ledger.db", filepath.Join(dir, "ledger.db"), nil},
		{"/var/lib/smsdesk/ledger.db", "/var/lib/smsdesk/ledger.db", nil},
	} {
		got, err := CheckLedgerLocation(c.in)
		if !errors.Is(err, c.err) || got != c.want {
			t.Errorf("CheckLedgerLocation(%q) = %q, %v; want %q, %v", c.in, got, err, c.want, c.err)
		}
		if c.err == ErrPasswordInURL && (!errors.Is(err, ErrLedgerLocation) || strings.Contains(err.Error(), "s3cret") ||
			!strings.Contains(err.Error(), "PGPASSWORD") || !strings.Contains(err.Error(), ".pgpass")) {
			t.Errorf("CheckLedgerLocation(%q): %v", c.in, err)
		}
	}
}

// TestSetLedger: config set ledger refuses a URL with a password and
// changes nothing; a location with a ledger is recorded with its id, one
// with none yet without one; the recorded ledger's own place, gone, is
// refused (pointing at it again must not forget it was there).
func TestSetLedger(t *testing.T) {
	for _, b := range ledgerPlaces() {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			p, location := b.paths(t)
			before, err := os.ReadFile(p.ConfigFile)
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				t.Fatal(err)
			}
			if _, err := SetLedger(ctx, p, "postgres://smsdesk:s3cret-pw@127.0.0.1:1/x"); !errors.Is(err, ErrPasswordInURL) || strings.Contains(err.Error(), "s3cret") {
				t.Fatalf("a password in the URL: %v", err)
			}
			after, _ := os.ReadFile(p.ConfigFile)
			if string(after) != string(before) {
				t.Fatalf("a refused config set ledger changed config.toml:\n%s", after)
			}

			ch, err := SetLedger(ctx, p, location)
			if err != nil || ch.Place.RecordedID != "" || ch.Status.ID != "" {
				t.Fatalf("config set ledger to a place with none yet: %+v, %v", ch, err)
			}
			l, err := CreateLedger(ctx, p, false)
			if err != nil {
				t.Fatal(err)
			}
			id := l.ID()
			l.Close()
			ch, err = SetLedger(ctx, p, location)
			if err != nil || ch.Place.RecordedID != id || recordedID(t, p) != id {
				t.Fatalf("config set ledger to a ledger: %+v, %v", ch, err)
			}
			removeLedger(t, location)
			if _, err := SetLedger(ctx, p, location); !errors.Is(err, ErrLedgerGone) {
				t.Fatalf("config set ledger to the recorded ledger, gone: %v", err)
			}
			if recordedID(t, p) != id {
				t.Fatalf("config.toml forgot ledger %s: %q", id, recordedID(t, p))
			}
		})
	}
}
