package cli

import (
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// `smsdesk optout …`: the opt-out list (issue 29), the ledger's: one list
// shared by every profile, key and operator on the ledger. Changing it
// reads no service.

var optOutFields = []string{"mobile", "sender", "note", "added", "operator", "source", "message_id"}

func newCmdOptOut(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "optout",
		Short: "The opt-out list: numbers no send goes to",
		Long: `Numbers on the opt-out list are never sent to, by any profile, key or operator
of smsdesk serve on the same ledger: the list is the ledger's, one list for all
of them (a new key or another spelling of the base URL keeps it). Plans and
confirmations say "N opted out: not sent", and there is no flag to send to them
anyway. An opt-out holds for every line, or with --sender for one line only.
Numbers are accepted in any spelling (+98…, 0098…, 9…, Persian or Arabic digits)
and stored as 09…. Adding and removing are recorded in the audit trail.`,
	}
	cmd.AddCommand(newCmdOptOutAdd(f, nil), newCmdOptOutRemove(f, nil), newCmdOptOutList(f, nil), newCmdOptOutImport(f, nil))
	return cmd
}

// optOutOptions are what an optout command was asked: the numbers (add,
// remove) or the file (import), the one line the opt-outs hold for, a note.
type optOutOptions struct {
	f            *Factory
	IO           *IOStreams
	Numbers      []string
	File         string
	Sender, Note string
	JSON, CSV    bool   // list
	SkipInvalid  bool   // import
	Sheet        string // import: a workbook's sheet
}

// newCmdOptOutVerb is an optout command over optOutOptions: its arguments
// (the numbers, or the file) set before runF runs.
func newCmdOptOutVerb(f *Factory, cmd *cobra.Command, runF func(context.Context, *optOutOptions) error) (*cobra.Command, *optOutOptions) {
	o := &optOutOptions{f: f, IO: f.IO}
	cmd.RunE = func(c *cobra.Command, args []string) error {
		o.Numbers = args
		if len(args) == 1 {
			o.File = args[0]
		}
		return runF(c.Context(), o)
	}
	return cmd, o
}

func newCmdOptOutAdd(f *Factory, runF func(context.Context, *optOutOptions) error) *cobra.Command {
	if runF == nil {
		runF = optOutAddRun
	}
	cmd, o := newCmdOptOutVerb(f, &cobra.Command{
		Use:     "add NUMBER...",
		Short:   "Put numbers on the opt-out list (every line, or --sender LINE)",
		Example: "  smsdesk optout add 09121234567 +989351234567\n  smsdesk optout add ۰۹۱۲۱۲۳۴۵۶۷ --sender 3000505 --note \"replied 11\"",
		Args:    numbersArgs("optout add"),
	}, runF)
	cmd.Flags().StringVar(&o.Sender, "sender", "", "the one line the opt-out holds for (default: every line)")
	cmd.Flags().StringVar(&o.Note, "note", "", "why, for whoever reads the list later")
	return cmd
}

// optOutAddRun puts the numbers on the list (app.Session.AddOptOuts).
func optOutAddRun(ctx context.Context, o *optOutOptions) error {
	s, mobiles, err := o.session(ctx)
	if err != nil {
		return err
	}
	ch, err := s.App.AddOptOuts(ctx, mobiles, o.Sender, o.Note)
	if err != nil {
		return refused(err)
	}
	for _, e := range ch.Already {
		printf(o.IO.ErrOut, "%s is already opted out (%s)\n", e.Mobile, linesText(e.Sender))
	}
	printf(o.IO.Out, "%d added to the opt-out list (%s); %d already on it\n", len(ch.Changed), linesText(o.Sender), len(ch.Already))
	return nil
}

func newCmdOptOutRemove(f *Factory, runF func(context.Context, *optOutOptions) error) *cobra.Command {
	if runF == nil {
		runF = optOutRemoveRun
	}
	cmd, o := newCmdOptOutVerb(f, &cobra.Command{
		Use:   "remove NUMBER...",
		Short: "Take numbers off the opt-out list (recorded)",
		Long: `Takes numbers off the opt-out list: every opt-out of theirs, or with --sender
only the one for that line. This is the only way to send to an opted-out
number again, and it is recorded in the audit trail.`,
		Example: "  smsdesk optout remove 09121234567\n  smsdesk optout remove 09121234567 --sender 3000505",
		Args:    numbersArgs("optout remove"),
	}, runF)
	cmd.Flags().StringVar(&o.Sender, "sender", "", "remove only the opt-out for this line (default: every opt-out of the number)")
	return cmd
}

