package cli

import (
	"github.com/spf13/cobra"
)

func (a *command) configCommand() *cobra.Command {
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
				return printJSON(a.IO.Out, infos)
			}
			rows := make([][]string, len(infos))
			for i, p := range infos {
				state := "missing"
				if p.Exists {
					state = "exists"
				}
				rows[i] = []string{p.Name, p.Path, state}
			}
			return a.IO.table(a.IO.Out, []string{"WHAT", "PATH", ""}, rows)
		},
	}
	addJSONFlag(path, &asJSON, "print the paths as JSON", configPathFields, "smsdesk config path --json=key,path")
	cmd.AddCommand(path, a.configSetCommand(), a.configUnsetCommand(), a.configGetCommand())
	return cmd
}
