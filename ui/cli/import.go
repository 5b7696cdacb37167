package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// contactsImportOptions are what contacts import was asked.
type contactsImportOptions struct {
	f           *Factory
	IO          *IOStreams
	Group, File string
	Sheet       string // --sheet: a workbook's sheet (default its first)
	JSON, Lines bool   // --json, --json-lines
	SkipInvalid bool
}

func newCmdContactsImport(f *Factory, runF func(context.Context, *contactsImportOptions) error) *cobra.Command {
	o := &contactsImportOptions{f: f, IO: f.IO}
	if runF == nil {
		runF = contactsImportRun
	}
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
			if o.JSON && o.Lines {
				return usageError("--json and --json-lines: choose one (--json-lines streams a line a row, then the summary)")
			}
			o.Group, o.File = args[0], args[1]
			return runF(cmd.Context(), o)
		},
	}
	addJSONFlag(cmd, &o.JSON, "print every row's outcome as JSON", importFields, "smsdesk contacts import 12 contacts.csv --json=counts")
	cmd.Flags().BoolVar(&o.Lines, "json-lines", false, "print one JSON line a row as it is decided, then a summary line (for big files)")
	cmd.Flags().BoolVar(&o.SkipInvalid, "skip-invalid", false, "import the valid rows even if some are invalid (they are listed)")
	addSheetFlag(cmd, &o.Sheet)
	return cmd
}

// contactsImportRun checks the file's rows (app.Session.CheckImport),
// finds what the group lacks (PreviewImport), adds it a row at a time
// (Import) and reports every row.
func contactsImportRun(ctx context.Context, o *contactsImportOptions) error {
	imp := &importing{o: o, name: filepath.Base(o.File)}
	if o.File == "-" {
		imp.name = "stdin"
	}
	if o.Lines {
		imp.lines = &jsonLines{w: o.IO.Out}
	}
	s, err := o.f.session(ctx)
	if err != nil {
		return err
	}
	if imp.group, err = groupIDArg(s, o.Group); err != nil {
		return err
	}
	contactRows, err := readContactsFile(o.IO.In, o.File, o.Sheet, contactsFile)
	if err != nil {
		return err
	}
	// A bad file is refused before anything goes to the service.
	if invalid, err := s.App.CheckImport(contactRows, imp.name, o.SkipInvalid); err != nil {
		return imp.refused(invalid, err)
	}
	// The group as it is now decides what is missing: an import that was
	// interrupted (or a file imported before) adds only the rest, never a
	// second copy (the use case the console shares).
	pv, err := s.App.PreviewImport(ctx, imp.group, contactRows)
	if err != nil {
		return err
	}
	return imp.run(ctx, s, pv)
}

// importing is one run of contacts import: its group, the file's name as
// messages say it, and the JSON lines it streams (nil without
// --json-lines).
type importing struct {
	o     *contactsImportOptions
	name  string
	group model.ID
	lines *jsonLines
}

// refused reports a file refused before anything was added: its invalid
// rows (as JSON lines, or in --json's object), then the refusal.
func (imp *importing) refused(invalid []model.ImportRow, err error) error {
	counts := importCountsJSON{Invalid: len(invalid)}
	if imp.lines != nil {
		for _, r := range invalid {
			imp.lines.emit(r)
		}
		imp.lines.emit(importSummaryJSON{GroupID: imp.group, Counts: counts})
	}
	if imp.o.JSON {
		if err := printJSON(imp.o.IO.Out, importJSON{GroupID: imp.group, Rows: invalid, Counts: counts}); err != nil {
			return err
		}
	}
	return refused(err)
}

// run adds the rows the group lacks, with progress on stderr; ctrl+c
// stops after the row in flight, which is finished and recorded, so the
// summary says exactly what was added.
func (imp *importing) run(parent context.Context, s *session, pv model.ImportPreview) error {
	rows, invalid := pv.Valid, pv.Invalid
	if imp.lines != nil { // decided already: invalid, and in the group before
		for _, r := range append(append([]model.ImportRow{}, invalid...), pv.Already...) {
			imp.lines.emit(r)
		}
	}
	emitted := make([]bool, len(rows))
	emitUpTo := func(i int) { // rows[:i+1] are decided
		for j := 0; imp.lines != nil && j <= i && j < len(rows); j++ {
			if !emitted[j] && rows[j].Status != model.ImportValid {
				emitted[j] = true
				imp.lines.emit(rows[j])
			}
		}
	}
	ctx, stop := stopAfterRow(parent, imp.o.IO.ErrOut)
	defer stop()
	prog := &progress{w: imp.o.IO.ProgressOut(), label: "importing", total: len(rows), terminal: imp.o.IO.ErrIsTerminal(), now: imp.o.f.Now}
	if len(rows) > 0 { // "importing 0/0" when every row is already in the group
		prog.update(0)
	}
	sum := s.App.Import(ctx, imp.group, rows, func(i int) { prog.update(i + 1); emitUpTo(i) })
	prog.finish()
	emitUpTo(len(rows) - 1) // those not attempted
	done := importDone{sum: sum, rows: append(rows, pv.Already...), invalid: invalid, already: len(pv.Already) + sum.Already}
	if err := imp.report(done); err != nil {
		return err
	}
	return imp.exit(done, ctx.Err() != nil && parent.Err() == nil)
}

