package cli

import (
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

var optOutFields = []string{"mobile", "sender", "note", "added", "operator"}

func (a *command) optOutCommand() *cobra.Command {
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
	cmd.AddCommand(a.optOutAddCommand(), a.optOutRemoveCommand(), a.optOutListCommand(), a.optOutImportCommand())
	return cmd
}

func (a *command) optOutAddCommand() *cobra.Command {
	var sender, note string
	cmd := &cobra.Command{
		Use:     "add NUMBER...",
		Short:   "Put numbers on the opt-out list (every line, or --sender LINE)",
		Example: "  smsdesk optout add 09121234567 +989351234567\n  smsdesk optout add ۰۹۱۲۱۲۳۴۵۶۷ --sender 3000505 --note \"replied 11\"",
		Args:    numbersArgs("optout add"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, mobiles, err := a.optOutSession(cmd, args)
			if err != nil {
				return err
			}
			ch, err := s.App.AddOptOuts(cmd.Context(), mobiles, sender, note)
			if err != nil {
				return refused(err)
			}
			for _, o := range ch.Already {
				printf(a.IO.ErrOut, "%s is already opted out (%s)\n", o.Mobile, linesText(o.Sender))
			}
			printf(a.IO.Out, "%d added to the opt-out list (%s); %d already on it\n", len(ch.Changed), linesText(sender), len(ch.Already))
			return nil
		},
	}
	cmd.Flags().StringVar(&sender, "sender", "", "the one line the opt-out holds for (default: every line)")
	cmd.Flags().StringVar(&note, "note", "", "why, for whoever reads the list later")
	return cmd
}

func (a *command) optOutRemoveCommand() *cobra.Command {
	var sender string
	cmd := &cobra.Command{
		Use:   "remove NUMBER...",
		Short: "Take numbers off the opt-out list (recorded)",
		Long: `Takes numbers off the opt-out list: every opt-out of theirs, or with --sender
only the one for that line. This is the only way to send to an opted-out
number again, and it is recorded in the audit trail.`,
		Example: "  smsdesk optout remove 09121234567\n  smsdesk optout remove 09121234567 --sender 3000505",
		Args:    numbersArgs("optout remove"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, mobiles, err := a.optOutSession(cmd, args)
			if err != nil {
				return err
			}
			ch, err := s.App.RemoveOptOuts(cmd.Context(), mobiles, sender)
			if err != nil {
				return refused(err)
			}
			for _, o := range ch.Already {
				printf(a.IO.ErrOut, "%s is not on the opt-out list (%s)\n", o.Mobile, linesText(o.Sender))
			}
			printf(a.IO.Out, "%d removed from the opt-out list; %d were not on it\n", len(ch.Changed), len(ch.Already))
			return nil
		},
	}
	cmd.Flags().StringVar(&sender, "sender", "", "remove only the opt-out for this line (default: every opt-out of the number)")
	return cmd
}

// optOutJSON is one entry of `optout list --json`.
type optOutJSON struct {
	Mobile   string          `json:"mobile"`
	Sender   *string         `json:"sender"` // null: every line
	Note     *string         `json:"note"`
	Added    string          `json:"added"` // RFC 3339 in the profile's timezone
	Operator *model.Operator `json:"operator"`
}

func (a *command) optOutListCommand() *cobra.Command {
	var asJSON, asCSV bool
	var sender string
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "Print the opt-out list (--sender LINE: the opt-outs that stop that line)",
		Example: "  smsdesk optout list\n  smsdesk optout list --csv > optouts.csv\n  smsdesk optout list --sender 3000505 --json=mobile,sender",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if asJSON && asCSV {
				return usageError("--json and --csv cannot be used together")
			}
			s, err := a.session(cmd.Context())
			if err != nil {
				return err
			}
			all, err := s.App.OptOuts(cmd.Context())
			if err != nil {
				return err
			}
			list := all[:0:0]
			for _, o := range all {
				if sender == "" || o.AllLines() || o.Sender == sender {
					list = append(list, o)
				}
			}
			loc := s.App.Profile.Zone()
			switch {
			case asJSON:
				out := make([]optOutJSON, len(list))
				for i, o := range list {
					out[i] = optOutJSON{Mobile: o.Mobile, Sender: nullable(o.Sender), Note: nullable(o.Note), Added: o.Added.In(loc).Format(time.RFC3339), Operator: o.Operator}
				}
				return printJSON(a.IO.Out, out)
			case asCSV:
				w := csv.NewWriter(a.IO.Out)
				_ = w.Write([]string{"mobile", "sender", "note", "added", "operator"})
				for _, o := range list {
					_ = w.Write(model.CSVRow([]string{o.Mobile, o.Sender, o.Note, o.Added.In(loc).Format(time.RFC3339), operatorName(o.Operator)}))
				}
				w.Flush()
				return w.Error()
			}
			rows := make([][]string, len(list))
			for i, o := range list {
				rows[i] = []string{o.Mobile, linesText(o.Sender), o.Added.In(loc).Format("2006-01-02 15:04"), operatorName(o.Operator), o.Note}
			}
			if err := a.IO.table(a.IO.Out, []string{"MOBILE", "LINES", "ADDED (" + loc.String() + ")", "BY", "NOTE"}, rows); err != nil {
				return err
			}
			printf(a.IO.ErrOut, "%d on the opt-out list (one list for every profile and key on this ledger)\n", len(list))
			return nil
		},
	}
	addJSONFlag(cmd, &asJSON, "print an array of {mobile, sender, note, added, operator}", optOutFields, "smsdesk optout list --json=mobile,sender")
	cmd.Flags().BoolVar(&asCSV, "csv", false, "print CSV (mobile,sender,note,added,operator)")
	cmd.Flags().StringVar(&sender, "sender", "", "only the opt-outs that stop this line (its own and every line's)")
	return cmd
}

