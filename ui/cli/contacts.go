package cli

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

func (a *command) contactsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "contacts",
		Short: "Add, list, delete and import a group's contacts",
	}
	cmd.AddCommand(a.contactsAddCommand(), a.contactsListCommand(), a.contactsDeleteCommand(), a.contactsImportCommand())
	return cmd
}

// contactJSON is the stable JSON form of a contact.
type contactJSON struct {
	ID      model.ID `json:"id"`
	GroupID model.ID `json:"group_id"`
	Name    string   `json:"name"`
	Mobile  string   `json:"mobile"`
}

func toContactJSON(c model.Contact) contactJSON {
	// Exact data: printJSON escapes the controls, nothing is dropped.
	return contactJSON{ID: c.ID, GroupID: c.GroupID, Name: c.Name, Mobile: c.Mobile}
}

func (a *command) contactsAddCommand() *cobra.Command {
	var name string
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "add GROUP_ID MOBILE",
		Short:   "Add a contact to a group",
		Example: `  smsdesk contacts add 12 09121234567 --name "Sara Ahmadi"`,
		Args:    exactArgs(2, "GROUP_ID and MOBILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.session(cmd.Context())
			if err != nil {
				return err
			}
			groupID, err := groupIDArg(s, args[0])
			if err != nil {
				return err
			}
			c, err := s.App.AddContact(cmd.Context(), groupID, args[1], name)
			if errors.As(err, new(*app.Refusal)) {
				return refused(err)
			}
			if err != nil {
				return fmt.Errorf("adding %s to group %s: %w", model.SanitizeLine(args[1]), args[0], err)
			}
			if asJSON {
				out := toContactJSON(c)
				out.GroupID = groupID
				return printJSON(a.IO.Out, out)
			}
			printf(a.IO.Out, "%s\n", c.ID.String())
			return nil
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "the contact's name")
	addJSONFlag(cmd, &asJSON, "print the new contact as JSON", contactFields, "smsdesk contacts add 12 09121234567 --json=id")
	return cmd
}

func (a *command) contactsListCommand() *cobra.Command {
	var asJSON, asCSV bool
	var limit int
	cmd := &cobra.Command{
		Use:     "list GROUP_ID",
		Short:   "List a group's contacts (every page)",
		Example: "  smsdesk contacts list 12\n  smsdesk contacts list 12 --csv > contacts.csv\n  smsdesk contacts list 12 --limit 20",
		Args:    exactArgs(1, "GROUP_ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if asJSON && asCSV {
				return usageError("--json and --csv cannot be used together")
			}
			if limit < 0 {
				return usageError("--limit %d: give a positive number (0 lists every contact)", limit)
			}
			s, err := a.session(cmd.Context())
			if err != nil {
				return err
			}
			prog := &progress{w: a.IO.ProgressOut(), label: "loaded", unit: "contacts", total: -1, terminal: a.IO.ErrIsTerminal(), now: a.Now}
			// With --limit, the pages stop once there are enough: the
			// group's size is then what the service said of it (-1: it did
			// not say).
			ctx, enough := context.WithCancel(cmd.Context())
			defer enough()
			total, cut := -1, false
			onPage := func(p client.ListProgress) {
				total = p.Total
				if limit > 0 && p.Loaded >= limit {
					cut = true
					enough()
				}
				if p.Page == 1 {
					prog.start = prog.clock() // the rate counts from the first page
					return
				}
				prog.total = p.Total
				prog.update(p.Loaded)
			}
			groupID, err := groupIDArg(s, args[0])
			if err != nil {
				return err
			}
			contacts, err := s.Client.ListContacts(ctx, groupID, onPage)
			prog.finish()
			switch {
			case cut && cmd.Context().Err() == nil:
				err = nil // stopped on purpose: there are enough
			case err == nil:
				total = len(contacts)
			}
			if err != nil {
				return fmt.Errorf("listing group %s: %w", args[0], err)
			}
			if total >= 0 {
				// A tracked group remembers its size for `groups list`.
				_, _ = config.SetGroupContacts(s.Paths, s.ProfileName, groupID, total)
			}
			shown := contacts
			if limit > 0 && len(shown) > limit {
				shown = shown[:limit]
			}
			contacts = shown
			switch {
			case asJSON:
				out := make([]contactJSON, len(contacts))
				for i, c := range contacts {
					out[i] = toContactJSON(c)
					out[i].GroupID = groupID // the list is the group's, whatever the service said
				}
				return printJSON(a.IO.Out, out)
			case asCSV:
				w := csv.NewWriter(a.IO.Out)
				_ = w.Write([]string{"id", "mobile", "name"})
				for _, c := range contacts {
					_ = w.Write(model.CSVRow([]string{c.ID.String(), c.Mobile, c.Name}))
				}
				w.Flush()
				return w.Error()
			}
			rows := make([][]string, len(contacts))
			for i, c := range contacts {
				rows[i] = []string{c.ID.String(), c.Name, c.Mobile}
			}
			if err := a.IO.table(a.IO.Out, []string{"ID", "NAME", "MOBILE"}, rows); err != nil {
				return err
			}
			printf(a.IO.ErrOut, "%s\n", listedText(len(contacts), total, limit, args[0]))
			return nil
		},
	}
	addJSONFlag(cmd, &asJSON, "print an array of {id, group_id, name, mobile}", contactFields, "smsdesk contacts list 12 --json=name,mobile")
	cmd.Flags().BoolVar(&asCSV, "csv", false, "print CSV (id,mobile,name)")
	cmd.Flags().IntVar(&limit, "limit", 0, "print at most N contacts (in the service's order)")
	return cmd
}

