package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/model"
)

func (a *command) contactsImportCommand() *cobra.Command {
	var asJSON, asLines, skipInvalid bool
	cmd := &cobra.Command{
		Use:   "import GROUP_ID FILE",
		Short: "Add every contact of a CSV file (mobile[,name]) to a group",
		Long: `Reads a contacts CSV (header optional: mobile/phone/number and name columns;
comma, semicolon, tab or Arabic-semicolon separated; UTF-8 or UTF-16), checks every
row first, then adds the contacts one by one, paced to the service's rate limit.
Any invalid row stops the import before anything is added, unless --skip-invalid.
FILE - reads the CSV from stdin.

--json-lines, for big files: one JSON object a line for each row as soon as
its outcome is decided (invalid and already-in-the-group rows first, then
each row as it is added or fails, then those not attempted), the keys of
--json's rows; the last line is the summary, {"group_id", "counts"}.`,
		Example: "  smsdesk contacts import 12 contacts.csv\n  export-crm | smsdesk contacts import 12 - --json\n  smsdesk contacts import 12 big.csv --json-lines | jq -c 'select(.status == \"failed\")'",
		Args:    exactArgs(2, "GROUP_ID and FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if asJSON && asLines {
				return usageError("--json and --json-lines: choose one (--json-lines streams a line a row, then the summary)")
			}
			var lines *jsonLines
			if asLines {
				lines = &jsonLines{w: a.IO.Out}
			}
			file, name := args[1], filepath.Base(args[1])
			if file == "-" {
				name = "stdin"
			}
			s, err := a.session(cmd.Context())
			if err != nil {
				return err
			}
			groupID, err := groupIDArg(s, args[0])
			if err != nil {
				return err
			}
			contactRows, err := a.readContactsFile(file, contactsFile)
			if err != nil {
				return err
			}
			// A bad file is refused before anything goes to the service.
			if invalid, err := s.App.CheckImport(contactRows, name, skipInvalid); err != nil {
				if lines != nil {
					for _, r := range invalid {
						lines.emit(r)
					}
					lines.emit(importSummaryJSON{GroupID: groupID, Counts: importCountsJSON{Invalid: len(invalid)}})
				}
				if asJSON {
					out := importJSON{GroupID: groupID, Rows: invalid, Counts: importCountsJSON{Invalid: len(invalid)}}
					if err := printJSON(a.IO.Out, out); err != nil {
						return err
					}
				}
				return refused(err)
			}
			// The group as it is now decides what is missing: an import that
			// was interrupted (or a file imported before) adds only the rest,
			// never a second copy (the use case the console shares).
			pv, err := s.App.PreviewImport(cmd.Context(), groupID, contactRows)
			if err != nil {
				return err
			}
			rows, invalid, already := pv.Valid, pv.Invalid, len(pv.Already)
			if lines != nil { // decided already: invalid, and in the group before
				for _, r := range append(append([]model.ImportRow{}, invalid...), pv.Already...) {
					lines.emit(r)
				}
			}
			emitted := make([]bool, len(rows))
			emitUpTo := func(i int) { // rows[:i+1] are decided
				for j := 0; lines != nil && j <= i && j < len(rows); j++ {
					if !emitted[j] && rows[j].Status != model.ImportValid {
						emitted[j] = true
						lines.emit(rows[j])
					}
				}
			}
			// ctrl+c stops after the row in flight, which is finished and recorded,
			// so the summary says exactly what was added.
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			finished := make(chan struct{})
			defer close(finished) // runs before stop(): a cancel seen after it is not a signal
			go func() {
				select {
				case <-ctx.Done():
				case <-finished:
					return
				}
				select {
				case <-finished:
					return
				default:
				}
				if cmd.Context().Err() == nil {
					fmt.Fprintln(a.IO.ErrOut, "\nstopping after the row in flight… (ctrl+c again quits at once)")
				}
				stop() // a second signal ends the process
			}()
			prog := &progress{w: a.IO.ProgressOut(), label: "importing", total: len(rows), terminal: a.IO.ErrIsTerminal(), now: a.Now}
			if len(rows) > 0 { // "importing 0/0" when every row is already in the group
				prog.update(0)
			}
			sum := s.App.Import(ctx, groupID, rows, func(i int) { prog.update(i + 1); emitUpTo(i) })
			prog.finish()
			emitUpTo(len(rows) - 1) // those not attempted
			added, failed := sum.Added, sum.Failed
			already += sum.Already
			rows = append(rows, pv.Already...)
			all := append(rows, invalid...)
			counts := importCountsJSON{Added: added, Failed: failed, Invalid: len(invalid),
				AlreadyInGroup: already, Skipped: len(rows) - added - failed, NotAttempted: sum.NotAttempted}
			switch {
			case lines != nil:
				lines.emit(importSummaryJSON{GroupID: groupID, Counts: counts})
				if lines.err != nil {
					return lines.err
				}
			case asJSON:
				if err := printJSON(a.IO.Out, importJSON{GroupID: groupID, Rows: all, Counts: counts}); err != nil {
					return err
				}
			default:
				for _, r := range all {
					if r.Status != model.ImportAdded {
						printf(a.IO.ErrOut, "%s line %d (%s): %s: %s\n", name, r.Line, r.Mobile, string(r.Status), r.Error)
					}
				}
				printf(a.IO.Out, "Imported %d of %d contacts into group %s (%d already in it, %d failed, %d invalid, %d not attempted)\n",
					added, len(rows)+len(invalid), groupID.String(), already, failed, len(invalid), len(rows)-added-failed-already)
			}
			if ctx.Err() != nil && cmd.Context().Err() == nil && sum.NotAttempted > 0 {
				return &ExitError{Code: ExitInterrupted, Kind: "interrupted", Hint: "import the same file again: it adds only what is missing",
					Err: fmt.Errorf("import into group %s interrupted: %d added, %d not attempted", groupID, added, sum.NotAttempted)}
			}
			if added+already < len(rows)+len(invalid) {
				return withCode(ExitService, fmt.Errorf("%d row(s) of %s were not imported (listed above)", len(rows)+len(invalid)-added-already, name))
			}
			return nil
		},
	}
	addJSONFlag(cmd, &asJSON, "print every row's outcome as JSON", importFields, "smsdesk contacts import 12 contacts.csv --json=counts")
	cmd.Flags().BoolVar(&asLines, "json-lines", false, "print one JSON line a row as it is decided, then a summary line (for big files)")
	cmd.Flags().BoolVar(&skipInvalid, "skip-invalid", false, "import the valid rows even if some are invalid (they are listed)")
	return cmd
}

