package cli

import (
	"fmt"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
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
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "create NAME",
		Short:   "Create a contact group and remember it",
		Example: `  smsdesk groups create "Tehran customers" --description "spring campaign"`,
		Args:    exactArgs(1, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			if n := utf8.RuneCountInString(name); n == 0 || n > 100 {
				return usageError("group name must be 1 to 100 characters (got %d)", n)
			}
			if n := utf8.RuneCountInString(description); n > 255 {
				return usageError("--description must be at most 255 characters (got %d)", n)
			}
			s, err := a.session(cmd.Context())
			if err != nil {
				return err
			}
			g, err := s.Client.CreateGroup(cmd.Context(), client.NewGroup{Name: name, Description: description})
			if err != nil {
				return fmt.Errorf("creating group: %w", err)
			}
			if err := config.TrackGroup(s.Paths, s.ProfileName, g); err != nil {
				fmt.Fprintf(a.env.Stderr, "smsdesk: group %s was created but could not be remembered: %v\n  → run `smsdesk groups track %s` later\n", g.ID, err, g.ID)
			}
			if asJSON {
				return printJSON(a.env.Stdout, g)
			}
			fmt.Fprintln(a.env.Stdout, model.SanitizeLine(g.ID.String()))
			fmt.Fprintf(a.env.Stderr, "Created group %q (id %s) for profile %s\n", model.SanitizeLine(g.Name), model.SanitizeLine(g.ID.String()), s.ProfileName)
			return nil
		},
	}
	cmd.Flags().StringVar(&description, "description", "", "group description (at most 255 characters)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the new group as JSON")
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
				return printJSON(a.env.Stdout, out)
			}
			if len(groups) == 0 {
				fmt.Fprintf(a.env.Stderr, "No groups known for profile %s. Create one with `smsdesk groups create NAME` or add one with `smsdesk groups track ID`.\n", s.ProfileName)
				return nil
			}
			rows := make([][]string, len(groups))
			for i, g := range groups {
				rows[i] = []string{g.ID.String(), g.Name, g.Description}
			}
			return printTable(a.env.Stdout, []string{"ID", "NAME", "DESCRIPTION"}, rows)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print an array of {id, name, description, contacts}")
	return cmd
}

func (a *command) groupsTrackCommand() *cobra.Command {
	var name string
	cmd := &cobra.Command{
		Use:     "track ID",
		Short:   "Remember a group created elsewhere",
		Example: `  smsdesk groups track 42 --name "Support team"`,
		Args:    exactArgs(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.local()
			if err != nil {
				return err
			}
			id, err := groupIDArg(config.Paths{}, "", args[0]) // only a number: tracking is how a group becomes known
			if err != nil {
				return err
			}
			g := model.Group{ID: id, Name: name}
			if g.Name == "" {
				g.Name = "group " + args[0]
			}
			if err := config.TrackGroup(s.Paths, s.ProfileName, g); err != nil {
				return err
			}
			fmt.Fprintf(a.env.Stderr, "Tracking group %s for profile %s\n", model.SanitizeLine(args[0]), s.ProfileName)
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
			found, err := config.UntrackGroup(s.Paths, s.ProfileName, model.ID(args[0]))
			if err != nil {
				return err
			}
			if !found {
				return usageError("group %s is not tracked for profile %s (see `smsdesk groups list`)", model.SanitizeLine(args[0]), s.ProfileName)
			}
			fmt.Fprintf(a.env.Stderr, "Forgot group %s (it still exists on the service)\n", model.SanitizeLine(args[0]))
			return nil
		},
	}
}

// groupJSON is the stable JSON form of a known group; contacts is -1 when unknown.
type groupJSON struct {
	ID          model.ID `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
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
