package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
)

func newCmdConfigGet(f *Factory, runF func(context.Context, *configOptions) error) *cobra.Command {
	if runF == nil {
		runF = configGetRun
	}
	cmd, o := newCmdConfigVerb(f, &cobra.Command{
		Use:   "get [SETTING]",
		Short: "Print the settings in force and where each comes from",
		Long: `Prints a setting's value in force on stdout (for scripts) and where it comes
from on stderr: the profile's file, a default, the environment or a flag.
Without a SETTING, lists every setting.`,
		Example: "  smsdesk config get chunk_size\n  smsdesk config get\n  smsdesk --profile test config get --json",
		Args:    cobra.MaximumNArgs(1),
	}, runF)
	addJSONFlag(cmd, &o.JSON, "print {setting, value, source} (an array without SETTING)", configGetFields, "smsdesk config get --json=setting,value")
	return cmd
}

// settingRow is one setting in force, as config get prints it.
type settingRow struct {
	Setting string `json:"setting"`
	Value   string `json:"value"`
	Source  string `json:"source"`
}

// configGetRun prints the setting named (or every one) in force, and where
// each comes from.
func configGetRun(_ context.Context, o *configOptions) error {
	list, consoleList, withLedger, err := settingsNamed(o)
	if err != nil {
		return err
	}
	s, err := o.f.local()
	if err != nil {
		return err
	}
	rows := make([]settingRow, 0, len(list)+len(consoleList))
	for _, st := range list {
		v, src := o.f.effective(st, s)
		rows = append(rows, settingRow{st.name, v, src})
	}
	for _, cs := range consoleList {
		v, src := cs.get(&s.Config.Console), "config file [console] ("+s.Paths.ConfigFile+")"
		if v == "" {
			v, src = cs.def, "default"
		}
		rows = append(rows, settingRow{cs.name, v, src})
	}
	if withLedger {
		v, src := ledgerSetting(s)
		rows = append(rows, settingRow{"ledger", v, src})
	}
	switch {
	case o.JSON && o.Given:
		return printJSON(o.IO.Out, rows[0])
	case o.JSON:
		return printJSON(o.IO.Out, rows)
	case o.Given:
		printf(o.IO.Out, "%s\n", rows[0].Value)
		printf(o.IO.ErrOut, "(%s)\n", rows[0].Source)
		return nil
	}
	table := make([][]string, len(rows))
	for i, r := range rows {
		table[i] = []string{r.Setting, r.Value, r.Source}
	}
	fmt.Fprintf(o.IO.ErrOut, "Profile %s\n", s.ProfileName)
	return o.IO.table(o.IO.Out, []string{"SETTING", "VALUE", "FROM"}, table)
}

// settingsNamed are the settings config get prints: the one named (the
// profile's, the console's, or the ledger), or every one.
func settingsNamed(o *configOptions) (list []profileSetting, consoleList []consoleSetting, withLedger bool, err error) {
	if !o.Given {
		return profileSettings, consoleSettings, true, nil
	}
	if o.Setting == "ledger" {
		return nil, nil, true, nil
	}
	if cs, ok := findConsoleSetting(o.Setting); ok {
		return nil, []consoleSetting{cs}, false, nil
	}
	setting, err := findSetting(o.Setting)
	if err != nil {
		return nil, nil, false, err
	}
	return []profileSetting{setting}, nil, false, nil
}
