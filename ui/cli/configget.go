package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

func (a *command) configGetCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "get [SETTING]",
		Short: "Print the settings in force and where each comes from",
		Long: `Prints a setting's value in force on stdout (for scripts) and where it comes
from on stderr: the profile's file, a default, the environment or a flag.
Without a SETTING, lists every setting.`,
		Example: "  smsdesk config get chunk_size\n  smsdesk config get\n  smsdesk --profile test config get --json",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			list, consoleList, withLedger := profileSettings, consoleSettings, true
			if len(args) == 1 {
				withLedger = args[0] == "ledger"
				if withLedger {
					list, consoleList = nil, nil
				} else if cs, ok := findConsoleSetting(args[0]); ok {
					list, consoleList = nil, []consoleSetting{cs}
				} else {
					setting, err := findSetting(args[0])
					if err != nil {
						return err
					}
					list, consoleList = []profileSetting{setting}, nil
				}
			}
			s, err := a.local()
			if err != nil {
				return err
			}
			type row struct {
				Setting string `json:"setting"`
				Value   string `json:"value"`
				Source  string `json:"source"`
			}
			rows := make([]row, 0, len(list)+len(consoleList))
			for _, st := range list {
				v, src := a.effective(st, s)
				rows = append(rows, row{st.name, v, src})
			}
			for _, cs := range consoleList {
				v, src := cs.get(&s.Config.Console), "config file [console] ("+s.Paths.ConfigFile+")"
				if v == "" {
					v, src = cs.def, "default"
				}
				rows = append(rows, row{cs.name, v, src})
			}
			if withLedger {
				v, src := a.ledgerSetting(s)
				rows = append(rows, row{"ledger", v, src})
			}
			switch {
			case asJSON && len(args) == 1:
				return printJSON(a.IO.Out, rows[0])
			case asJSON:
				return printJSON(a.IO.Out, rows)
			case len(args) == 1:
				printf(a.IO.Out, "%s\n", rows[0].Value)
				printf(a.IO.ErrOut, "(%s)\n", rows[0].Source)
				return nil
			}
			table := make([][]string, len(rows))
			for i, r := range rows {
				table[i] = []string{r.Setting, r.Value, r.Source}
			}
			fmt.Fprintf(a.IO.ErrOut, "Profile %s\n", s.ProfileName)
			return a.IO.table(a.IO.Out, []string{"SETTING", "VALUE", "FROM"}, table)
		},
	}
	addJSONFlag(cmd, &asJSON, "print {setting, value, source} (an array without SETTING)", configGetFields, "smsdesk config get --json=setting,value")
	return cmd
}
