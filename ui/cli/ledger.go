package cli

// `smsdesk ledger`: the account's memory (sends, opt-outs, once-only ids,
// the repeat guard, the audit trail) — what it holds, a backup, and a new
// one when the old has gone. The flows are ui/app's (ledger.go); this asks
// and formats.

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

func (a *command) ledgerCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "ledger",
		Short: "The ledger, smsdesk's memory: its status, a backup, a new one",
		Long: `The ledger keeps what decides what may be sent: every send and its records,
the opt-out list, the once-only ids, the repeat guard's pairs and the audit
trail. It is a SQLite file (<state dir>/smsdesk.db) unless SMSDESK_LEDGER or
` + "`smsdesk config set ledger postgres://…`" + ` names a PostgreSQL database that
several hosts share. config.toml records the ledger's id: a ledger that has
gone, or another in its place, is refused, never started anew unasked.`,
	}
	cmd.AddCommand(a.ledgerStatusCommand(), a.ledgerBackupCommand(), a.ledgerInitCommand())
	return cmd
}

// ledgerStatusJSON is `ledger status --json`; what is not known is null.
type ledgerStatusJSON struct {
	Backend       string            `json:"backend"`
	Where         string            `json:"where"`
	Source        string            `json:"source"`
	LedgerID      *string           `json:"ledger_id"`
	RecordedID    *string           `json:"recorded_id"`
	SchemaVersion *int              `json:"schema_version"`
	Counts        *ledgerCountsJSON `json:"counts"`
	SizeBytes     *int64            `json:"size_bytes"`
	Integrity     *string           `json:"integrity"`
	Error         *string           `json:"error"`
}

type ledgerCountsJSON struct {
	Sends   int `json:"sends"`
	Records int `json:"records"`
	OptOuts int `json:"optouts"`
	OnceIDs int `json:"once_ids"`
	Audit   int `json:"audit"`
}

var ledgerStatusFields = []string{"backend", "where", "source", "ledger_id", "recorded_id", "schema_version", "counts", "size_bytes", "integrity", "error"}

func ledgerStatusOf(r app.LedgerReport) ledgerStatusJSON {
	out := ledgerStatusJSON{Backend: string(r.Place.Backend()), Where: r.Place.Where(), Source: r.Place.Source,
		RecordedID: nullable(r.Place.RecordedID)}
	if r.Opened {
		st := r.Status
		out.LedgerID, out.SchemaVersion, out.SizeBytes = nullable(st.ID), &st.SchemaVersion, &st.Size
		if st.Counted {
			out.Counts = &ledgerCountsJSON{Sends: st.Sends, Records: st.Records, OptOuts: st.OptOuts, OnceIDs: st.OnceIDs, Audit: st.Audit}
		}
		out.Integrity = nullable(st.Integrity)
	}
	var oe *config.OtherLedgerError
	if errors.As(r.Err, &oe) {
		out.LedgerID = nullable(oe.ID)
	}
	if r.Err != nil {
		out.Error = nullable(cleanError(r.Err))
	}
	return out
}

func (a *command) ledgerStatusCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show the ledger: backend, where, schema, what it holds, size, integrity",
		Long: `Shows the ledger in force: its backend (sqlite or postgres), where it is (a
PostgreSQL URL never with a password) and what chose it, its id and the one
config.toml records, its schema version, what it holds, its size, and its
integrity: SQLite's integrity_check reads every page (on PostgreSQL every
table is read), the damage another smsdesk found and marked in it, and
every row (each send's records against its summary, each opt-out, once-only
id and audit record). It makes no ledger and changes nothing. Exit 2 when the
ledger has gone, is damaged, or is another than config.toml records.`,
		Example: "  smsdesk ledger status",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			paths, err := a.paths()
			if err != nil {
				return err
			}
			r := app.InspectLedger(cmd.Context(), paths)
			if r.Place.Location == "" { // config.toml does not read
				return r.Err
			}
			if asJSON {
				if err := printJSON(a.IO.Out, ledgerStatusOf(r)); err != nil {
					return err
				}
			} else {
				a.printLedgerStatus(r)
			}
			if errors.Is(r.Err, config.ErrNoLedgerYet) {
				return nil
			}
			return ledgerError(r.Err)
		},
	}
	addJSONFlag(cmd, &asJSON, "print {backend, where, source, ledger_id, recorded_id, schema_version, counts, size_bytes, integrity, error}", ledgerStatusFields, "smsdesk ledger status --json=backend,integrity")
	return cmd
}