func (a *command) optOutImportCommand() *cobra.Command {
	var sender, note string
	var skipInvalid bool
	cmd := &cobra.Command{
		Use:   "import FILE|-",
		Short: "Put every number of a CSV file on the opt-out list",
		Long: `Reads numbers from a CSV file (a mobile or recipient column, or the first
column; header optional), checks every row as a contacts import does, and adds
them to the opt-out list. Any invalid row stops the import before anything is
added, unless --skip-invalid. FILE - reads stdin.`,
		Example: "  smsdesk optout import optouts.csv\n  panel-export | smsdesk optout import - --sender 3000505",
		Args:    exactArgs(1, "FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := filepath.Base(args[0])
			if args[0] == "-" {
				name = "stdin"
			}
			s, err := a.session(cmd.Context())
			if err != nil {
				return err
			}
			// Read as it is imported: a million rows are never held.
			sum := sha256.New()
			f := app.OptOutFile{Name: name,
				Read: func(row func(model.ContactRow) error) error {
					return eachContact(a.IO.In, args[0], optOutsFile, sum, row)
				},
				Digest: func() string { return "sha256:" + hex.EncodeToString(sum.Sum(nil)) }}
			res, invalid, err := s.App.ImportOptOuts(cmd.Context(), f, skipInvalid, sender, note)
			if err != nil {
				return refused(err)
			}
			for _, r := range invalid {
				printf(a.IO.ErrOut, "%s line %d (%s): skipped: %s\n", name, r.Line, r.Mobile, r.Error)
			}
			printf(a.IO.Out, "%d added to the opt-out list (%s) from %s; %d already on it, %d invalid\n",
				res.Added, linesText(sender), name, res.Already, len(invalid))
			return nil
		},
	}
	cmd.Flags().StringVar(&sender, "sender", "", "the one line the opt-outs hold for (default: every line)")
	cmd.Flags().StringVar(&note, "note", "", "why, for whoever reads the list later")
	cmd.Flags().BoolVar(&skipInvalid, "skip-invalid", false, "add the valid numbers even if some rows are invalid (they are listed)")
	return cmd
}

// optOutSession opens a session and normalises the numbers given.
func (a *command) optOutSession(cmd *cobra.Command, args []string) (*session, []string, error) {
	mobiles, err := app.OptOutNumbers(args, "argument")
	if err != nil {
		return nil, nil, refused(err)
	}
	s, err := a.session(cmd.Context())
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

func operatorName(op *model.Operator) string {
	if op == nil {
		return ""
	}
	return op.Name
}
