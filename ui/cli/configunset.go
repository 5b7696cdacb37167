package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/config"
)

// configUnsetCommand removes a setting from the profile (or the console's
// table), so that its default applies again.
func (a *command) configUnsetCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "unset SETTING",
		Short: "Remove a setting of the profile in use, so that its default applies",
		Long: `Removes SETTING from the profile in use (or, for bidi, mouse, alt_screen and
theme, from the console's settings): the default applies again. The settings
are those of ` + "`smsdesk config set --help`" + `.`,
		Example: "  smsdesk config unset repeat_window\n  smsdesk --profile test config unset chunk_size\n  smsdesk config unset theme",
		Args:    exactArgs(1, "SETTING"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if args[0] == "ledger" { // back to <state dir>/smsdesk.db
				return a.setLedger(cmd, "")
			}
			if cs, ok := findConsoleSetting(args[0]); ok {
				return a.unsetConsoleSetting(cs)
			}
			setting, err := findSetting(args[0])
			if err != nil {
				return err
			}
			s, err := a.local()
			if err != nil {
				return err
			}
			err = s.updateProfile(func(p *config.Profile) error {
				if !unsetProfileSetting(setting, p) {
					return usageError("%s cannot be unset; set it with smsdesk config set %s VALUE", setting.name, setting.name)
				}
				return nil
			})
			if err != nil {
				return err
			}
			v, src := a.effective(setting, s)
			fmt.Fprintf(a.IO.ErrOut, "✓ %s unset (profile %s); in force: %s (%s)\n", setting.name, s.ProfileName, valueOrNone(v), src)
			return nil
		},
	}
}

// unsetProfileSetting sets the setting's zero (the empty text, 0 or false:
// what the file leaves out), reporting whether one of them read back as
// unset.
func unsetProfileSetting(st profileSetting, p *config.Profile) bool {
	for _, zero := range []string{"", "0", "false"} {
		q := *p
		if st.set(&q, zero) == nil && st.get(&q) == "" {
			*p = q
			return true
		}
	}
	return false
}

// unsetConsoleSetting clears one of the console's settings for every profile.
func (a *command) unsetConsoleSetting(cs consoleSetting) error {
	paths, err := a.paths()
	if err != nil {
		return err
	}
	_, err = config.Update(paths, func(c *config.Config) error {
		switch cs.name {
		case "bidi":
			c.Console.Bidi = ""
		case "mouse":
			c.Console.Mouse = nil
		case "alt_screen":
			c.Console.AltScreen = nil
		case "theme":
			c.Console.Theme = ""
		default:
			return usageError("%s cannot be unset", cs.name)
		}
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(a.IO.ErrOut, "✓ %s unset (console, every profile); in force: %s (default)\n", cs.name, cs.def)
	return nil
}

func valueOrNone(v string) string {
	if v == "" {
		return "none"
	}
	return v
}
