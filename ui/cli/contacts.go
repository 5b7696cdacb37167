package cli

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// contacts: a group's contacts on the service (add, list, delete; import
// is import.go), every change through ui/app (its role check and audit).

func newCmdContacts(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "contacts",
		Short: "Add, list, delete and import a group's contacts",
	}
	cmd.AddCommand(newCmdContactsAdd(f, nil), newCmdContactsList(f, nil), newCmdContactsDelete(f, nil), newCmdContactsImport(f, nil))
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

// contactsAddOptions are what contacts add was asked.
type contactsAddOptions struct {
	f                   *Factory
	IO                  *IOStreams
	Group, Mobile, Name string
	JSON                bool
}

func newCmdContactsAdd(f *Factory, runF func(context.Context, *contactsAddOptions) error) *cobra.Command {
	o := &contactsAddOptions{f: f, IO: f.IO}
	if runF == nil {
		runF = contactsAddRun
	}
	cmd := &cobra.Command{
		Use:     "add GROUP_ID MOBILE",
		Short:   "Add a contact to a group",
		Example: `  smsdesk contacts add 12 09121234567 --name "Sara Ahmadi"`,
		Args:    exactArgs(2, "GROUP_ID and MOBILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Group, o.Mobile = args[0], args[1]
			return runF(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVar(&o.Name, "name", "", "the contact's name")
	addJSONFlag(cmd, &o.JSON, "print the new contact as JSON", contactFields, "smsdesk contacts add 12 09121234567 --json=id")
	return cmd
}

// contactsAddRun adds the contact (app.Session.AddContact: the number's
// rules) and prints its id.
func contactsAddRun(ctx context.Context, o *contactsAddOptions) error {
	s, err := o.f.session(ctx)
	if err != nil {
		return err
	}
	groupID, err := groupIDArg(s, o.Group)
	if err != nil {
		return err
	}
	c, err := s.App.AddContact(ctx, groupID, o.Mobile, o.Name)
	if errors.As(err, new(*app.Refusal)) {
		return refused(err)
	}
	if err != nil {
		return fmt.Errorf("adding %s to group %s: %w", model.SanitizeLine(o.Mobile), o.Group, err)
	}
	if o.JSON {
		out := toContactJSON(c)
		out.GroupID = groupID
		return printJSON(o.IO.Out, out)
	}
	printf(o.IO.Out, "%s\n", c.ID.String())
	return nil
}

// contactsListOptions are what contacts list was asked.
type contactsListOptions struct {
	f         *Factory
	IO        *IOStreams
	Group     string
	JSON, CSV bool
	Limit     int
}

func newCmdContactsList(f *Factory, runF func(context.Context, *contactsListOptions) error) *cobra.Command {
	o := &contactsListOptions{f: f, IO: f.IO}
	if runF == nil {
		runF = contactsListRun
	}
	cmd := &cobra.Command{
		Use:     "list GROUP_ID",
		Short:   "List a group's contacts (every page)",
		Example: "  smsdesk contacts list 12\n  smsdesk contacts list 12 --csv > contacts.csv\n  smsdesk contacts list 12 --limit 20",
		Args:    exactArgs(1, "GROUP_ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Group = args[0]
			if err := o.validate(); err != nil {
				return err
			}
			return runF(cmd.Context(), o)
		},
	}
	addJSONFlag(cmd, &o.JSON, "print an array of {id, group_id, name, mobile}", contactFields, "smsdesk contacts list 12 --json=name,mobile")
	cmd.Flags().BoolVar(&o.CSV, "csv", false, "print CSV (id,mobile,name)")
	cmd.Flags().IntVar(&o.Limit, "limit", 0, "print at most N contacts (in the service's order)")
	return cmd
}

// validate refuses --json with --csv, and a negative --limit.
func (o *contactsListOptions) validate() error {
	if o.JSON && o.CSV {
		return usageError("--json and --csv cannot be used together")
	}
	if o.Limit < 0 {
		return usageError("--limit %d: give a positive number (0 lists every contact)", o.Limit)
	}
	return nil
}

// contactsListRun lists the group's contacts through ui/app
// (app.Session.ListContacts: every page, or the first --limit, and the
// group's size remembered for groups list), with progress on stderr.
func contactsListRun(ctx context.Context, o *contactsListOptions) error {
	s, err := o.f.session(ctx)
	if err != nil {
		return err
	}
	prog := &progress{w: o.IO.ProgressOut(), label: "loaded", unit: "contacts", total: -1, terminal: o.IO.ErrIsTerminal(), now: o.f.Now}
	onPage := func(p client.ListProgress) {
		if p.Page == 1 {
			prog.start = prog.clock() // the rate counts from the first page
			return
		}
		prog.total = p.Total
		prog.update(p.Loaded)
	}
	groupID, err := groupIDArg(s, o.Group)
	if err != nil {
		return err
	}
	list, err := s.App.ListContacts(ctx, groupID, app.ContactsQuery{Limit: o.Limit, OnPage: onPage, Remember: true})
	prog.finish()
	if err != nil {
		return fmt.Errorf("listing group %s: %w", o.Group, err)
	}
	if list.Remembered != nil {
		printf(o.IO.ErrOut, "smsdesk: warning: the group's size was not remembered for groups list: %v\n", list.Remembered)
	}
	return o.print(groupID, list)
}

// print writes the contacts listed: JSON, CSV, or a table with a count on
// stderr.
func (o *contactsListOptions) print(groupID model.ID, list app.ContactList) error {
	contacts := list.Contacts
	switch {
	case o.JSON:
		out := make([]contactJSON, len(contacts))
		for i, c := range contacts {
			out[i] = toContactJSON(c)
			out[i].GroupID = groupID // the list is the group's, whatever the service said
		}
		return printJSON(o.IO.Out, out)
	case o.CSV:
		w := csv.NewWriter(o.IO.Out)
		_ = w.Write([]string{"id", "mobile", "name"}) // w.Error after Flush says it
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
	if err := o.IO.table(o.IO.Out, []string{"ID", "NAME", "MOBILE"}, rows); err != nil {
		return err
	}
	printf(o.IO.ErrOut, "%s\n", listedText(len(contacts), list.Total, o.Limit, o.Group))
	return nil
}

// listedText says how many contacts of the group were printed: all of them
// ("300 contacts in group 4"), or the first shown under --limit, of the
// group's total where the service said it ("the first 2 of 300 contacts in
// group 4"). A total less than what was listed is the service's mistake,
// said as such: it printed "the first 3 of 0 contacts" (issue 40 item 18).
func listedText(shown, total, limit int, group string) string {
	switch {
	case limit <= 0 || shown < limit || shown == total:
		if shown == 1 {
			return "1 contact in group " + group
		}
		return fmt.Sprintf("%d contacts in group %s", shown, group)
	case total >= shown:
		return fmt.Sprintf("the first %d of %d contacts in group %s (--limit %d)", shown, total, group, limit)
	case total >= 0:
		return fmt.Sprintf("the first %d contacts in group %s (--limit %d; the service counts %d in it, fewer than it listed)", shown, group, limit, total)
	}
	return fmt.Sprintf("the first %d contacts in group %s (--limit %d; the service did not say how many it has)", shown, group, limit)
}

// contactsDeleteOptions are what contacts delete was asked.
type contactsDeleteOptions struct {
	f   *Factory
	IO  *IOStreams
	IDs []string
	Yes bool
}

func newCmdContactsDelete(f *Factory, runF func(context.Context, *contactsDeleteOptions) error) *cobra.Command {
	o := &contactsDeleteOptions{f: f, IO: f.IO}
	if runF == nil {
		runF = contactsDeleteRun
	}
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
			o.IDs = args
			return runF(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVarP(&o.Yes, "yes", "y", false, "delete without asking")
	return cmd
}

// contactsDeleteRun checks every id, asks (unless --yes), then deletes
// each contact through ui/app (app.Session.DeleteContact), going on past
// one that fails.
func contactsDeleteRun(ctx context.Context, o *contactsDeleteOptions) error {
	s, err := o.f.session(ctx)
	if err != nil {
		return err
	}
	ids := make([]model.ID, len(o.IDs))
	for i, arg := range o.IDs { // all checked before the first deletion
		if ids[i], err = contactIDArg(arg); err != nil {
			return err
		}
	}
	if err := s.App.Allow(app.ActionDeleteContact); err != nil {
		return refused(err)
	}
	if !o.Yes {
		q := fmt.Sprintf("Delete %d contact(s) (%s) from the service? This cannot be undone.", len(ids), strings.Join(o.IDs, ", "))
		ok, err := o.IO.Confirm(q, "--yes")
		if err != nil {
			return err
		}
		if !ok {
			return usageError("nothing was deleted")
		}
	}
	var failed []error
	for _, id := range ids {
		if err := s.App.DeleteContact(ctx, "", id); err != nil {
			failed = append(failed, fmt.Errorf("deleting contact %s: %w", id, err))
			fmt.Fprintln(o.IO.ErrOut, "smsdesk: "+cleanError(failed[len(failed)-1]))
			continue
		}
		printf(o.IO.Out, "deleted %s\n", id.String())
	}
	if len(failed) > 0 {
		return withCode(ExitService, fmt.Errorf("%d of %d deletions failed (see above)", len(failed), len(o.IDs)))
	}
	return nil
}
