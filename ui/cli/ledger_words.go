package cli

// The ledger's words on the command line: its errors' exit codes, its
// size, config set ledger, and doctor's line on it.

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// byteSize is n bytes for people: 512 B, 96 KB, 4.2 MB, 1.3 GB.
func byteSize(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%d KB", (n+1<<9)>>10)
	case n < 1<<30:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
}

// ledgerRefused reports a ledger that has gone, is damaged, is another
// than config.toml records or was written by a newer smsdesk: whatever
// command meets it exits 2 with error.code "ledger" (nothing was sent).
func ledgerRefused(err error) bool {
	return errors.Is(err, config.ErrLedgerGone) || errors.Is(err, config.ErrOtherLedger) ||
		errors.Is(err, ledger.ErrDamaged) || errors.Is(err, ledger.ErrSchemaTooNew) || errors.Is(err, ledger.ErrUnopenable)
}

// ledgerError is ledgerRefused's error.code for the ledger's own commands,
// and for a ledger that is there where ledger init would make one; a
// location that is no ledger's (a URL with a password) is "config".
func ledgerError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, config.ErrLedgerLocation):
		return withKind(ExitUsage, "config", err)
	case ledgerRefused(err), errors.Is(err, ledger.ErrExists):
		return withKind(ExitUsage, "ledger", err)
	}
	return err
}

// ledgerSettingHelp is `config set ledger`'s line in its --help.
const ledgerSettingHelp = "the ledger for every profile: a SQLite file's path, or postgres://user@host/db (no password: PGPASSWORD or ~/.pgpass)"

// setLedger is `config set ledger LOCATION` (and `config unset ledger`,
// location ""): it checks the ledger there opens, records it and its id.
func (f *Factory) setLedger(ctx context.Context, location string) error {
	paths, err := f.paths()
	if err != nil {
		return err
	}
	ch, err := app.SetLedger(ctx, paths, location)
	switch {
	case errors.Is(err, config.ErrLedgerLocation):
		return usageError("ledger: %w", err)
	case err != nil:
		return ledgerError(err)
	}
	what := "no ledger there yet: smsdesk ledger init makes it"
	if location == "" {
		what = "no ledger there yet: the first command that needs it makes one (or smsdesk ledger init now)"
	}
	if ch.Status.ID != "" {
		what = fmt.Sprintf("ledger %s, %s, %s", ch.Status.ID, model.Counted(ch.Status.Sends, "send"), model.Counted(ch.Status.OptOuts, "opt-out"))
	}
	printf(f.IO.ErrOut, "✓ ledger = %s (every profile; %s)\n", ch.Place.Where(), what)
	if ch.Before.Location != "" {
		printf(f.IO.ErrOut, "  ledger %s at %s stays where it is; smsdesk no longer reads it\n", ch.Before.RecordedID, ch.Before.Where())
	}
	if env := f.Getenv(config.EnvLedger); env != "" {
		printf(f.IO.ErrOut, "smsdesk: warning: %s=%s is set and names the ledger for this shell instead\n", config.EnvLedger, ledger.Redact(env))
	}
	return nil
}

// ledgerSetting is the top-level ledger setting as `config get` shows it:
// the location in force (a URL without a password) and what chose it.
func ledgerSetting(s *session) (value, source string) {
	pl := config.LedgerPlaceOf(s.Paths, s.Config)
	return pl.Where(), pl.Source
}

// doctorLedgerTimeout bounds doctor's look at a PostgreSQL ledger: a
// server that takes the connection and never answers is said, not waited on.
const doctorLedgerTimeout = 5 * time.Second

// doctorLedger is doctor's line on the ledger: ✓ its backend, where it is,
// its schema and integrity; ✗ gone, damaged, another or out of reach, with
// the fix. It makes no ledger.
func (f *Factory) doctorLedger(ctx context.Context, paths config.Paths) []finding {
	pl, err := config.ReadLedgerPlace(paths)
	if err != nil {
		return nil // the config line said it
	}
	if pl.Backend() == ledger.Postgres {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, doctorLedgerTimeout)
		defer cancel()
	}
	r := app.InspectLedger(ctx, paths)
	where := string(pl.Backend()) + " " + pl.Where()
	restore := "with no smsdesk running, move it and any " + filepath.Base(pl.Where()) + "-wal, -shm and .damaged aside, and copy the latest `smsdesk ledger backup` file to " + pl.Where()
	if pl.Backend() == ledger.Postgres {
		restore = "restore the database from its latest pg_dump (pg_restore)"
	}
	var de *ledger.DamagedError
	var oe *config.OtherLedgerError
	switch {
	case r.Err == nil:
		st := r.Status
		return []finding{{"ledger", "ok", fmt.Sprintf("%s, schema %d, integrity %s, ledger %s (%s, %s)",
			where, st.SchemaVersion, st.Integrity, st.ID, model.Counted(st.Sends, "send"), model.Counted(st.OptOuts, "opt-out")), ""}}
	case errors.Is(r.Err, config.ErrNoLedgerYet):
		if pl.Source != "default" {
			return []finding{{"ledger", "warn", where + ": no ledger there yet (named by " + pl.Source + ")", "smsdesk ledger init"}}
		}
		return []finding{{"ledger", "ok", where + ": none yet (the first command that needs it makes one)", ""}}
	case errors.Is(r.Err, config.ErrLedgerGone):
		return []finding{{"ledger", "fail", fmt.Sprintf("%s has gone (config.toml records ledger %s): nothing can be sent", where, pl.RecordedID),
			"restore it from a backup (" + restore + "), or start over with an empty one: smsdesk ledger init --new"}}
	case errors.As(r.Err, &oe):
		return []finding{{"ledger", "fail", fmt.Sprintf("%s is ledger %s, but config.toml records ledger %s: nothing can be sent", where, oe.ID, pl.RecordedID),
			"point smsdesk back at its own ledger, or take this one from now on: smsdesk config set ledger " + shellQuote(pl.Where())}}
	case errors.As(r.Err, &de):
		problem := de.Problem
		if de.Found != "" {
			problem += " (" + de.Found + ")"
		}
		return []finding{{"ledger", "fail", fmt.Sprintf("%s is damaged: %s: nothing can be sent", where, problem), restore}}
	case errors.Is(r.Err, ledger.ErrSchemaTooNew):
		return []finding{{"ledger", "fail", cleanError(r.Err), "use the newer smsdesk that wrote it"}}
	case pl.Backend() == ledger.Postgres:
		return []finding{{"ledger", "fail", where + ": " + cleanError(r.Err),
			"check the server is up and takes this host, and the password in PGPASSWORD or ~/.pgpass"}}
	}
	return []finding{{"ledger", "fail", where + ": " + cleanError(r.Err), "check the state directory's permissions and free space"}}
}
