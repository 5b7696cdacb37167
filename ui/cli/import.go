package cli

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/model"
)

// importRow is one row of a contacts import and what became of it.
type importRow struct {
	Line   int      `json:"line"`
	Mobile string   `json:"mobile"`
	Name   string   `json:"name"`
	Status string   `json:"status"` // added, failed, invalid, skipped
	ID     model.ID `json:"id,omitempty"`
	Error  string   `json:"error,omitempty"`
}

func (a *app) contactsImportCommand() *cobra.Command {
	var asJSON, skipInvalid bool
	cmd := &cobra.Command{
		Use:   "import GROUP_ID FILE",
		Short: "Add every contact of a CSV file (mobile[,name]) to a group",
		Long: `Reads a contacts CSV (header optional: mobile/phone/number and name columns;
comma, semicolon, tab or Arabic-comma separated; UTF-8 or UTF-16), checks every
row first, then adds the contacts one by one, paced to the service's rate limit.
Any invalid row stops the import before anything is added, unless --skip-invalid.`,
		Example: "  smsdesk contacts import 12 contacts.csv",
		Args:    exactArgs(2, "GROUP_ID and FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			groupID, file := model.ID(args[0]), args[1]
			s, err := a.session(cmd.Context())
			if err != nil {
				return err
			}
			rows, invalid, err := readContactsFile(file, s.numberFormat())
			if err != nil {
				return err
			}
			if len(invalid) > 0 && !skipInvalid {
				for _, r := range invalid {
					fmt.Fprintf(a.env.Stderr, "%s line %d: %s\n", filepath.Base(file), r.Line, model.SanitizeLine(r.Error))
				}
				return usageError("%d invalid row(s) in %s; nothing was imported (fix them, or pass --skip-invalid)", len(invalid), file)
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
					fmt.Fprintln(a.env.Stderr, "\nstopping after the row in flight… (ctrl+c again quits at once)")
				}
				stop() // a second signal ends the process
			}()
			// The group as it is now decides what is missing: an import that
			// was interrupted (or a file imported before) adds only the rest,
			// never a second copy.
			have, err := a.groupMobiles(cmd.Context(), s, groupID)
			if err != nil {
				return err
			}
			prog := &progress{w: a.env.Stderr, label: "importing", total: len(rows), terminal: a.env.StdoutIsTerminal}
			added, failed, already := 0, 0, 0
			for i := range rows {
				r := &rows[i]
				if ctx.Err() != nil {
					r.Status, r.Error = "skipped", "interrupted before this row"
					continue
				}
				if have[mobileKey(r.Mobile)] {
					r.Status, r.Error = "skipped", "already in the group"
					already++
					prog.update(i + 1)
					continue
				}
				c, err := s.Client.AddContact(context.WithoutCancel(cmd.Context()), client.NewContact{GroupID: groupID, Name: r.Name, Mobile: r.Mobile})
				if isDuplicate(err) {
					r.Status, r.Error = "skipped", "already in the group (the service says so)"
					already++
					prog.update(i + 1)
					continue
				}
				if err != nil {
					r.Status, r.Error = "failed", model.SanitizeLine(err.Error())
					failed++
					var apiErr *client.APIError
					if errors.As(err, &apiErr) && (errors.Is(err, client.ErrUnauthorized) || errors.Is(err, client.ErrNotFound)) {
						// Every further row would fail the same way.
						for j := i + 1; j < len(rows); j++ {
							rows[j].Status, rows[j].Error = "skipped", "not attempted after: "+r.Error
						}
						prog.update(len(rows))
						break
					}
				} else {
					r.Status, r.ID = "added", c.ID
					added++
				}
				prog.update(i + 1)
			}
			all := append(rows, invalid...)
			if asJSON {
				if err := printJSON(a.env.Stdout, map[string]any{
					"group_id": groupID,
					"rows":     all,
					"summary": map[string]int{"added": added, "failed": failed, "invalid": len(invalid),
						"already_in_group": already, "skipped": len(rows) - added - failed},
				}); err != nil {
					return err
				}
			} else {
				for _, r := range all {
					if r.Status != "added" {
						fmt.Fprintf(a.env.Stderr, "%s line %d (%s): %s: %s\n", filepath.Base(file), r.Line, r.Mobile, r.Status, r.Error)
					}
				}
				fmt.Fprintf(a.env.Stdout, "Imported %d of %d contacts into group %s (%d already in it, %d failed, %d invalid, %d not attempted)\n",
					added, len(rows)+len(invalid), model.SanitizeLine(groupID.String()), already, failed, len(invalid), len(rows)-added-failed-already)
			}
			if added+already < len(rows)+len(invalid) {
				return withCode(ExitService, fmt.Errorf("%d row(s) of %s were not imported (listed above)", len(rows)+len(invalid)-added-already, file))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print every row's outcome as JSON")
	cmd.Flags().BoolVar(&skipInvalid, "skip-invalid", false, "import the valid rows even if some are invalid (they are listed)")
	return cmd
}

// groupMobiles lists the group's contacts and returns their numbers (as
// mobileKey) so that an import adds only who is missing.
func (a *app) groupMobiles(ctx context.Context, s *session, groupID model.ID) (map[string]bool, error) {
	contacts, err := s.Client.ListContacts(ctx, groupID, nil)
	if err != nil {
		return nil, fmt.Errorf("listing group %s to skip contacts already in it: %w; nothing was imported", model.SanitizeLine(groupID.String()), err)
	}
	have := make(map[string]bool, len(contacts))
	for _, c := range contacts {
		have[mobileKey(c.Mobile)] = true
	}
	return have, nil
}

// mobileKey is a number in one spelling for comparison (09… and +989… alike).
func mobileKey(m string) string {
	if n, err := model.NormalizeMobile(m, model.FormatE164); err == nil {
		return n
	}
	return m
}

// isDuplicate reports the service refusing a contact because the group has
// it already (409, or a duplicate/exists/taken code or field message).
func isDuplicate(err error) bool {
	var ae *client.APIError
	if !errors.As(err, &ae) {
		return false
	}
	if ae.Status == http.StatusConflict {
		return true
	}
	text := strings.ToLower(ae.Code + " " + ae.Message + " " + fmt.Sprint(ae.Fields))
	return ae.Status == http.StatusUnprocessableEntity &&
		(strings.Contains(text, "duplicate") || strings.Contains(text, "already") || strings.Contains(text, "taken") || strings.Contains(text, "exists"))
}

// readContactsFile reads and checks a contacts CSV: valid rows with normalised
// mobiles, and invalid rows with their reasons (duplicates included).
func readContactsFile(path string, format model.NumberFormat) (valid, invalid []importRow, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, usageError("opening contacts file: %w", err)
	}
	defer f.Close()
	seen := map[string]int{}
	err = model.ReadContacts(f, func(r model.ContactRow) error {
		row := importRow{Line: r.Line, Mobile: model.SanitizeLine(r.Mobile), Name: r.Name}
		mobile, err := model.NormalizeMobile(r.Mobile, format)
		switch {
		case err != nil:
			row.Status, row.Error = "invalid", err.Error()
			invalid = append(invalid, row)
		case seen[mobile] != 0:
			row.Status, row.Error = "invalid", fmt.Sprintf("duplicate of line %d (%s)", seen[mobile], mobile)
			invalid = append(invalid, row)
		default:
			seen[mobile] = r.Line
			row.Mobile = mobile
			valid = append(valid, row)
		}
		return nil
	})
	if err != nil {
		var csvErr *model.CSVError
		if errors.As(err, &csvErr) && csvErr.File == "" {
			csvErr.File = filepath.Base(path)
		}
		return nil, nil, usageError("reading %s: %w", path, err)
	}
	if len(valid)+len(invalid) == 0 {
		return nil, nil, usageError("%s has no contacts (expected rows of mobile[,name])", path)
	}
	return valid, invalid, nil
}