// optOutRemoveRun takes the numbers off the list (app.Session.RemoveOptOuts).
func optOutRemoveRun(ctx context.Context, o *optOutOptions) error {
	s, mobiles, err := o.session(ctx)
	if err != nil {
		return err
	}
	ch, err := s.App.RemoveOptOuts(ctx, mobiles, o.Sender)
	if err != nil {
		return refused(err)
	}
	for _, e := range ch.Already {
		printf(o.IO.ErrOut, "%s is not on the opt-out list (%s)\n", e.Mobile, linesText(e.Sender))
	}
	printf(o.IO.Out, "%d removed from the opt-out list; %d were not on it\n", len(ch.Changed), len(ch.Already))
	return nil
}

// optOutJSON is one entry of `optout list --json`.
type optOutJSON struct {
	Mobile   string          `json:"mobile"`
	Sender   *string         `json:"sender"` // null: every line
	Note     *string         `json:"note"`
	Added    string          `json:"added"` // RFC 3339 in the profile's timezone
	Operator *model.Operator `json:"operator"`
	// Source is who put it there: operator, import, or reply (the
	// recipient's «۱۱», MessageID the reply's).
	Source    string  `json:"source"`
	MessageID *string `json:"message_id"`
}

func newCmdOptOutList(f *Factory, runF func(context.Context, *optOutOptions) error) *cobra.Command {
	if runF == nil {
		runF = optOutListRun
	}
	cmd, o := newCmdOptOutVerb(f, &cobra.Command{
		Use:     "list",
		Short:   "Print the opt-out list (--sender LINE: the opt-outs that stop that line)",
		Example: "  smsdesk optout list\n  smsdesk optout list --csv > optouts.csv\n  smsdesk optout list --sender 3000505 --json=mobile,sender",
		Args:    cobra.NoArgs,
	}, func(ctx context.Context, o *optOutOptions) error {
		if o.JSON && o.CSV {
			return usageError("--json and --csv cannot be used together")
		}
		return runF(ctx, o)
	})
	addJSONFlag(cmd, &o.JSON, "print an array of {mobile, sender, note, added, operator, source, message_id}", optOutFields, "smsdesk optout list --json=mobile,sender")
	cmd.Flags().BoolVar(&o.CSV, "csv", false, "print CSV (mobile,sender,note,added,operator,source,message_id)")
	cmd.Flags().StringVar(&o.Sender, "sender", "", "only the opt-outs that stop this line (its own and every line's)")
	return cmd
}

// optOutListRun prints the list (app.Session.OptOuts), or the opt-outs
// that stop one line.
func optOutListRun(ctx context.Context, o *optOutOptions) error {
	s, err := o.f.session(ctx)
	if err != nil {
		return err
	}
	all, err := s.App.OptOuts(ctx)
	if err != nil {
		return err
	}
	list := all[:0:0]
	for _, e := range all {
		if o.Sender == "" || e.AllLines() || e.Sender == o.Sender {
			list = append(list, e)
		}
	}
	loc := s.App.Profile.Zone()
	switch {
	case o.JSON:
		out := make([]optOutJSON, len(list))
		for i, e := range list {
			out[i] = optOutJSON{Mobile: e.Mobile, Sender: nullable(e.Sender), Note: nullable(e.Note), Added: e.Added.In(loc).Format(time.RFC3339), Operator: e.Operator,
				Source: optOutSource(e), MessageID: nullable(e.MessageID)}
		}
		return printJSON(o.IO.Out, out)
	case o.CSV:
		w := csv.NewWriter(o.IO.Out)
		_ = w.Write(optOutFields) // w.Error after Flush says it
		for _, e := range list {
			_ = w.Write(model.CSVRow([]string{e.Mobile, e.Sender, e.Note, e.Added.In(loc).Format(time.RFC3339), operatorName(e.Operator),
				optOutSource(e), e.MessageID}))
		}
		w.Flush()
		return w.Error()
	}
	rows := make([][]string, len(list))
	for i, e := range list {
		rows[i] = []string{e.Mobile, linesText(e.Sender), e.Added.In(loc).Format("2006-01-02 15:04"), optOutBy(e), e.Note}
	}
	if err := o.IO.table(o.IO.Out, []string{"MOBILE", "LINES", "ADDED (" + loc.String() + ")", "BY", "NOTE"}, rows); err != nil {
		return err
	}
	printf(o.IO.ErrOut, "%d on the opt-out list (one list for every profile and key on this ledger)\n", len(list))
	return nil
}

