package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/config"
)

// newCmdConfigUnset removes a setting from the profile (or the console's
// table), so that its default applies again.
func newCmdConfigUnset(f *Factory, runF func(context.Context, *configOptions) error) *cobra.Command {
	if runF == nil {
		runF = configUnsetRun
	}
	cmd, _ := newCmdConfigVerb(f, &cobra.Command{
		Use:   "unset SETTING",
		Short: "Remove a setting of the profile in use, so that its default applies",
		Long: `Removes SETTING from the profile in use (or, for bidi, mouse, alt_screen and
theme, from the console's settings): the default applies again. The settings
are those of ` + "`smsdesk config set --help`" + `.`,
		Example: "  smsdesk config unset repeat_window\n  smsdesk --profile test config unset chunk_size\n  smsdesk config unset theme",
		Args:    exactArgs(1, "SETTING"),
	}, runF)
	return cmd
}

// configUnsetRun removes the setting, so that its default applies again.
func configUnsetRun(ctx context.Context, o *configOptions) error {
	if o.Setting == "ledger" { // back to <state dir>/smsdesk.db
		return o.f.setLedger(ctx, "")
	}
	if cs, ok := findConsoleSetting(o.Setting); ok {
		return o.f.unsetConsoleSetting(cs)
	}
	setting, err := findSetting(o.Setting)
	if err != nil {
		return err
	}
	s, err := o.f.local()
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
	v, src := o.f.effective(setting, s)
	fmt.Fprintf(o.IO.ErrOut, "✓ %s unset (profile %s); in force: %s (%s)\n", setting.name, s.ProfileName, valueOrNone(v), src)
	return nil
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
func (f *Factory) unsetConsoleSetting(cs consoleSetting) error {
	paths, err := f.paths()
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
	fmt.Fprintf(f.IO.ErrOut, "✓ %s unset (console, every profile); in force: %s (default)\n", cs.name, cs.def)
	return nil
}

func valueOrNone(v string) string {
	if v == "" {
		return "none"
	}
	return v
}
