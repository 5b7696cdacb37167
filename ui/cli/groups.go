package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// groups: the service cannot list groups, so smsdesk remembers the
// profile's (app.Session.KnownGroups); create, list, track and untrack.

func newCmdGroups(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "groups",
		Short: "Create and remember contact groups",
		Long: `The service cannot list groups, so smsdesk remembers, per profile, the groups
it created and the ones you tell it about with "groups track".`,
	}
	cmd.AddCommand(newCmdGroupsCreate(f, nil), newCmdGroupsList(f, nil), newCmdGroupsTrack(f, nil), newCmdGroupsUntrack(f, nil))
	return cmd
}

// groupsCreateOptions are what groups create was asked.
type groupsCreateOptions struct {
	f                    *Factory
	IO                   *IOStreams
	Name, Description    string
	JSON, AllowDuplicate bool
}

func newCmdGroupsCreate(f *Factory, runF func(context.Context, *groupsCreateOptions) error) *cobra.Command {
	o := &groupsCreateOptions{f: f, IO: f.IO}
	if runF == nil {
		runF = groupsCreateRun
	}
	cmd := &cobra.Command{
		Use:     "create NAME",
		Short:   "Create a contact group and remember it",
		Long:    "Creates a group on the service and tracks it. A name one of the profile's known groups has already is refused (the API cannot list groups, so a second one would be made silently) unless --allow-duplicate.",
		Example: "  smsdesk groups create \"Tehran customers\" --description \"spring campaign\"\n  smsdesk groups create \"Tehran customers\" --allow-duplicate",
		Args:    exactArgs(1, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return runF(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVar(&o.Description, "description", "", "group description (at most 255 characters)")
	cmd.Flags().BoolVar(&o.AllowDuplicate, "allow-duplicate", false, "create it even if a known group has that name")
	addJSONFlag(cmd, &o.JSON, "print the new group as JSON", groupFields, "smsdesk groups create \"Tehran customers\" --json=id")
	return cmd
}

// groupsCreateRun creates the group (app.Session.CreateGroup: the rules of
// names, and remembering it) and prints its id.
func groupsCreateRun(ctx context.Context, o *groupsCreateOptions) error {
	s, err := o.f.session(ctx)
	if err != nil {
		return err
	}
	g, err := s.App.CreateGroup(ctx, app.NewGroup{Name: o.Name, Description: o.Description, AllowDuplicate: o.AllowDuplicate})
	var lost *app.NotRemembered
	switch {
	case errors.As(err, &lost):
		fmt.Fprintf(o.IO.ErrOut, "smsdesk: %s\n  → run `smsdesk groups track %s` later\n", cleanError(err), g.ID)
	case errors.As(err, new(*app.Refusal)):
		return refused(err)
	case err != nil:
		return fmt.Errorf("creating group: %w", err)
	}
	if o.JSON {
		return printJSON(o.IO.Out, groupJSON{ID: g.ID, Name: g.Name, Description: g.Description})
	}
	printf(o.IO.Out, "%s\n", g.ID.String())
	printf(o.IO.ErrOut, "Created group %q (id %s) for profile %s\n", g.Name, g.ID.String(), s.ProfileName)
	return nil
}

// groupsListOptions are what groups list was asked.
type groupsListOptions struct {
	f    *Factory
	IO   *IOStreams
	JSON bool
}

func newCmdGroupsList(f *Factory, runF func(context.Context, *groupsListOptions) error) *cobra.Command {
	o := &groupsListOptions{f: f, IO: f.IO}
	if runF == nil {
		runF = groupsListRun
	}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the groups this profile knows",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return runF(cmd.Context(), o) },
	}
	addJSONFlag(cmd, &o.JSON, "print an array of {id, name, description, contacts}", groupFields, "smsdesk groups list --json=id,name")
	return cmd
}

// groupsListRun prints the profile's known groups.
func groupsListRun(_ context.Context, o *groupsListOptions) error {
	s, err := o.f.local()
	if err != nil {
		return err
	}
	groups, err := s.App.KnownGroups()
	if err != nil {
		return err
	}
	if o.JSON {
		out := make([]groupJSON, len(groups))
		for i, g := range groups {
			out[i] = groupJSON{ID: g.ID, Name: g.Name, Description: g.Description}
			if g.Contacts >= 0 {
				n := g.Contacts
				out[i].Contacts = &n
			}
		}
		return printJSON(o.IO.Out, out)
	}
	if len(groups) == 0 {
		fmt.Fprintf(o.IO.ErrOut, "No groups known for profile %s. Create one with `smsdesk groups create NAME` or add one with `smsdesk groups track ID`.\n", s.ProfileName)
		return nil
	}
	rows := make([][]string, len(groups))
	for i, g := range groups {
		rows[i] = []string{g.ID.String(), g.Name, g.Description}
	}
	return o.IO.table(o.IO.Out, []string{"ID", "NAME", "DESCRIPTION"}, rows)
}

// groupsTrackOptions are what groups track (and untrack) were asked.
type groupsTrackOptions struct {
	f        *Factory
	IO       *IOStreams
	ID, Name string
}

func newCmdGroupsTrack(f *Factory, runF func(context.Context, *groupsTrackOptions) error) *cobra.Command {
	o := &groupsTrackOptions{f: f, IO: f.IO}
	if runF == nil {
		runF = groupsTrackRun
	}
	cmd := &cobra.Command{
		Use:     "track ID",
		Short:   "Remember a group created elsewhere",
		Long:    "Checks with one request that the group exists on the service, then remembers it for the profile.",
		Example: `  smsdesk groups track 42 --name "Support team"`,
		Args:    exactArgs(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ID = args[0]
			return runF(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVar(&o.Name, "name", "", "a name to show for the group")
	return cmd
}

// groupsTrackRun remembers a group the service has (app.Session.TrackGroup).
func groupsTrackRun(ctx context.Context, o *groupsTrackOptions) error {
	id, ok := app.GroupNumber(o.ID) // only a number: tracking is how a group becomes known
	if !ok {
		return groupIDError(o.ID)
	}
	s, err := o.f.session(ctx)
	if err != nil {
		return err
	}
	known, _ := s.App.KnownGroups() // what it was known as, for the words: none when unread
	before, wasKnown := knownGroup(known, id)
	if _, err := s.App.TrackGroup(ctx, id, o.Name); err != nil {
		return err
	}
	printf(o.IO.ErrOut, "%s\n", trackedText(before, wasKnown, id, o.Name, s.ProfileName))
	return nil
}

func newCmdGroupsUntrack(f *Factory, runF func(context.Context, *groupsTrackOptions) error) *cobra.Command {
	o := &groupsTrackOptions{f: f, IO: f.IO}
	if runF == nil {
		runF = groupsUntrackRun
	}
	return &cobra.Command{
		Use:   "untrack ID",
		Short: "Forget a group (it stays on the service)",
		Args:  exactArgs(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ID = args[0]
			return runF(cmd.Context(), o)
		},
	}
}

// groupsUntrackRun forgets a known group (app.Session.UntrackGroup).
func groupsUntrackRun(ctx context.Context, o *groupsTrackOptions) error {
	s, err := o.f.local()
	if err != nil {
		return err
	}
	found, err := s.App.UntrackGroup(ctx, model.ID(o.ID))
	if err != nil {
		return err
	}
	if !found {
		return usageError("group %s is not tracked for profile %s (see `smsdesk groups list`)", o.ID, s.ProfileName)
	}
	printf(o.IO.ErrOut, "Forgot group %s (it still exists on the service)\n", o.ID)
	return nil
}

// knownGroup finds id among the profile's known groups.
func knownGroup(known []config.KnownGroup, id model.ID) (config.KnownGroup, bool) {
	for _, k := range known {
		if k.ID == id {
			return k, true
		}
	}
	return config.KnownGroup{}, false
}

// trackedText says what `groups track` remembered, and whether the name
// shown is the service's or this machine's own: the service cannot tell a
// group's name, so a --name is a local name, shown beside the service's
// where smsdesk knows it (it replaced it without a word).
func trackedText(before config.KnownGroup, wasKnown bool, id model.ID, name, profile string) string {
	head := fmt.Sprintf("Tracking group %s for profile %s", id, profile)
	switch {
	case name == "" && wasKnown:
		return fmt.Sprintf("%s (%q, as before)", head, before.Name)
	case name == "":
		return fmt.Sprintf("%s as \"group %s\" (the service cannot tell smsdesk a group's name: give one with --name)", head, id)
	case before.ServiceName == name:
		return fmt.Sprintf("%s (%q)", head, name)
	case before.ServiceName != "":
		return fmt.Sprintf("%s as %q, a name for this machine only: on the service the group is %q", head, name, before.ServiceName)
	}
	return fmt.Sprintf("%s as %q, a name for this machine only (the service cannot tell smsdesk a group's name; it keeps its own)", head, name)
}

// groupJSON is the stable JSON form of a known group; contacts is -1 when unknown.
type groupJSON struct {
	ID          model.ID `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Contacts    *int     `json:"contacts"` // as last listed; null until the group's contacts are listed
}

// exactArgs is cobra.ExactArgs with a message naming the missing argument.
func exactArgs(n int, names string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageError("%s takes %s (got %d argument(s)); see %s --help", cmd.CommandPath(), names, len(args), cmd.CommandPath())
		}
		return nil
	}
}