func newCmdOptOutImport(f *Factory, runF func(context.Context, *optOutOptions) error) *cobra.Command {
	if runF == nil {
		runF = optOutImportRun
	}
	cmd, o := newCmdOptOutVerb(f, &cobra.Command{
		Use:   "import FILE|-",
		Short: "Put every number of a CSV file on the opt-out list",
		Long: `Reads numbers from a CSV file (a mobile or recipient column, or the first
column; header optional), checks every row as a contacts import does, and adds
them to the opt-out list. Any invalid row stops the import before anything is
added, unless --skip-invalid. FILE - reads stdin.`,
		Example: "  smsdesk optout import optouts.csv\n  panel-export | smsdesk optout import - --sender 3000505",
		Args:    exactArgs(1, "FILE"),
	}, runF)
	cmd.Flags().StringVar(&o.Sender, "sender", "", "the one line the opt-outs hold for (default: every line)")
	cmd.Flags().StringVar(&o.Note, "note", "", "why, for whoever reads the list later")
	cmd.Flags().BoolVar(&o.SkipInvalid, "skip-invalid", false, "add the valid numbers even if some rows are invalid (they are listed)")
	addSheetFlag(cmd, &o.Sheet)
	return cmd
}

// optOutImportRun puts every number of the file on the list
// (app.Session.ImportOptOuts: read as it is imported, a million rows are
// never held; one transaction, one audit record with the file's digest).
func optOutImportRun(ctx context.Context, o *optOutOptions) error {
	name := filepath.Base(o.File)
	if o.File == "-" {
		name = "stdin"
	}
	s, err := o.f.session(ctx)
	if err != nil {
		return err
	}
	sum := sha256.New()
	file := app.OptOutFile{Name: name,
		Read: func(row func(model.ContactRow) error) error {
			return eachContact(o.IO.In, o.File, o.Sheet, optOutsFile, sum, row)
		},
		Digest: func() string { return "sha256:" + hex.EncodeToString(sum.Sum(nil)) }}
	res, invalid, err := s.App.ImportOptOuts(ctx, file, o.SkipInvalid, o.Sender, o.Note)
	if err != nil {
		return refused(err)
	}
	for _, r := range invalid {
		printf(o.IO.ErrOut, "%s line %d (%s): skipped: %s\n", name, r.Line, r.Mobile, r.Error)
	}
	printf(o.IO.Out, "%d added to the opt-out list (%s) from %s; %d already on it, %d invalid\n",
		res.Added, linesText(o.Sender), name, res.Already, len(invalid))
	return nil
}

// session normalises the numbers given, then opens the profile's session.
func (o *optOutOptions) session(ctx context.Context) (*session, []string, error) {
	mobiles, err := app.OptOutNumbers(o.Numbers, "argument")
	if err != nil {
		return nil, nil, refused(err)
	}
	s, err := o.f.session(ctx)
	if err != nil {
		return nil, nil, err
	}
	return s, mobiles, nil
}

func numbersArgs(what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return usageError("%s takes one or more numbers", what)
		}
		return nil
	}
}

// linesText names the lines an opt-out holds for.
func linesText(sender string) string {
	if sender == "" {
		return "every line"
	}
	return "line " + sender
}

// optOutSource is an entry's source (operator for entries from before
// sources were kept).
func optOutSource(e model.OptOut) string {
	if e.Source == "" {
		return model.OptOutOperator
	}
	return e.Source
}

// optOutBy is who put an entry on the list, for people: the operator's
// name, "reply" (the recipient), or "import" with the operator's name.
func optOutBy(e model.OptOut) string {
	switch src, name := optOutSource(e), operatorName(e.Operator); {
	case src == model.OptOutOperator:
		return name
	case name == "":
		return src
	default:
		return src + " · " + name
	}
}

func operatorName(op *model.Operator) string {
	if op == nil {
		return ""
	}
	return op.Name
}
