package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/config"
)

func newCmdConfigSet(f *Factory, runF func(context.Context, *configOptions) error) *cobra.Command {
	if runF == nil {
		runF = configSetRun
	}
	var b strings.Builder
	for _, s := range profileSettings {
		fmt.Fprintf(&b, "  %-20s %s\n", s.name, s.help)
	}
	fmt.Fprintf(&b, "\nFor every profile (top-level in the file):\n  %-20s %s\n", "ledger", ledgerSettingHelp)
	b.WriteString("\nThe console's, for every profile on this machine ([console] in the file):\n")
	for _, s := range consoleSettings {
		fmt.Fprintf(&b, "  %-20s %s\n", s.name, s.help)
	}
	cmd, _ := newCmdConfigVerb(f, &cobra.Command{
		Use:     "set SETTING VALUE",
		Short:   "Change a setting of the profile in use",
		Long:    "Settings (as in the config file):\n" + b.String() + "\nThe API key is not a setting: use `smsdesk login`.",
		Example: "  smsdesk config set sender 3000505\n  smsdesk config set ledger postgres://smsdesk@db.example.com/smsdesk\n  smsdesk config set senders 3000505,10004346\n  smsdesk --profile test config set chunk_size 50",
		Args:    exactArgs(2, "SETTING and VALUE"),
	}, runF)
	return cmd
}

// configSetRun changes a setting: the profile's, the console's or the
// ledger's, each in the config file under its lock.
func configSetRun(ctx context.Context, o *configOptions) error {
	if o.Setting == "ledger" {
		return o.f.setLedger(ctx, o.Value)
	}
	if cs, ok := findConsoleSetting(o.Setting); ok {
		return o.f.setConsoleSetting(cs, strings.TrimSpace(o.Value))
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
		if err := setting.set(p, strings.TrimSpace(o.Value)); err != nil {
			return usageError("%s: %w", setting.name, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(o.IO.ErrOut, "✓ %s = %s (profile %s)\n", setting.name, setting.get(s.Profile), s.ProfileName)
	return nil
}

// setConsoleSetting changes one of the [console] settings under the config
// file's lock.
func (f *Factory) setConsoleSetting(cs consoleSetting, v string) error {
	paths, err := f.paths()
	if err != nil {
		return err
	}
	c, err := config.Update(paths, func(c *config.Config) error {
		if err := cs.set(&c.Console, v); err != nil {
			return usageError("%s: %w", cs.name, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(f.IO.ErrOut, "✓ %s = %s (console, every profile)\n", cs.name, cs.get(&c.Console))
	return nil
}
