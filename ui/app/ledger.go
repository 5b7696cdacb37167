package app

// The ledger's own flows: look at it (ledger status, doctor), back it up,
// make a new one (ledger init), and choose which one every profile uses
// (config set ledger). Which ledger, and the refusal of one that has gone
// or is another, is config's (config/ledgeropen.go).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/config/ledger"
)

// LedgerReport is the process's ledger as `ledger status` and doctor show it.
type LedgerReport struct {
	Place config.LedgerPlace
	// Opened: the ledger opened, and Status holds what it holds (with Err
	// set too when its integrity check failed).
	Opened bool
	Status ledger.Status
	// Err is why it cannot be used: gone (config.ErrLedgerGone), another
	// (config.ErrOtherLedger), damaged (ledger.ErrDamaged), none yet
	// (config.ErrNoLedgerYet), unreachable, or written by a newer smsdesk.
	Err error
}

// InspectLedger opens the process's ledger without making one or writing
// config.toml, counts what it holds and checks its integrity.
func InspectLedger(ctx context.Context, p config.Paths) LedgerReport {
	pl, l, err := config.ReadLedger(ctx, p)
	r := LedgerReport{Place: pl, Err: err}
	if err != nil {
		return r
	}
	defer closeRead(l)
	r.Opened = true
	r.Status, r.Err = l.Status(ctx)
	return r
}

// ErrBackupExists: the backup's file exists, and replacing it was not asked.
var ErrBackupExists = errors.New("the file exists")

// PgDumpError is a backup of a PostgreSQL ledger: PostgreSQL's own pg_dump
// makes it, and Command is the one to run (the password from PGPASSWORD or
// ~/.pgpass, never in it; under umask 077, so the file is its owner's only).
type PgDumpError struct {
	Where   string
	Command string
}

func (e *PgDumpError) Error() string {
	return fmt.Sprintf("the ledger %s is a PostgreSQL database: back it up with PostgreSQL's pg_dump (the password from PGPASSWORD or ~/.pgpass): %s", e.Where, e.Command)
}

// LedgerBackup is a backup made.
type LedgerBackup struct {
	File  string // absolute
	Size  int64
	Where string // the ledger backed up
	ID    string
}

// BackupLedger copies the process's ledger to file (0600) with SQLite's
// VACUUM INTO: consistent while others write. An existing file is
// refused (ErrBackupExists) unless replace is set; it is then replaced
// whole, by a rename, only once the copy is made. The ledger's own files
// are never a backup's. A PostgreSQL ledger is a *PgDumpError naming the
// command.
func BackupLedger(ctx context.Context, p config.Paths, file string, replace bool) (LedgerBackup, error) {
	c, err := config.Load(p)
	if err != nil {
		return LedgerBackup{}, err
	}
	if pl := config.LedgerPlaceOf(p, c); pl.Backend() == ledger.Postgres {
		return LedgerBackup{}, &PgDumpError{Where: pl.Where(), Command: "(umask 077 && pg_dump --format=custom --file=" + shellWord(file) + " " + shellWord(conninfo(pl.Location)) + ")"}
	}
	file, err = filepath.Abs(file)
	if err != nil {
		return LedgerBackup{}, fmt.Errorf("backup %s: %w", file, err)
	}
	exists, err := backupTarget(file, replace)
	if err != nil {
		return LedgerBackup{}, err
	}
	pl, l, err := config.ReadLedger(ctx, p)
	if err != nil {
		return LedgerBackup{}, err
	}
	defer closeRead(l) // the backup reads it; its copy is checked as it is written
	if isLedgerFile(file, pl.Location) {
		return LedgerBackup{}, fmt.Errorf("backup %s: that is the ledger itself; name another file", file)
	}
	b := LedgerBackup{File: file, Where: l.Where(), ID: l.ID()}
	if !exists {
		err = l.Backup(ctx, file)
	} else {
		err = backupOver(ctx, l, file)
	}
	if err != nil {
		return LedgerBackup{}, err
	}
	if fi, err := os.Stat(file); err == nil {
		b.Size = fi.Size()
	}
	return b, nil
}

