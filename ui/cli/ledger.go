package cli

// `smsdesk ledger`: the account's memory (sends, opt-outs, once-only ids,
// the repeat guard, the audit trail) — what it holds, a backup, and a new
// one when the old has gone. The flows are ui/app's (ledger.go); this asks
// and formats.

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

func newCmdLedger(f *Factory) *cobra.Command {
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
	cmd.AddCommand(newCmdLedgerStatus(f, nil), newCmdLedgerBackup(f, nil), newCmdLedgerInit(f, nil))
	return cmd
}

// ledgerOptions are what a ledger command was asked.
type ledgerOptions struct {
	f    *Factory
	IO   *IOStreams
	JSON bool   // status
	File string // backup: where the copy goes
	// Force replaces an existing backup file; New starts over where the
	// ledger has gone (init), Yes without asking.
	Force, New, Yes bool
}

// newCmdLedgerVerb is a ledger command over ledgerOptions: FILE (backup)
// set from args before runF runs.
func newCmdLedgerVerb(f *Factory, cmd *cobra.Command, runF func(context.Context, *ledgerOptions) error) (*cobra.Command, *ledgerOptions) {
	o := &ledgerOptions{f: f, IO: f.IO}
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if len(args) > 0 {
			o.File = args[0]
		}
		return runF(c.Context(), o)
	}
	return cmd, o
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

func newCmdLedgerStatus(f *Factory, runF func(context.Context, *ledgerOptions) error) *cobra.Command {
	if runF == nil {
		runF = ledgerStatusRun
	}
	cmd, o := newCmdLedgerVerb(f, &cobra.Command{
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
	}, runF)
	addJSONFlag(cmd, &o.JSON, "print {backend, where, source, ledger_id, recorded_id, schema_version, counts, size_bytes, integrity, error}", ledgerStatusFields, "smsdesk ledger status --json=backend,integrity")
	return cmd
}

// ledgerStatusRun shows the ledger in force (app.InspectLedger: it makes
// none and changes nothing).
func ledgerStatusRun(ctx context.Context, o *ledgerOptions) error {
	paths, err := o.f.paths()
	if err != nil {
		return err
	}
	r := app.InspectLedger(ctx, paths)
	if r.Place.Location == "" { // config.toml does not read
		return r.Err
	}
	if o.JSON {
		if err := printJSON(o.IO.Out, ledgerStatusOf(r)); err != nil {
			return err
		}
	} else {
		printLedgerStatus(o.IO.Out, r)
	}
	if errors.Is(r.Err, config.ErrNoLedgerYet) {
		return nil
	}
	return ledgerError(r.Err)
}

// printLedgerStatus writes the status for people; an error other than none
// yet is left for Main to print, as every command's.
func printLedgerStatus(w io.Writer, r app.LedgerReport) {
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

func newCmdLedgerBackup(f *Factory, runF func(context.Context, *ledgerOptions) error) *cobra.Command {
	if runF == nil {
		runF = ledgerBackupRun
	}
	cmd, o := newCmdLedgerVerb(f, &cobra.Command{
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
	}, runF)
	cmd.Flags().BoolVar(&o.Force, "force", false, "replace FILE if it exists")
	return cmd
}

// ledgerBackupRun copies a SQLite ledger to the file (app.BackupLedger),
// or prints the pg_dump that copies a PostgreSQL one.
func ledgerBackupRun(ctx context.Context, o *ledgerOptions) error {
	paths, err := o.f.paths()
	if err != nil {
		return err
	}
	b, err := app.BackupLedger(ctx, paths, o.File, o.Force)
	var pe *app.PgDumpError
	switch {
	case errors.As(err, &pe):
		printf(o.IO.Out, "%s\n", pe.Command)
		return &ExitError{Code: ExitUsage, Kind: "usage", Err: fmt.Errorf("the ledger %s is a PostgreSQL database: smsdesk does not copy it; run the pg_dump above (printed on stdout; the password from PGPASSWORD or ~/.pgpass)", pe.Where)}
	case errors.Is(err, app.ErrBackupExists):
		return &ExitError{Code: ExitUsage, Kind: "usage", Err: err, Hint: "name a new file, or add --force to replace it"}
	case err != nil:
		return ledgerError(err)
	}
	printf(o.IO.ErrOut, "✓ ledger %s backed up to %s (%s, 0600)\n", b.Where, b.File, byteSize(b.Size))
	return nil
}

func newCmdLedgerInit(f *Factory, runF func(context.Context, *ledgerOptions) error) *cobra.Command {
	if runF == nil {
		runF = ledgerInitRun
	}
	cmd, o := newCmdLedgerVerb(f, &cobra.Command{
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
	}, runF)
	cmd.Flags().BoolVar(&o.New, "new", false, "start over with an empty ledger where the one config.toml records has gone")
	cmd.Flags().BoolVarP(&o.Yes, "yes", "y", false, "with --new: start over without asking")
	return cmd
}

// ledgerInitRun makes the ledger where none is (app.InitLedger); where the
// one config.toml records has gone, only with --new, after asking.
func ledgerInitRun(ctx context.Context, o *ledgerOptions) error {
	paths, err := o.f.paths()
	if err != nil {
		return err
	}
	r := app.InspectLedger(ctx, paths)
	switch {
	case r.Opened:
		err := &config.LedgerThereError{Place: r.Place, ID: r.Status.ID}
		return withKind(ExitUsage, "ledger", err)
	case errors.Is(r.Err, config.ErrLedgerGone) && !o.New:
		return ledgerError(r.Err)
	case errors.Is(r.Err, config.ErrLedgerGone) && !o.Yes:
		q := fmt.Sprintf("The ledger %s has gone (config.toml records ledger %s). Start a new, empty one there? It has no opt-out list, no once-only ids and no history of what was sent.", r.Place.Where(), r.Place.RecordedID)
		ok, err := o.IO.Confirm(q, "--yes")
		if err != nil {
			return err
		}
		if !ok {
			return usageError("no ledger was made; nothing was changed")
		}
	}
	st, err := app.InitLedger(ctx, paths, o.New, o.f.now())
	if err != nil {
		return ledgerError(err)
	}
	printf(o.IO.ErrOut, "✓ a new, empty ledger at %s: ledger %s, recorded in %s\n", st.Where, st.ID, paths.ConfigFile)
	if r.Place.RecordedID != "" {
		printf(o.IO.ErrOut, "  it replaces ledger %s, which had gone: add the opt-outs back (smsdesk optout import FILE) before the next send\n", r.Place.RecordedID)
	}
	return nil
}