// listedText says how many contacts of the group were printed: all of them
// ("300 contacts in group 4"), or the first shown under --limit, of the
// group's total where the service said it ("the first 2 of 300 contacts in
// group 4").
func listedText(shown, total, limit int, group string) string {
	switch {
	case limit <= 0 || shown < limit || shown == total:
		if shown == 1 {
			return "1 contact in group " + group
		}
		return fmt.Sprintf("%d contacts in group %s", shown, group)
	case total >= 0:
		return fmt.Sprintf("the first %d of %d contacts in group %s (--limit %d)", shown, total, group, limit)
	}
	return fmt.Sprintf("the first %d contacts in group %s (--limit %d; the service did not say how many it has)", shown, group, limit)
}

func (a *command) contactsDeleteCommand() *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:   "delete CONTACT_ID... [--yes]",
		Short: "Delete contacts (asks first; --yes for scripts)",
		Long: `Deletes contacts from the service. A deletion cannot be undone, so it asks
first, as the console does; --yes deletes without asking (scripts: without a
terminal it refuses unless --yes).`,
		Example: "  smsdesk contacts delete 981 982\n  smsdesk contacts delete 981 --yes",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError("contacts delete takes one or more CONTACT_IDs (see `smsdesk contacts list GROUP_ID`)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.session(cmd.Context())
			if err != nil {
				return err
			}
			ids := make([]model.ID, len(args))
			for i, arg := range args { // all checked before the first deletion
				if ids[i], err = contactIDArg(arg); err != nil {
					return err
				}
			}
			if err := s.App.Allow(app.ActionDeleteContact); err != nil {
				return refused(err)
			}
			if !yes {
				q := fmt.Sprintf("Delete %d contact(s) (%s) from the service? This cannot be undone.", len(ids), strings.Join(args, ", "))
				ok, err := a.IO.Confirm(q, "--yes")
				if err != nil {
					return err
				}
				if !ok {
					return usageError("nothing was deleted")
				}
			}
			var failed []error
			for _, id := range ids {
				if err := s.App.DeleteContact(cmd.Context(), "", id); err != nil {
					failed = append(failed, fmt.Errorf("deleting contact %s: %w", id, err))
					fmt.Fprintln(a.IO.ErrOut, "smsdesk: "+cleanError(failed[len(failed)-1]))
					continue
				}
				printf(a.IO.Out, "deleted %s\n", id.String())
			}
			if len(failed) > 0 {
				return withCode(ExitService, fmt.Errorf("%d of %d deletions failed (see above)", len(failed), len(args)))
			}
			return nil
		},
	}
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "delete without asking")
	return cmd
}
