package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

func (a *command) groupsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "groups",
		Short: "Create and remember contact groups",
		Long: `The service cannot list groups, so smsdesk remembers, per profile, the groups
it created and the ones you tell it about with "groups track".`,
	}
	cmd.AddCommand(a.groupsCreateCommand(), a.groupsListCommand(), a.groupsTrackCommand(), a.groupsUntrackCommand())
	return cmd
}

func (a *command) groupsCreateCommand() *cobra.Command {
	var description string
	var asJSON, allowDuplicate bool
	cmd := &cobra.Command{
		Use:     "create NAME",
		Short:   "Create a contact group and remember it",
		Long:    "Creates a group on the service and tracks it. A name one of the profile's known groups has already is refused (the API cannot list groups, so a second one would be made silently) unless --allow-duplicate.",
		Example: "  smsdesk groups create \"Tehran customers\" --description \"spring campaign\"\n  smsdesk groups create \"Tehran customers\" --allow-duplicate",
		Args:    exactArgs(1, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.session(cmd.Context())
			if err != nil {
				return err
			}
			g, err := s.App.CreateGroup(cmd.Context(), app.NewGroup{Name: args[0], Description: description, AllowDuplicate: allowDuplicate})
			var lost *app.NotRemembered
			switch {
			case errors.As(err, &lost):
				fmt.Fprintf(a.IO.ErrOut, "smsdesk: %s\n  → run `smsdesk groups track %s` later\n", cleanError(err), g.ID)
			case errors.As(err, new(*app.Refusal)):
				return refused(err)
			case err != nil:
				return fmt.Errorf("creating group: %w", err)
			}
			if asJSON {
				return printJSON(a.IO.Out, groupJSON{ID: g.ID, Name: g.Name, Description: g.Description})
			}
			printf(a.IO.Out, "%s\n", g.ID.String())
			printf(a.IO.ErrOut, "Created group %q (id %s) for profile %s\n", g.Name, g.ID.String(), s.ProfileName)
			return nil
		},
	}
	cmd.Flags().StringVar(&description, "description", "", "group description (at most 255 characters)")
	cmd.Flags().BoolVar(&allowDuplicate, "allow-duplicate", false, "create it even if a known group has that name")
	addJSONFlag(cmd, &asJSON, "print the new group as JSON", groupFields, "smsdesk groups create \"Tehran customers\" --json=id")
	return cmd
}

func (a *command) groupsListCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the groups this profile knows",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.local()
			if err != nil {
				return err
			}
			groups, err := config.LoadGroups(s.Paths, s.ProfileName)
			if err != nil {
				return err
			}
			if asJSON {
				out := make([]groupJSON, len(groups))
				for i, g := range groups {
					out[i] = groupJSON{ID: g.ID, Name: g.Name, Description: g.Description}
					if g.Contacts >= 0 {
						n := g.Contacts
						out[i].Contacts = &n
					}
				}
				return printJSON(a.IO.Out, out)
			}
			if len(groups) == 0 {
				fmt.Fprintf(a.IO.ErrOut, "No groups known for profile %s. Create one with `smsdesk groups create NAME` or add one with `smsdesk groups track ID`.\n", s.ProfileName)
				return nil
			}
			rows := make([][]string, len(groups))
			for i, g := range groups {
				rows[i] = []string{g.ID.String(), g.Name, g.Description}
			}
			return a.IO.table(a.IO.Out, []string{"ID", "NAME", "DESCRIPTION"}, rows)
		},
	}
	addJSONFlag(cmd, &asJSON, "print an array of {id, name, description, contacts}", groupFields, "smsdesk groups list --json=id,name")
	return cmd
}

func (a *command) groupsTrackCommand() *cobra.Command {
	var name string
	cmd := &cobra.Command{
		Use:     "track ID",
		Short:   "Remember a group created elsewhere",
		Long:    "Checks with one request that the group exists on the service, then remembers it for the profile.",
		Example: `  smsdesk groups track 42 --name "Support team"`,
		Args:    exactArgs(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, ok := app.GroupNumber(args[0]) // only a number: tracking is how a group becomes known
			if !ok {
				return groupIDError(args[0])
			}
			s, err := a.session(cmd.Context())
			if err != nil {
				return err
			}
			known, _ := s.App.KnownGroups()
			before, wasKnown := knownGroup(known, id)
			if _, err := s.App.TrackGroup(cmd.Context(), id, name); err != nil {
				return err
			}
			printf(a.IO.ErrOut, "%s\n", trackedText(before, wasKnown, id, name, s.ProfileName))
			return nil
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "a name to show for the group")
	return cmd
}

func (a *command) groupsUntrackCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "untrack ID",
		Short: "Forget a group (it stays on the service)",
		Args:  exactArgs(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.local()
			if err != nil {
				return err
			}
			found, err := s.App.UntrackGroup(cmd.Context(), model.ID(args[0]))
			if err != nil {
				return err
			}
			if !found {
				return usageError("group %s is not tracked for profile %s (see `smsdesk groups list`)", args[0], s.ProfileName)
			}
			printf(a.IO.ErrOut, "Forgot group %s (it still exists on the service)\n", args[0])
			return nil
		},
	}
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