// stopAfterRow is parent until ctrl+c or SIGTERM, said on errOut (unless
// parent itself ended); a second signal ends the process. stop ends it:
// a cancel seen after it is not a signal.
func stopAfterRow(parent context.Context, errOut io.Writer) (ctx context.Context, stop func()) {
	ctx, stopSignals := signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
	finished := make(chan struct{})
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
		if parent.Err() == nil {
			fmt.Fprintln(errOut, "\nstopping after the row in flight… (ctrl+c again quits at once)")
		}
		stopSignals() // a second signal ends the process
	}()
	return ctx, func() { close(finished); stopSignals() }
}

// importDone is what an import did: the run's summary, the rows it had to
// add (with those already in the group), the invalid ones.
type importDone struct {
	sum           app.ImportSummary
	rows, invalid []model.ImportRow
	already       int
}

func (d importDone) counts() importCountsJSON {
	return importCountsJSON{Added: d.sum.Added, Failed: d.sum.Failed, Invalid: len(d.invalid),
		AlreadyInGroup: d.already, Skipped: len(d.rows) - d.sum.Added - d.sum.Failed, NotAttempted: d.sum.NotAttempted}
}

// report prints every row's outcome: the summary line of --json-lines,
// --json's object, or for people the rows not added and a count.
func (imp *importing) report(d importDone) error {
	o, counts := imp.o, d.counts()
	all := append(d.rows, d.invalid...)
	switch {
	case imp.lines != nil:
		imp.lines.emit(importSummaryJSON{GroupID: imp.group, Counts: counts})
		return imp.lines.err
	case o.JSON:
		return printJSON(o.IO.Out, importJSON{GroupID: imp.group, Rows: all, Counts: counts})
	}
	for _, r := range all {
		if r.Status != model.ImportAdded {
			printf(o.IO.ErrOut, "%s line %d (%s): %s: %s\n", imp.name, r.Line, r.Mobile, string(r.Status), r.Error)
		}
	}
	printf(o.IO.Out, "Imported %d of %d contacts into group %s (%d already in it, %d failed, %d invalid, %d not attempted)\n",
		d.sum.Added, len(d.rows)+len(d.invalid), imp.group.String(), d.already, d.sum.Failed, len(d.invalid), len(d.rows)-d.sum.Added-d.sum.Failed-d.already)
	return nil
}

// exit is the import's exit status: 130 when a signal stopped it with rows
// not attempted, 1 when any row was not imported.
func (imp *importing) exit(d importDone, signalled bool) error {
	added := d.sum.Added
	if signalled && d.sum.NotAttempted > 0 {
		return &ExitError{Code: ExitInterrupted, Kind: "interrupted", Hint: "import the same file again: it adds only what is missing",
			Err: fmt.Errorf("import into group %s interrupted: %d added, %d not attempted", imp.group, added, d.sum.NotAttempted)}
	}
	if added+d.already < len(d.rows)+len(d.invalid) {
		return withCode(ExitService, fmt.Errorf("%d row(s) of %s were not imported (listed above)", len(d.rows)+len(d.invalid)-added-d.already, imp.name))
	}
	return nil
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
func readContactsFile(stdin io.Reader, path, sheet string, kind numbersFile) ([]model.ContactRow, error) {
	var rows []model.ContactRow
	err := eachContact(stdin, path, sheet, kind, nil, func(r model.ContactRow) error {
		rows = append(rows, r)
		return nil
	})
	return rows, err
}

// eachContact reads a file of kind (path, or stdin for "-") a row at a
// time, giving each to row and every byte read to tee (nil: none); an
// error from row stops it and is returned as it is. A file without rows is
// a usage error.
func eachContact(stdin io.Reader, path, sheet string, kind numbersFile, tee io.Writer, row func(model.ContactRow) error) error {
	in := stdin
	if path == "-" {
		path = "stdin"
	} else {
		f, err := openInput(kind.what, path)
		if err != nil {
			return err
		}
		defer func() { _ = f.Close() }() // only read
		in = f
	}
	if tee != nil {
		in = io.TeeReader(in, tee)
	}
	n := 0
	var rowErr error
	err := model.ReadContacts(model.WithSheet(in, sheet), func(r model.ContactRow) error {
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

// addSheetFlag is --sheet, for a command that reads a file that may be a
// workbook: what a file is comes from its bytes (model.WithSheet), so a
// CSV ignores it.
func addSheetFlag(cmd *cobra.Command, sheet *string) {
	cmd.Flags().StringVar(sheet, "sheet", "", "the sheet to read when the file is an Excel workbook (.xlsx; default: its first sheet)")
}