// backupTarget checks the backup's file: a directory is refused, an
// existing file unless replace; it reports whether one exists.
func backupTarget(file string, replace bool) (bool, error) {
	fi, err := os.Stat(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("backup: %w", err)
	case fi.IsDir():
		return false, fmt.Errorf("backup %s: it is a directory; name a file", file)
	case !replace:
		return false, fmt.Errorf("backup %s: %w", file, ErrBackupExists)
	}
	return true, nil
}

// backupOver makes the backup beside file and renames it over file.
func backupOver(ctx context.Context, l *ledger.Ledger, file string) error {
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".*.partial")
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	name := tmp.Name()
	// Only its name was wanted: the backup makes the file anew, 0600.
	if err := errors.Join(tmp.Close(), os.Remove(name)); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if err := l.Backup(ctx, name); err != nil {
		_ = os.Remove(name) // a partial copy; the backup's error is the one to say
		return err
	}
	if err := os.Rename(name, file); err != nil {
		_ = os.Remove(name) // the copy that could not take file's place
		return fmt.Errorf("backup: %w", err)
	}
	return nil
}

// isLedgerFile reports whether file is the SQLite ledger at location or
// one of its companions (-wal, -shm, -journal).
func isLedgerFile(file, location string) bool {
	fi, err := os.Stat(file)
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		if filepath.Clean(file) == filepath.Clean(location+suffix) {
			return true
		}
		if err != nil {
			continue
		}
		if li, lerr := os.Stat(location + suffix); lerr == nil && os.SameFile(fi, li) {
			return true
		}
	}
	return false
}

// conninfo is a PostgreSQL URL as libpq's key=value words, which pg_dump
// reads as its database argument ("host=db port=5432 user=smsdesk
// dbname=smsdesk sslmode=require"): a command line with no URL in it,
// which smsdesk's output would show with its user name redacted, and never
// a password (a URL that holds one is refused before).
func conninfo(location string) string {
	u, err := url.Parse(location)
	if err != nil {
		return location
	}
	var words []string
	add := func(k, v string) {
		if v == "" || k == "password" {
			return
		}
		if strings.ContainsAny(v, " '\\") {
			v = "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'"
		}
		words = append(words, k+"="+v)
	}
	add("host", u.Hostname())
	add("port", u.Port())
	add("user", u.User.Username())
	add("dbname", strings.TrimPrefix(u.Path, "/"))
	q := u.Query()
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		add(k, q.Get(k))
	}
	return strings.Join(words, " ")
}

// shellWord quotes s for a command the operator pastes into a shell.
func shellWord(s string) string {
	if s != "" && !strings.ContainsAny(s, " '\"$`\\!*?;&|<>()[]{}#~=") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// InitLedger makes a new, empty ledger where the process's ledger is to be
// and records its id in config.toml (config.CreateLedger: a ledger there is
// never replaced; where the recorded one has gone, only startOver makes
// one). Starting over is written to the new ledger's audit trail, naming
// the ledger it replaces, at now.
func InitLedger(ctx context.Context, p config.Paths, startOver bool, now time.Time) (st ledger.Status, err error) {
	c, err := config.Load(p)
	if err != nil {
		return ledger.Status{}, err
	}
	before := config.LedgerPlaceOf(p, c).RecordedID
	l, err := config.CreateLedger(ctx, p, startOver)
	if err != nil {
		return ledger.Status{}, err
	}
	defer closeWritten(l, &err)
	if before != "" {
		body, _ := json.Marshal(config.AuditRecord{Time: now, Action: "ledger_new",
			Note: "a new, empty ledger: ledger " + before + " had gone from " + l.Where()})
		if err := l.AppendAudit(ctx, ledger.AuditEntry{Time: now, Action: "ledger_new", Body: body}); err != nil {
			return ledger.Status{}, err
		}
	}
	return l.Status(ctx)
}

// SetLedger makes location the ledger of every profile (config.SetLedger;
// "" the default, <state dir>/smsdesk.db).
func SetLedger(ctx context.Context, p config.Paths, location string) (config.LedgerChange, error) {
	return config.SetLedger(ctx, p, location)
}