// importJSON is contacts import's --json on stdout, refused or done: the
// same keys either way. Rows carry the file's line numbers.
type importJSON struct {
	GroupID model.ID          `json:"group_id"`
	Counts  importCountsJSON  `json:"counts"`
	Rows    []model.ImportRow `json:"rows"`
}

// importSummaryJSON is the last line of --json-lines: --json's object
// without its rows (each had its own line).
type importSummaryJSON struct {
	GroupID model.ID         `json:"group_id"`
	Counts  importCountsJSON `json:"counts"`
}

// importCountsJSON counts an import's rows by outcome.
type importCountsJSON struct {
	Added          int `json:"added"`
	Failed         int `json:"failed"`
	Invalid        int `json:"invalid"`
	AlreadyInGroup int `json:"already_in_group"`
	Skipped        int `json:"skipped"` // already in the group or not attempted
	NotAttempted   int `json:"not_attempted"`
}

// numbersFile is what a file of numbers is for, in the words of its errors:
// contacts to import, or numbers to opt out.
type numbersFile struct {
	what  string // "contacts file"
	empty string // what an empty one lacks: "has no contacts (…)"
}

var (
	contactsFile = numbersFile{"contacts file", "has no contacts (expected rows of mobile[,name])"}
	optOutsFile  = numbersFile{"opt-out file", "has no numbers to put on the opt-out list (expected rows of mobile, or a mobile or recipient column)"}
)

// readContactsFile reads a contacts CSV (or, as kind says, one of numbers
// to opt out); the rows are checked by the application layer
// (app.Session.CheckImport, PreviewImport).
func (a *command) readContactsFile(path string, kind numbersFile) ([]model.ContactRow, error) {
	var rows []model.ContactRow
	err := a.eachContact(path, kind, nil, func(r model.ContactRow) error {
		rows = append(rows, r)
		return nil
	})
	return rows, err
}

// eachContact reads a file of kind a row at a time, giving each to row
// and every byte read to tee (nil: none); an error from row stops it and
// is returned as it is. A file without rows is a usage error.
func (a *command) eachContact(path string, kind numbersFile, tee io.Writer, row func(model.ContactRow) error) error {
	var in io.Reader = a.IO.In
	if path == "-" {
		path = "stdin"
	} else {
		f, err := openInput(kind.what, path)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	if tee != nil {
		in = io.TeeReader(in, tee)
	}
	n := 0
	var rowErr error
	err := model.ReadContacts(in, func(r model.ContactRow) error {
		n++
		rowErr = row(r)
		return rowErr
	})
	switch {
	case rowErr != nil:
		return rowErr
	case err != nil:
		var csvErr *model.CSVError
		if errors.As(err, &csvErr) && csvErr.File == "" {
			csvErr.File = filepath.Base(path)
		}
		return usageError("reading %s: %w", path, err)
	case n == 0:
		return usageError("%s %s", path, kind.empty)
	}
	return nil
}