// printLedgerStatus writes the status for people; an error other than none
// yet is left for Main to print, as every command's.
func (a *command) printLedgerStatus(r app.LedgerReport) {
	w := a.IO.Out
	printf(w, "%-10s %s %s (%s)\n", "ledger", string(r.Place.Backend()), r.Place.Where(), r.Place.Source)
	if errors.Is(r.Err, config.ErrNoLedgerYet) {
		how := "smsdesk ledger init makes it"
		if r.Place.Source == "default" {
			how = "the first command that needs it makes one (smsdesk ledger init makes it now)"
		}
		printf(w, "%-10s none yet: %s\n", "", how)
		return
	}
	recorded := "recorded in config.toml"
	if r.Place.RecordedID == "" {
		recorded = "not recorded in config.toml yet"
	}
	var oe *config.OtherLedgerError
	switch {
	case errors.As(r.Err, &oe):
		printf(w, "%-10s %s (config.toml records %s)\n", "id", oe.ID, r.Place.RecordedID)
	case r.Opened:
		st := r.Status
		if r.Place.RecordedID != "" && r.Place.RecordedID != st.ID {
			recorded = "config.toml records " + r.Place.RecordedID
		}
		printf(w, "%-10s %s (%s)\n", "id", st.ID, recorded)
		printf(w, "%-10s version %d\n", "schema", st.SchemaVersion)
		if st.Counted {
			printf(w, "%-10s %s (%s), %s, %s, %s\n", "holds", model.Counted(st.Sends, "send"), model.Counted(st.Records, "record"),
				model.Counted(st.OptOuts, "opt-out"), model.Counted(st.OnceIDs, "once-only id"), model.Counted(st.Audit, "audit record"))
		} else {
			printf(w, "%-10s not known: it does not count (below)\n", "holds")
		}
		printf(w, "%-10s %s\n", "size", byteSize(st.Size))
		integrity := st.Integrity
		if integrity == "" {
			integrity = "the check could not run (below)"
		} else if integrity != "ok" {
			integrity = "damaged: " + integrity
		}
		printf(w, "%-10s %s\n", "integrity", integrity)
	case r.Place.RecordedID != "":
		printf(w, "%-10s %s (recorded in config.toml)\n", "id", r.Place.RecordedID)
	}
}

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

func (a *command) ledgerBackupCommand() *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "backup FILE",
		Short: "Copy the ledger to FILE (SQLite); name the pg_dump command (PostgreSQL)",
		Long: `Writes a consistent copy of a SQLite ledger to FILE (0600) with SQLite's VACUUM
INTO, while other smsdesk processes go on writing. An existing FILE is kept
unless --force (then it is replaced whole, once the copy is made). To
restore, copy the backup to the ledger's place (smsdesk ledger status shows
it) while no smsdesk runs.

A PostgreSQL ledger is backed up with PostgreSQL's own pg_dump: the command
prints the one to run (without a password) and exits 2.`,
		Example: "  smsdesk ledger backup ~/backups/smsdesk-$(date +%F).db\n  smsdesk ledger backup /var/backups/smsdesk.db --force",
		Args:    exactArgs(1, "FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			paths, err := a.paths()
			if err != nil {
				return err
			}
			b, err := app.BackupLedger(cmd.Context(), paths, args[0], force)
			var pe *app.PgDumpError
			switch {
			case errors.As(err, &pe):
				printf(a.IO.Out, "%s\n", pe.Command)
				return &ExitError{Code: ExitUsage, Kind: "usage", Err: fmt.Errorf("the ledger %s is a PostgreSQL database: smsdesk does not copy it; run the pg_dump above (printed on stdout; the password from PGPASSWORD or ~/.pgpass)", pe.Where)}
			case errors.Is(err, app.ErrBackupExists):
				return &ExitError{Code: ExitUsage, Kind: "usage", Err: err, Hint: "name a new file, or add --force to replace it"}
			case err != nil:
				return ledgerError(err)
			}
			printf(a.IO.ErrOut, "✓ ledger %s backed up to %s (%s, 0600)\n", b.Where, b.File, byteSize(b.Size))
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "replace FILE if it exists")
	return cmd
}

func (a *command) ledgerInitCommand() *cobra.Command {
	var startOver, yes bool
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Make the ledger where none is; --new starts over where the old one has gone",
		Long: `Makes a new, empty ledger where the ledger in force is to be (smsdesk ledger
status shows where) and records its id in config.toml. A first command makes
one by itself; init makes it now (a team's PostgreSQL database, before its
hosts use it).

A ledger that is there is never replaced, readable or damaged. Where
config.toml records a ledger that has gone, smsdesk refuses to send until it
is restored from a backup, or until ` + "`smsdesk ledger init --new`" + ` starts over
with an empty one, after asking (--yes for scripts): the new ledger has no
opt-out list, no once-only ids and no history.`,
		Example: "  smsdesk ledger init\n  smsdesk ledger init --new",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			paths, err := a.paths()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			r := app.InspectLedger(ctx, paths)
			switch {
			case r.Opened:
				err := &config.LedgerThereError{Place: r.Place, ID: r.Status.ID}
				return withKind(ExitUsage, "ledger", err)
			case errors.Is(r.Err, config.ErrLedgerGone) && !startOver:
				return ledgerError(r.Err)
			case errors.Is(r.Err, config.ErrLedgerGone) && !yes:
				q := fmt.Sprintf("The ledger %s has gone (config.toml records ledger %s). Start a new, empty one there? It has no opt-out list, no once-only ids and no history of what was sent.", r.Place.Where(), r.Place.RecordedID)
				ok, err := a.IO.Confirm(q, "--yes")
				if err != nil {
					return err
				}
				if !ok {
					return usageError("no ledger was made; nothing was changed")
				}
			}
			st, err := app.InitLedger(ctx, paths, startOver, a.now())
			if err != nil {
				return ledgerError(err)
			}
			printf(a.IO.ErrOut, "✓ a new, empty ledger at %s: ledger %s, recorded in %s\n", st.Where, st.ID, paths.ConfigFile)
			if r.Place.RecordedID != "" {
				printf(a.IO.ErrOut, "  it replaces ledger %s, which had gone: add the opt-outs back (smsdesk optout import FILE) before the next send\n", r.Place.RecordedID)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&startOver, "new", false, "start over with an empty ledger where the one config.toml records has gone")
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "with --new: start over without asking")
	return cmd
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
func (a *command) doctorLedger(ctx context.Context, paths config.Paths) []finding {
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
	restore := "with no smsdesk running, move it and any " + filepath.Base(pl.Where()) + "-wal and -shm aside, and copy the latest `smsdesk ledger backup` file to " + pl.Where()
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
