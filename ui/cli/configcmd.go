package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

func (a *app) configCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show smsdesk's files and change the profile's settings",
	}
	var asJSON bool
	path := &cobra.Command{
		Use:   "path",
		Short: "Print every path smsdesk uses (config, credentials, state, logs)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.local()
			if err != nil {
				return err
			}
			infos := s.Paths.Describe()
			if asJSON {
				return printJSON(a.env.Stdout, infos)
			}
			rows := make([][]string, len(infos))
			for i, p := range infos {
				state := "missing"
				if p.Exists {
					state = "exists"
				}
				rows[i] = []string{p.Name, p.Path, state}
			}
			return printTable(a.env.Stdout, []string{"WHAT", "PATH", ""}, rows)
		},
	}
	path.Flags().BoolVar(&asJSON, "json", false, "print the paths as JSON")
	cmd.AddCommand(path, a.configSetCommand(), a.configGetCommand())
	return cmd
}

func (a *app) profilesCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "profiles",
		Short: "List, switch and remove profiles",
	}
	var asJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List profiles (* marks the one in use)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.local()
			if err != nil {
				return err
			}
			type row struct {
				Name    string `json:"name"`
				Active  bool   `json:"active"`
				BaseURL string `json:"base_url"`
				Sender  string `json:"sender,omitempty"`
			}
			var out []row
			for _, n := range s.Config.Names() {
				p := s.Config.Profiles[n]
				out = append(out, row{Name: n, Active: n == s.ProfileName, BaseURL: p.BaseURL, Sender: p.Sender})
			}
			if asJSON {
				if out == nil {
					out = []row{}
				}
				return printJSON(a.env.Stdout, out)
			}
			if len(out) == 0 {
				fmt.Fprintln(a.env.Stderr, "No profiles yet. Create one with `smsdesk login --profile NAME --base-url URL`.")
				return nil
			}
			rows := make([][]string, len(out))
			for i, r := range out {
				mark := " "
				if r.Active {
					mark = "*"
				}
				rows[i] = []string{mark, r.Name, r.BaseURL, r.Sender}
			}
			return printTable(a.env.Stdout, []string{"", "PROFILE", "BASE URL", "SENDER"}, rows)
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print the profiles as JSON")
	use := &cobra.Command{
		Use:   "use NAME",
		Short: "Make NAME the active profile",
		Args:  exactArgs(1, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.local()
			if err != nil {
				return err
			}
			if err := s.Config.Use(args[0]); err != nil {
				return usageError("%w", err)
			}
			if err := s.Config.Save(s.Paths); err != nil {
				return err
			}
			fmt.Fprintf(a.env.Stderr, "✓ Active profile: %s\n", args[0])
			return nil
		},
	}
	remove := &cobra.Command{
		Use:   "remove NAME",
		Short: "Remove a profile and its stored key",
		Args:  exactArgs(1, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.local()
			if err != nil {
				return err
			}
			if !s.Config.RemoveProfile(args[0]) {
				return usageError("no profile named %q (see `smsdesk profiles list`)", args[0])
			}
			if _, err := a.secrets(s.Paths).Delete(args[0]); err != nil {
				fmt.Fprintf(a.env.Stderr, "! could not remove the stored key of %s: %v\n", args[0], err)
			}
			if err := s.Config.Save(s.Paths); err != nil {
				return err
			}
			fmt.Fprintf(a.env.Stderr, "✓ Removed profile %s\n", args[0])
			return nil
		},
	}
	cmd.AddCommand(list, use, remove)
	return cmd
}
